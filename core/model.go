// Package core is the cycle-level model of a Pulse core: the sequencer, the
// unit queues and semaphores, and the units' timing, on the sim engine. It
// executes the same programs as ref/ and computes values through ref's
// semantics functions, so a correctly synchronized program ends in the same
// state on both (core's tests check it on the conformance suite).
package core

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/dma"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/memory"
	"github.com/pulse-sim/pulse/ref"
	"github.com/pulse-sim/pulse/sim"
	"github.com/pulse-sim/pulse/systolic"
)

// Options tune a timed run.
type Options struct {
	// TimingOnly computes only the values that steer control flow, and
	// checks and times everything (slice.go). Use Simulate, which finds
	// the slice; a model built with New computes only what touches scalar
	// memory, and its Run stops with a *NeedValues when that is not enough.
	TimingOnly bool
	// Seed marks, by program counter, unit instructions a timing-only run
	// computes from its first run: a guess at the slice known before
	// running (the compiler's, from the HLO). The search still adds what
	// the guess misses, and a guess that reads an input without values is
	// dropped, so the run takes the same path with or without it, in
	// fewer runs.
	Seed []bool
	// MaxCycles stops the run after this many core cycles: 0 means
	// DefaultMaxCycles, a negative number no limit.
	MaxCycles int64
	// WatchdogCycles overrides the default WatchdogCycles (tests).
	WatchdogCycles int64
	// Observers are attached to the model before it runs (traces/ has
	// the timeline and the profile). With none, the units build no hook
	// contexts at all.
	Observers []Observer
	// Engine is the event engine the model schedules on; nil gives the
	// model its own. The devices of a multi-device run share one
	// (RunDevices), so that their events interleave in time order.
	Engine *sim.Engine
	// Link is the chip's interconnect port, nil on a single device: the
	// program rings it by signalling isa.SemLink (link.go).
	Link Link
	// Device is this model's global device id in a multi-device run.
	Device int
	// Core is this model's core of a chip of several (config.Chip.Cores;
	// cores.go): its units are named core<k>.<unit> beyond core 0, and it
	// uses HBM, the chip's shared memory model, when that is set.
	Core int
	HBM  memory.HBM
}

// Observer watches a run: Attach adds its hooks to the sequencer, the units
// and the memory models it wants to see.
type Observer interface {
	Attach(m *Model)
}

// RestartableObserver is an Observer that may watch runs that are cut
// short and begun again (a progress report): a timing-only run whose
// first try needs no more values is then the final run, and is not
// repeated for the observers (a GPT-3 tensor-parallel layer's 8 devices
// took twice as long).
type RestartableObserver interface {
	Observer
	Restartable()
}

// Restartable reports whether every observer may watch a run begun again.
func Restartable(obs []Observer) bool {
	for _, o := range obs {
		if _, ok := o.(RestartableObserver); !ok {
			return false
		}
	}
	return true
}

// CoreObserver is an Observer that also watches the other cores of a chip
// of several (config cores): Attach sees core 0's model, AttachCore each
// other core's, in order. An Observer without it sees core 0 only.
type CoreObserver interface {
	Observer
	AttachCore(m *Model, core int)
}

type waker interface{ wake(now sim.Time) }

