package core

import (
	"fmt"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/ref"
	"github.com/pulse-sim/pulse/sim"
)

type pending struct {
	pc    int
	bases [3]int64
	at    sim.Time // dispatched
}

// Unit is one execution unit: an in-order queue of dispatched instructions
// and a timer. It starts its head instruction when the instruction's
// semaphore wait is met and the unit is free, applies its effect on the
// architectural state, and signals at completion.
type Unit struct {
	sim.Hookable
	ID    ref.UnitID
	Name  string
	Index int

	m         *Model
	queue     *sim.Port[pending]
	clock     sim.Clock
	timer     timer
	nextFree  sim.Time
	tryQueued bool
	waitAsync bool // the running instruction's timer will call complete
	inflight  int
	acct      Accounting
	lastPC    int // the instruction started last (a DMA's memory stall is its)
	// headAvail is when the instruction starting now could have started
	// but for the unit being busy: dispatched, and its semaphore last
	// signalled (a DMA engine sets descriptors up from then, dma.Config.Prefetch).
	headAvail sim.Time

	// Instructions completed.
	Instructions int64
}

// Accounting is the unit's time by state.
func (u *Unit) Accounting() *Accounting { return &u.acct }

// Handle is the unit's wake-up.
func (u *Unit) Handle(now sim.Time) {
	u.tryQueued = false
	u.try(now)
}

func (u *Unit) schedule(t sim.Time) {
	if !u.tryQueued {
		u.tryQueued = true
		u.m.Eng.Schedule(t, u)
	}
}

func (u *Unit) wake(now sim.Time) { u.schedule(now) }

func (u *Unit) try(now sim.Time) {
	m := u.m
	if m.err != nil || u.waitAsync {
		return
	}
	if now < u.nextFree {
		u.schedule(u.nextFree)
		return
	}
	p, ok := u.queue.Peek()
	if !ok {
		if u.inflight > 0 && u.ID.Class == isa.UnitDMA {
			u.acct.set(now, Memory, u.lastPC) // requests out, data not yet back
		} else {
			u.acct.set(now, Idle, -1)
		}
		u.queue.NotifyArrival(u)
		return
	}
	in := &m.Prog.Code[p.pc]
	u.headAvail = p.at
	if w := in.Wait; w.Enabled {
		if m.Arch.Sems[w.Sem] < uint32(w.Count) {
			u.acct.set(now, SemWait, p.pc)
			m.waitSem(w.Sem, u)
			return
		}
		u.headAvail = max(u.headAvail, m.semHist[w.Sem].metSince(uint32(w.Count), now))
		m.Arch.Sems[w.Sem] -= uint32(w.Count)
		m.semHist[w.Sem].record(now, m.Arch.Sems[w.Sem])
	}
	u.queue.Recv()
	u.lastPC = p.pc
	if u.Wants(sim.HookDequeue) {
		c := u.HookCtx()
		*c = sim.HookCtx{Pos: sim.HookDequeue, Now: now, Unit: u.Index, PC: p.pc, Depth: u.queue.Len()}
		u.InvokeHook(c)
	}
	var tiles [3]*isa.Layout
	for i, t := range in.Tiles {
		if l, ok := m.Prog.Layout(t.Layout); ok {
			tiles[i] = l
		}
	}
	// A timing-only run executes every instruction too, computing values
	// only for those that steer control flow (slice.go): the checks and
	// faults are the value run's.
	if err := m.Arch.Exec(p.pc, p.bases); err != nil {
		m.fail(m.Arch.FaultAt(p.pc, u.Name, err))
		return
	}
	u.acct.set(now, Structural, p.pc) // until the timer's busy window opens
	start, next, end := u.timer.begin(u, now, p.pc, tiles, p.bases)
	u.inflight++
	m.inflight++
	if u.Wants(sim.HookInstStart) {
		c := u.HookCtx()
		*c = sim.HookCtx{Pos: sim.HookInstStart, Now: start, Unit: u.Index, PC: p.pc, Start: start, Bases: p.bases}
		u.InvokeHook(c)
	}
	if next < 0 {
		u.waitAsync = true
		return
	}
	u.nextFree = next
	m.Eng.Schedule(end, &completion{u, p.pc, start})
	u.schedule(next)
}

type completion struct {
	u     *Unit
	pc    int
	start sim.Time
}

func (c *completion) Handle(now sim.Time) { c.u.complete(c.pc, c.start, now) }

// complete retires an instruction: signal its semaphore, wake waiters.
func (u *Unit) complete(pc int, start, now sim.Time) {
	m := u.m
	u.inflight--
	m.inflight--
	u.Instructions++
	m.retired++
	m.last = max(m.last, now)
	in := &m.Prog.Code[pc]
	if u.Wants(sim.HookInstEnd) {
		c := u.HookCtx()
		*c = sim.HookCtx{Pos: sim.HookInstEnd, Now: now, Unit: u.Index, PC: pc, Start: start}
		u.InvokeHook(c)
	}
	if s := in.Signal; s.Enabled {
		if err := m.Arch.Signal(s.Sem, uint32(s.Count)); err != nil {
			m.fail(m.Arch.FaultAt(pc, u.Name, err))
			return
		}
		m.signaled(s.Sem, now)
	}
	if u.ID.Class == isa.UnitDMA && u.inflight == 0 && u.queue.Len() == 0 {
		u.acct.set(now, Idle, -1)
	}
	m.Seq.unitsProgressed(now)
}

// readyAsync is called by an asynchronous timer when the unit can start its
// next instruction.
func (u *Unit) readyAsync(now sim.Time) {
	u.waitAsync = false
	u.nextFree = now
	u.schedule(now)
}

func (u *Unit) describe() string {
	m := u.m
	p, ok := u.queue.Peek()
	if !ok {
		return ""
	}
	in := &m.Prog.Code[p.pc]
	return fmt.Sprintf("%s: pc %d (%s) at %s, waiting for s%d >= %d (s%d = %d); %d queued",
		u.Name, p.pc, in.Format(m.Prog), m.Prog.DebugAt(p.pc).Pos(), in.Wait.Sem, in.Wait.Count, in.Wait.Sem, m.Arch.Sems[in.Wait.Sem], u.queue.Len())
}
