package core

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/ref"
	"github.com/pulse-sim/pulse/sim"
)

// A chip of several TensorCores.
//
// The cores of a chip (config.Chip.Cores) are models on one engine, as the
// devices of a multi-device run are, that share the chip's HBM: one timing
// model, so that their streams contend for its bandwidth, and one store, so
// that what a core writes the others read. Everything else is each core's:
// sequencer, units, SRAM, accumulators, scalar memory, semaphores. Every
// core runs the same program; the runtime writes the core's number at
// scalar-memory byte isa.CoreWord before the run, and the program's
// kernels branch on it to their share of the work (lowering). At the end of
// a kernel the cores meet: each stores isa.CoreSyncID at isa.LinkWord and
// rings isa.SemLink, and the chip's CoreSync signals isa.SemLinkDone on all
// of them core_sync_ns after the last one rang.

// CoreSync is the barrier of a chip's cores: their Link. On a chip that
// is one device of several, it is also the way out to the chip's
// interconnect port (outer): a collective kernel runs on core 0 alone
// (lowering), whose doorbell for it CoreSync passes on, while the other
// cores wait at the kernel's end for core 0 to arrive.
type CoreSync struct {
	cores   []*Model
	rung    []bool
	waiting int
	last    sim.Time
	latency sim.Time
	outer   Link
	// Syncs counts the barriers the cores met at.
	Syncs int64
}

// NewCoreSync is the barrier of chip's cores, passing core 0's
// collectives on to outer (nil on a chip that is the only device). Attach
// gives it the cores once they are made.
func NewCoreSync(chip *config.Chip, outer Link) *CoreSync {
	n := chip.NumCores()
	return &CoreSync{rung: make([]bool, n), latency: sim.Time(chip.CoreSyncNS*1000 + 0.5), outer: outer}
}

// Attach makes models, core 0 first, the cores the barrier joins, each
// knowing the others (Model.Cores).
func (s *CoreSync) Attach(models []*Model) error {
	if len(models) != len(s.rung) {
		return fmt.Errorf("internal error: %d cores attached to the barrier of a chip of %d", len(models), len(s.rung))
	}
	s.cores = models
	for _, m := range models {
		m.Cores = models
	}
	return nil
}

// Doorbell implements Link.
func (s *CoreSync) Doorbell(m *Model, now sim.Time) error {
	var b [4]byte
	m.Arch.Mem[isa.SMEM].Read(isa.LinkWord, b[:])
	k := m.opt.Core
	if id := int32(binary.LittleEndian.Uint32(b[:])); id != isa.CoreSyncID {
		switch {
		case s.outer == nil:
			return fmt.Errorf("the link was rung for collective %d on a chip that is the only device", id)
		case k != 0:
			return fmt.Errorf("internal error: core %d rang the interconnect for collective %d; collectives run on core 0", k, id)
		}
		return s.outer.Doorbell(m, now)
	}
	if s.rung[k] {
		return fmt.Errorf("internal error: core %d rang the core barrier twice", k)
	}
	s.rung[k] = true
	s.waiting++
	s.last = max(s.last, now)
	if s.waiting < len(s.cores) {
		return nil
	}
	at := s.last + s.latency
	for i, c := range s.cores {
		s.rung[i] = false
		c.LinkDone(at)
	}
	s.waiting, s.last = 0, 0
	s.Syncs++
	return nil
}

// NewCore makes core k (> 0) of the chip whose core 0 is m0, on m0's
// engine: it shares m0's HBM (the timing model and the bytes), meets the
// other cores at sync, is watched by those of opt's observers that watch
// cores, and finds its number at scalar-memory byte isa.CoreWord. setup,
// when given, prepares its model before the HBM is shared (a timing-only
// run's partial computing, whose HBM shadow is then core 0's).
func NewCore(chip *config.Chip, prog *exe.Program, m0 *Model, opt Options, k int, sync *CoreSync, setup func(*Model)) (*Model, error) {
	o := opt
	o.Core, o.Link, o.Observers, o.HBM = k, sync, nil, m0.HBM
	m, err := New(chip, prog, o)
	if err != nil {
		return nil, err
	}
	for _, ob := range opt.Observers {
		if co, ok := ob.(CoreObserver); ok {
			co.AttachCore(m, k)
		}
	}
	if setup != nil {
		setup(m)
	}
	m.Arch.ShareHBM(m0.Arch)
	var id [4]byte
	binary.LittleEndian.PutUint32(id[:], uint32(k))
	m.Arch.Mem[isa.SMEM].Write(isa.CoreWord, id[:])
	return m, nil
}

// runCores builds the models of every core of chip on one engine, sharing
// core 0's HBM, lets load fill core 0's memories (the HBM they share) and
// runs them all; it returns core 0's model, whose Cores lists them.
func runCores(chip *config.Chip, prog *exe.Program, opt Options, load func(*ref.Machine) error, s *slice) (*Model, error) {
	n := chip.NumCores()
	if opt.Link != nil {
		return nil, fmt.Errorf("internal error: a chip of %d cores given a link of its own (a multi-device run makes its cores itself)", n)
	}
	if opt.Engine == nil {
		opt.Engine = &sim.Engine{}
	}
	sync := NewCoreSync(chip, nil)
	o := opt
	o.Link = sync
	m0, err := New(chip, prog, o)
	if err != nil {
		return nil, err
	}
	partial := func(m *Model) {
		if s != nil {
			s.set(m.Arch)
			m.slice = s
		}
	}
	partial(m0)
	if load != nil {
		if err := load(m0.Arch); err != nil {
			return nil, err
		}
	}
	models := []*Model{m0}
	for k := 1; k < n; k++ {
		m, err := NewCore(chip, prog, m0, opt, k, sync, partial)
		if err != nil {
			return nil, err
		}
		models = append(models, m)
	}
	if err := sync.Attach(models); err != nil {
		return nil, err
	}
	err = RunDevices(models)
	var de *DeviceError
	if errors.As(err, &de) {
		var nv *NeedValues
		if errors.As(de.Err, &nv) {
			err = nv // the slice search reads it as one core's run
		} else {
			err = fmt.Errorf("core %d: %w", de.Device, de.Err)
		}
	}
	return models[0], err
}