// Model is one core running one program.
type Model struct {
	Chip   *config.Chip
	Prog   *exe.Program
	Arch   *ref.Machine
	Eng    *sim.Engine // shared by the devices of a multi-device run (Options.Engine)
	Clock  sim.Clock   // core clock: sequencer and MXUs
	VClock sim.Clock   // vector and cross-lane units
	HBM    memory.HBM
	// HostIn and HostOut are the host link's directions (reads of host
	// memory, writes to it); nil when the chip has no host link.
	HostIn, HostOut memory.HBM
	Seq             *Sequencer
	Units           []*Unit
	Arrays          []*systolic.Array
	DMAs            []*dma.Engine
	// Cores are the models of every core of a multi-core chip, core 0
	// first, on each of them (nil on a chip of one core): Simulate returns
	// core 0's, and reports read the others through it.
	Cores []*Model
	// SRAMBanks and ACCBanks time the vector, cross-lane and DMA accesses to
	// on-chip memory (the MXUs' operand paths are dedicated).
	SRAMBanks *memory.Banks
	ACCBanks  *memory.Banks

	opt      Options
	err      error
	waiters  [isa.NumSems][]waker
	semHist  [isa.NumSems]semHistory // each semaphore's recent values
	inflight int
	retired  int64
	last     sim.Time
	flops    int64
	byClass  map[isa.Unit][]*Unit
	slice    *slice
	actions  []Actions // by pc (actions.go)
	link     struct {  // the collective in progress (link.go)
		pc    int
		start sim.Time
	}

	// Slice says what a timing-only run computed (nil for a value run).
	Slice *SliceInfo
}

// New builds the model of chip running prog, with its initial data loaded.
func New(chip *config.Chip, prog *exe.Program, opt Options) (*Model, error) {
	arch, err := ref.New(chip, prog)
	if err != nil {
		return nil, err
	}
	m := &Model{Chip: chip, Prog: prog, Arch: arch, Eng: opt.Engine, opt: opt, byClass: map[isa.Unit][]*Unit{}, actions: make([]Actions, len(prog.Code))}
	if m.Eng == nil {
		m.Eng = &sim.Engine{}
	}
	if opt.TimingOnly {
		compute := make([]bool, len(prog.Code))
		for pc := range prog.Code {
			compute[pc] = ref.TouchesSMEM(prog, &prog.Code[pc])
		}
		arch.SetPartial(compute, ref.TrackStale)
	}
	m.Clock = sim.NewClockMHz("core", float64(chip.ClockMHz))
	m.VClock = m.Clock
	if chip.VPU.ClockMHz > 0 {
		m.VClock = sim.NewClockMHz("vector", float64(chip.VPU.ClockMHz))
	}
	if opt.HBM != nil {
		m.HBM = opt.HBM
	} else {
		h, err := NewHBM(m.Eng, chip)
		if err != nil {
			return nil, err
		}
		m.HBM = h
	}
	if chip.Host.LinkGBps > 0 {
		// The host link: PCIe's two directions are independent buses.
		m.HostIn = memory.NewIdeal(m.Eng, chip.Host.LinkGBps, chip.Host.LatencyNS)
		m.HostOut = memory.NewIdeal(m.Eng, chip.Host.LinkGBps, chip.Host.LatencyNS)
	}
	m.Seq = &Sequencer{m: m}
	m.Seq.acct.pc = -1
	m.Seq.acct.observe(&m.Seq.Hookable, -1)
	add := func(id ref.UnitID, clk sim.Clock, t timer) {
		name := id.String()
		if opt.Core > 0 {
			name = fmt.Sprintf("core%d.%s", opt.Core, name)
		}
		u := &Unit{ID: id, Name: name, Index: len(m.Units), m: m, clock: clk, timer: t,
			queue: sim.NewPort[pending](m.Eng, chip.QueueDepth), lastPC: -1}
		u.acct.pc = -1
		u.acct.observe(&u.Hookable, u.Index)
		m.Units = append(m.Units, u)
		m.byClass[id.Class] = append(m.byClass[id.Class], u)
	}
	m.SRAMBanks = memory.NewBanks(chip.SRAM.Banks, chip.SRAM.BankWidthBytes, m.Clock.Period)
	m.ACCBanks = memory.NewBanks(chip.ACC.Banks, chip.ACC.BankWidthBytes, m.Clock.Period)
	m.SRAMBanks.Now, m.ACCBanks.Now = m.Eng.Now, m.Eng.Now
	for i := 0; i < chip.DMA.Engines; i++ {
		d := dma.New(dma.Config{BurstBytes: chip.DMA.BurstBytes, MaxOutstanding: chip.DMA.MaxOutstanding,
			Setup: sim.Time(chip.DMA.SetupNS*1000 + 0.5), Prefetch: chip.DMA.Prefetch, EngineGBps: chip.DMA.EngineGBps, Banks: m.banks, HostIn: m.HostIn, HostOut: m.HostOut}, m.Eng, m.HBM)
		m.DMAs = append(m.DMAs, d)
		add(ref.UnitID{Class: isa.UnitDMA, Index: i}, m.Clock, &dmaTimer{d})
	}
	for i := 0; i < chip.MXU.Count; i++ {
		a := systolic.New(systolic.Config{Rows: chip.MXU.Rows, Cols: chip.MXU.Cols, Dataflow: chip.MXU.Dataflow,
			LdwCyclesPerRow: chip.MXU.LdwCyclesPerRow, MinStreamCycles: chip.MXU.MinStreamCycles, FoldOverlap: chip.MXU.FoldOverlap})
		m.Arrays = append(m.Arrays, a)
		add(ref.UnitID{Class: isa.UnitMXU, Index: i}, m.Clock, &mxuTimer{a})
	}
	add(ref.UnitID{Class: isa.UnitVPU}, m.VClock, &vpuTimer{lanes: int64(chip.VPU.Lanes * chip.VPU.Sublanes),
		latency: int64(chip.VPU.Latency), trans: int64(chip.VPU.TranscendentalCost), div: int64(chip.VPU.DivideCost),
		f64: int64(chip.VPU.F64Cost), f16: int64(chip.VPU.F16ConvertCost)})
	for i := 0; i < chip.XLU.Count; i++ {
		add(ref.UnitID{Class: isa.UnitXLU, Index: i}, m.VClock, &vpuTimer{lanes: int64(chip.VPU.Lanes),
			latency: int64(chip.XLU.Latency), trans: 1, div: 1, f64: 2})
	}
	for _, o := range opt.Observers {
		o.Attach(m)
	}
	return m, nil
}

