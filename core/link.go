package core

import (
	"errors"
	"fmt"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/sim"
)

// Several devices on one engine.
//
// The devices of a multi-device run are models sharing one sim.Engine, so
// that their events interleave in time order and every run is the same
// whatever the host does. Each chip's interconnect port is a Link: the
// program rings it by signalling isa.SemLink after storing the number of
// a collective at scalar-memory byte isa.LinkWord, and waits on
// isa.SemLinkDone. What the link does in between — when the collective
// can start, how long it takes, which bytes move where — is the link's
// (package ici's fabric); the core only delivers the doorbell and the
// completion.

// Link is a chip's interconnect port.
type Link interface {
	// Doorbell is called when m's program signals isa.SemLink, at now.
	Doorbell(m *Model, now sim.Time) error
}

// LinkStats is what one device's link did in a run (kept here, beside
// Link, so that reports need not import the interconnect, which imports
// the compiler).
type LinkStats struct {
	Collectives int64    `json:"collectives"`
	BytesIn     int64    `json:"bytes_in"`  // operand bytes handed to the link
	BytesOut    int64    `json:"bytes_out"` // result bytes it wrote back
	Busy        sim.Time `json:"-"`         // time the link spent on this device's collectives
	BusyCycles  int64    `json:"link_cycles"`
	WaitCycles  int64    `json:"wait_cycles"` // from ringing to the collective's start (the group's stragglers, a busy link)
	Wait        sim.Time `json:"-"`           // time waited so far, in the fabric's units
}

// LinkDone signals isa.SemLinkDone on m at time at (not before now): the
// link's part of a collective is done there.
func (m *Model) LinkDone(at sim.Time) {
	m.Eng.Schedule(at, sim.HandlerFunc(func(now sim.Time) {
		if err := m.Arch.Signal(isa.SemLinkDone, 1); err != nil {
			m.fail(err)
			return
		}
		m.linkEnd(now)
		m.signaled(isa.SemLinkDone, now)
	}))
}

// The sequencer's hooks see a collective as an instruction of its own,
// from the ring (the signal's pc) to the link's completion, so that the
// kernel table and the timeline show the collective kernels' time.
func (m *Model) linkStart(pc int, now sim.Time) {
	m.link.pc, m.link.start = pc, now
	s := m.Seq
	if s.Wants(sim.HookInstStart) {
		c := s.HookCtx()
		*c = sim.HookCtx{Pos: sim.HookInstStart, Now: now, Unit: -1, PC: pc, Start: now}
		s.InvokeHook(c)
	}
}

func (m *Model) linkEnd(now sim.Time) {
	s := m.Seq
	if s.Wants(sim.HookInstEnd) {
		c := s.HookCtx()
		*c = sim.HookCtx{Pos: sim.HookInstEnd, Now: now, Unit: -1, PC: m.link.pc, Start: m.link.start}
		s.InvokeHook(c)
	}
}

// Fail stops m's run with err (a link's failure at one of its collectives).
func (m *Model) Fail(err error) { m.fail(err) }

// DeviceError is a multi-device run's failure on one device.
type DeviceError struct {
	Device int
	Err    error
}

func (e *DeviceError) Error() string { return fmt.Sprintf("device %d: %v", e.Device, e.Err) }
func (e *DeviceError) Unwrap() error { return e.Err }

// RunDevices runs models that share one engine (Options.Engine) to
// completion: every program halted and drained. The first failure ends
// the run (by device order when several fail at once); a device left
// waiting when no event remains is a deadlock, as on one device. Limits
// and the watchdog are models[0]'s options.
func RunDevices(models []*Model) error {
	if len(models) == 0 {
		return nil
	}
	eng := models[0].Eng
	for i, m := range models {
		if m.Eng != eng {
			return fmt.Errorf("internal error: device %d has an engine of its own", i)
		}
		m.start()
	}
	opt := models[0].opt
	limit, maxCycles := sim.Time(-1), opt.MaxCycles
	if maxCycles == 0 {
		maxCycles = DefaultMaxCycles
	}
	clock := models[0].Clock
	if maxCycles > 0 {
		limit = clock.Time(maxCycles)
	}
	watchdog := int64(WatchdogCycles)
	if opt.WatchdogCycles > 0 {
		watchdog = opt.WatchdogCycles
	}
	// The engine runs in stretches between which failures are looked at;
	// a failed device stops scheduling, the others stop at the stretch.
	stretch := clock.Time(min(watchdog, 1<<20))
	failed := func() error {
		for i, m := range models {
			if m.err != nil {
				return &DeviceError{i, m.err}
			}
		}
		return nil
	}
	progress := func() (n int64) {
		for _, m := range models {
			n = n*31 + m.retired + int64(m.Arch.PC)
		}
		return n
	}
	last, idleSince := progress(), eng.Now()
	for eng.Pending() > 0 {
		if err := failed(); err != nil {
			return err
		}
		until := eng.Now() + stretch
		if next, ok := eng.Next(); ok && next > until {
			// Nothing happens for longer than a stretch (every device
			// waits on a collective of millions of cycles): the stretch
			// starts at the next event. (Counting from now, the loop
			// ran no event and never moved on: GPT-3's tensor-parallel
			// layer spun here for ever at its first all-gather.)
			until = next + stretch
		}
		if limit >= 0 && until >= limit {
			if eng.Run(limit) {
				m := models[0]
				for _, d := range models {
					if !d.Seq.halted {
						m = d
						break
					}
				}
				return &DeviceError{m.opt.Device, &MaxCyclesError{maxCycles, m.Arch.PC, m.Prog.DebugAt(m.Arch.PC).Pos(), opt.MaxCycles == 0}}
			}
			continue
		}
		if !eng.Run(until) {
			continue
		}
		if p := progress(); p != last {
			last, idleSince = p, eng.Now()
		} else if eng.Now()-idleSince >= clock.Time(watchdog) {
			for i, m := range models {
				if !m.Seq.halted || !m.drained() {
					return &DeviceError{i, m.stalled(clock.Cycles(eng.Now()), watchdog)}
				}
			}
		}
	}
	if err := failed(); err != nil {
		return err
	}
	var errs []error
	for i, m := range models {
		if !m.Seq.halted || !m.drained() {
			errs = append(errs, &DeviceError{i, m.deadlock()})
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, m := range models {
		m.finish()
	}
	return nil
}

// Device is m's global device id in a multi-device run (Options.Device).
func (m *Model) Device() int { return m.opt.Device }