// banks returns the bank model of an on-chip space (nil for scalar memory).
func (m *Model) banks(s isa.Space) *memory.Banks {
	switch s {
	case isa.SRAM:
		return m.SRAMBanks
	case isa.ACC:
		return m.ACCBanks
	}
	return nil
}

func (m *Model) unitFor(in *isa.Inst) *Unit {
	return m.byClass[in.Op.Info().Unit][in.Unit]
}

func (m *Model) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

func (m *Model) waitSem(sem uint8, w waker) { m.waiters[sem] = append(m.waiters[sem], w) }

func (m *Model) signaled(sem uint8, now sim.Time) {
	m.semHist[sem].record(now, m.Arch.Sems[sem])
	ws := m.waiters[sem]
	m.waiters[sem] = nil
	for _, w := range ws {
		w.wake(now)
	}
}

func (m *Model) drained() bool {
	if m.inflight > 0 {
		return false
	}
	for _, u := range m.Units {
		if u.queue.Len() > 0 {
			return false
		}
	}
	return true
}

// DefaultMaxCycles bounds a run that sets no limit: 10 s of a 1 GHz chip,
// a dozen times MobileNet-v2's training step on tpuv4core. A program that
// runs longer needs --max-cycles (Options.MaxCycles); one that loops
// forever on the sequencer alone stops at once (spin.go).
const DefaultMaxCycles = 10_000_000_000

// MaxCyclesError reports a run stopped by Options.MaxCycles.
type MaxCyclesError struct {
	Cycles  int64
	PC      int
	Pos     string
	Default bool // the limit was DefaultMaxCycles
}

func (e *MaxCyclesError) Error() string {
	if e.Default {
		return fmt.Sprintf("stopped at the default limit of %d cycles (raise it with --max-cycles N); the sequencer was at pc %d (%s)", e.Cycles, e.PC, e.Pos)
	}
	return fmt.Sprintf("stopped at the --max-cycles limit of %d cycles; the sequencer was at pc %d (%s)", e.Cycles, e.PC, e.Pos)
}

// Run simulates the program to completion. It returns a *ref.Fault,
// *ref.Deadlock or *MaxCyclesError on failure.
func (m *Model) Run() error {
	m.start()
	limit, maxCycles := sim.Time(-1), m.opt.MaxCycles
	if maxCycles == 0 {
		maxCycles = DefaultMaxCycles
	}
	if maxCycles > 0 {
		limit = m.Clock.Time(maxCycles)
	}
	// The watchdog: the run goes in stretches of WatchdogCycles; one in
	// which no instruction retired and the sequencer did not move ends it.
	watchdog := int64(WatchdogCycles)
	if m.opt.WatchdogCycles > 0 {
		watchdog = m.opt.WatchdogCycles
	}
	stretch := m.Clock.Time(watchdog)
	lastRetired, lastPC := int64(-1), -1
	for m.err == nil && m.Eng.Pending() > 0 {
		until := m.Eng.Now() + stretch
		if limit >= 0 && until >= limit {
			if m.Eng.Run(limit) {
				return &MaxCyclesError{maxCycles, m.Arch.PC, m.Prog.DebugAt(m.Arch.PC).Pos(), m.opt.MaxCycles == 0}
			}
			continue
		}
		if !m.Eng.Run(until) {
			continue // drained
		}
		if m.retired == lastRetired && m.Arch.PC == lastPC {
			return m.stalled(m.Clock.Cycles(m.Eng.Now()), watchdog)
		}
		lastRetired, lastPC = m.retired, m.Arch.PC
	}
	if m.err != nil {
		return m.err
	}
	if !m.Seq.halted || !m.drained() {
		return m.deadlock()
	}
	m.finish()
	return nil
}

// start puts the sequencer's first cycle on the engine.
func (m *Model) start() {
	for _, u := range m.Units {
		u.queue.NotifyArrival(u)
	}
	m.Seq.at(m.Eng.Now())
}

// finish closes the accounting of a completed run.
func (m *Model) finish() {
	end := m.End()
	m.Seq.acct.set(end, m.Seq.acct.state, m.Seq.acct.pc)
	for _, u := range m.Units {
		u.acct.set(end, u.acct.state, u.acct.pc)
	}
}

// WatchdogCycles is how long a run may go with no instruction completing
// and the sequencer not moving before it is stopped as stuck (a memory
// model that never answers, for instance): far longer than any one
// instruction takes.
const WatchdogCycles = 1 << 28

// StuckError stops a run in which time passed but nothing progressed.
type StuckError struct {
	Cycles, Idle int64
	Units        []string // each unit's state
}

func (e *StuckError) Error() string {
	return fmt.Sprintf("no progress: at cycle %d, %d cycles had passed without any instruction completing (a memory or unit that never answers)\n  %s",
		e.Cycles, e.Idle, strings.Join(e.Units, "\n  "))
}

func (m *Model) stalled(now, idle int64) error {
	e := &StuckError{Cycles: now, Idle: idle}
	if !m.Seq.halted {
		pc := m.Arch.PC
		e.Units = append(e.Units, fmt.Sprintf("scalar: pc %d (%s) at %s", pc, m.Prog.Code[pc].Format(m.Prog), m.Prog.DebugAt(pc).Pos()))
	}
	for _, u := range m.Units {
		state := u.acct.state.String()
		if u.inflight > 0 {
			state = fmt.Sprintf("%d instructions in flight (last started: pc %d)", u.inflight, u.lastPC)
		}
		e.Units = append(e.Units, fmt.Sprintf("%s: %s; %d queued", u.Name, state, u.queue.Len()))
	}
	return e
}

func (m *Model) deadlock() error {
	d := &ref.Deadlock{Sems: append([]uint32(nil), m.Arch.Sems[:]...)}
	if !m.Seq.halted {
		pc := m.Arch.PC
		d.Units = append(d.Units, fmt.Sprintf("scalar: pc %d (%s) at %s, %s", pc, m.Prog.Code[pc].Format(m.Prog), m.Prog.DebugAt(pc).Pos(), m.Seq.blocked))
	}
	for _, u := range m.Units {
		if s := u.describe(); s != "" {
			d.Units = append(d.Units, s)
		}
	}
	return d
}

// End is the time the last instruction completed (on any core of the
// chip).
func (m *Model) End() sim.Time {
	end := m.last
	for _, c := range m.Cores {
		end = max(end, c.last)
	}
	return end
}

// Cycles is the run's length in core cycles.
func (m *Model) Cycles() int64 { return m.Clock.CyclesCeil(m.End()) }

// Retired is the number of instructions completed.
func (m *Model) Retired() int64 { return m.retired }

// FLOPs counts floating-point (and integer) operations: 2 per MAC, 1 per
// element of vector arithmetic.
func (m *Model) FLOPs() int64 { return m.flops }

// DMABytesPerSecond is what the DMA engines of every core can move together: engines x
// the per-engine cap, or 0 when the engines have no cap of their own.
func (m *Model) DMABytesPerSecond() float64 {
	return float64(m.Chip.NumCores()*m.Chip.DMA.Engines) * m.Chip.DMA.EngineGBps * 1e9
}

// AttainableBytesPerSecond is the memory roof a kernel can reach: HBM's
// peak, or less when the DMA engines that carry every HBM byte cannot
// move that much (teach16: one 16 GB/s engine before a 32 GB/s HBM).
func (m *Model) AttainableBytesPerSecond() float64 {
	peak := m.HBM.PeakBytesPerSecond()
	if d := m.DMABytesPerSecond(); d > 0 && d < peak {
		return d
	}
	return peak
}

// NewHBM builds the chip's HBM timing model (hbm.model: ideal, streaming
// or banked) on engine e.
func NewHBM(e *sim.Engine, chip *config.Chip) (memory.HBM, error) {
	h := chip.HBM
	if h.Model == "ideal" || h.Model == "" {
		return memory.NewIdeal(e, h.BandwidthGBps, h.LatencyNS), nil
	}
	bc, err := BankedConfig(chip)
	if err != nil {
		return nil, err
	}
	if h.Model == "streaming" {
		return memory.NewStreaming(e, h.BandwidthGBps, h.LatencyNS, memory.StreamingFrom(bc)), nil
	}
	return memory.NewBanked(e, bc), nil
}

// BankedConfig is the bank-level DRAM model's configuration for a chip.
func BankedConfig(chip *config.Chip) (memory.BankedConfig, error) {
	d, t, ctl := chip.HBM.Device, chip.HBM.Timing, chip.HBM.Controller
	bc := memory.BankedConfig{Channels: d.Channels, BankGroups: d.BankGroups,
		BanksPerGroup: d.BanksPerGroup, Rows: d.Rows, Columns: d.Columns, AccessBytes: d.AccessBytes,
		TCK: sim.Time(d.TCKps), CL: t.CL, CWL: t.CWL, RCD: t.RCD, RP: t.RP, RAS: t.RAS, CCDS: t.CCDS, CCDL: t.CCDL,
		RRDS: t.RRDS, RRDL: t.RRDL, FAW: t.FAW, WTRS: t.WTRS, WTRL: t.WTRL, RTP: t.RTP, WR: t.WR, RFC: t.RFC,
		REFI: t.REFI, BL: t.BL, Window: d.Window,
		ReadQueue: ctl.ReadQueue, WriteQueue: ctl.WriteQueue, BankQueue: ctl.BankQueue, RowHitCap: ctl.RowHitCap}
	if ctl.AddressMapping != "" {
		fields, err := config.ParseAddressMapping(ctl.AddressMapping, d)
		if err != nil {
			return bc, fmt.Errorf("hbm.controller.address_mapping: %v", err)
		}
		for _, f := range fields {
			bc.Mapping = append(bc.Mapping, memory.Field{Name: f.Name, Bits: f.Bits})
		}
	}
	return bc, nil
}
