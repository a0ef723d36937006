// Package ref executes Pulse programs architecturally: no time, only state.
// It is the oracle that the timing model is checked against, bit for bit.
//
// Execution model: the sequencer runs scalar instructions itself and dispatches
// every other instruction, with its tile base registers read at dispatch, into
// the in-order queue of its unit. Units run concurrently and order their work
// only through semaphores. The executor interleaves them in a fixed order,
// so a correctly synchronized program has one result whatever the timing.
package ref

import (
	"fmt"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
)

// DefaultMaxSteps bounds a run when Options.MaxSteps is 0.
const DefaultMaxSteps = 200_000_000

// MaxQueue bounds each unit queue of the executor. Real queues are far
// shorter (the timing model back-pressures the sequencer); this bound turns a
// sequencer that keeps dispatching to a blocked unit into a fault.
const MaxQueue = 1 << 20

// Options tune a run.
type Options struct {
	MaxSteps int64 // instructions executed by all units together; 0 means DefaultMaxSteps
}

// pending is a dispatched instruction waiting in a unit queue.
type pending struct {
	pc    int
	bases [3]int64 // base register values captured at dispatch
}

// UnitID names one unit: its class and index.
type UnitID struct {
	Class isa.Unit
	Index int
}

func (u UnitID) String() string {
	if u.Class == isa.UnitScalar || u.Class == isa.UnitVPU {
		return u.Class.String()
	}
	return fmt.Sprintf("%s%d", u.Class, u.Index)
}

// weights is the stationary operand held by one MXU.
type weights struct {
	k, n  int
	dtype isa.DType
	vals  []float64 // row-major [k][n]; nil when a partial run skipped the load
	ldw   int       // the mxu.ldw that loaded them
}

// Machine is the architectural state of one core running one program.
type Machine struct {
	Chip *config.Chip
	Prog *exe.Program
	Regs [isa.NumRegs]uint32
	Sems [isa.NumSems]uint32
	Mem  [isa.NumSpaces]*Memory // indexed by isa.Space
	PC   int
	// Halted is set when the sequencer executed halt.
	Halted bool
	// Steps counts sequencer steps (dispatches included) and unit executions;
	// the max-steps guard bounds it.
	Steps int64
	// Retired counts completed instructions, each once.
	Retired int64
	// Access, when set, is told every byte range a unit instruction reads
	// or writes, in contiguous runs, as it executes (core.Races builds a
	// race detector on it). Loading inputs is not reported.
	Access func(pc int, s isa.Space, addr, n int64, write bool)
	// wrapped[r] is 1 + the pc of the add, sub or multiply whose signed
	// 32-bit result in r wrapped (0: it did not). Such a register may
	// serve as a counter or hash, but an address formed from it would
	// silently name other bytes (issue 44), so using it as a tile or smem
	// base is a fault.
	wrapped [isa.NumRegs]int

	units  []UnitID
	queues [][]pending
	mxu    []*weights
	buf    []byte

	part   *partial // set for a partial (timing-only) run: SetPartial
	dry    bool     // the instruction being executed computes no values
	probe  bool     // a partial run is trying whether an eager instruction can compute (partial.go)
	dirty  bool     // the probe met a byte whose value was never computed
	execPC int      // the unit instruction being executed
	inExec bool     // a unit instruction is executing (for Access)
}

// New builds a machine for chip, loads prog's data segments and checks that
// every symbol and segment fits the chip's memories.
func New(chip *config.Chip, prog *exe.Program) (*Machine, error) {
	m := &Machine{Chip: chip, Prog: prog}
	for _, s := range isa.Spaces() {
		// Accumulator rows and host memory (an infeed queue past its
		// records) are faults to read before they are written.
		m.Mem[s] = NewMemory(chip.SpaceBytes(s), s == isa.ACC || s == isa.HOST)
	}
	m.units = append(m.units, UnitID{isa.UnitScalar, 0})
	for _, c := range []isa.Unit{isa.UnitDMA, isa.UnitMXU, isa.UnitVPU, isa.UnitXLU} {
		for i := 0; i < chip.Units(c); i++ {
			m.units = append(m.units, UnitID{c, i})
		}
	}
	m.queues = make([][]pending, len(m.units))
	m.mxu = make([]*weights, chip.MXU.Count)
	for i, s := range prog.Segments {
		if end := s.Addr + uint64(len(s.Data)); end > uint64(chip.SpaceBytes(s.Space)) {
			return nil, fmt.Errorf("data segment %d (%s 0x%x, %d bytes) does not fit in %s of chip %s (%d bytes)",
				i, s.Space, s.Addr, len(s.Data), s.Space, chip.Name, chip.SpaceBytes(s.Space))
		}
		m.Mem[s.Space].Write(int64(s.Addr), s.Data)
	}
	for _, s := range prog.Symbols {
		if end := s.Addr + uint64(s.Bytes()); end > uint64(chip.SpaceBytes(s.Space)) {
			return nil, fmt.Errorf("tensor %s (%s 0x%x, %d bytes) does not fit in %s of chip %s (%d bytes)",
				s.Name, s.Space, s.Addr, s.Bytes(), s.Space, chip.Name, chip.SpaceBytes(s.Space))
		}
	}
	return m, nil
}

// Units lists the machine's units in the executor's fixed service order.
func (m *Machine) Units() []UnitID { return m.units }

func (m *Machine) unitSlot(class isa.Unit, index int) int {
	for i, u := range m.units {
		if u.Class == class && u.Index == index {
			return i
		}
	}
	return -1
}

// Run executes the program to completion: the sequencer has halted and every
// queue has drained. It returns a *Fault, *Deadlock or *StepLimit on failure.
func (m *Machine) Run(opt Options) error {
	max := opt.MaxSteps
	if max <= 0 {
		max = DefaultMaxSteps
	}
	for {
		progress := false
		if !m.Halted {
			ok, err := m.stepScalar()
			if err != nil {
				return err
			}
			progress = progress || ok
		}
		for slot := 1; slot < len(m.units); slot++ {
			ok, err := m.stepUnit(slot)
			if err != nil {
				return err
			}
			progress = progress || ok
		}
		if m.Steps > max {
			return &StepLimit{Steps: m.Steps, PC: m.PC, Pos: m.Prog.DebugAt(m.PC).Pos()}
		}
		if !progress {
			if m.Halted && m.drained() {
				return nil
			}
			return m.deadlock()
		}
	}
}

func (m *Machine) drained() bool {
	for _, q := range m.queues {
		if len(q) > 0 {
			return false
		}
	}
	return true
}

// stepUnit executes the head of a unit's queue if its wait is satisfied.
func (m *Machine) stepUnit(slot int) (bool, error) {
	q := m.queues[slot]
	if len(q) == 0 {
		return false, nil
	}
	p := q[0]
	in := &m.Prog.Code[p.pc]
	if w := in.Wait; w.Enabled {
		if m.Sems[w.Sem] < uint32(w.Count) {
			return false, nil
		}
		m.Sems[w.Sem] -= uint32(w.Count)
	}
	m.queues[slot] = q[1:]
	m.Steps++
	m.Retired++
	if err := m.Exec(p.pc, p.bases); err != nil {
		return false, fault(m.Prog, p.pc, m.units[slot].String(), err)
	}
	if s := in.Signal; s.Enabled {
		if err := m.signal(s.Sem, uint32(s.Count)); err != nil {
			return false, fault(m.Prog, p.pc, m.units[slot].String(), err)
		}
	}
	return true, nil
}

func (m *Machine) signal(sem uint8, n uint32) error {
	v := uint64(m.Sems[sem]) + uint64(n)
	if v > 1<<31-1 {
		return errf("semaphore s%d overflows (%d + %d)", sem, m.Sems[sem], n)
	}
	m.Sems[sem] = uint32(v)
	return nil
}

func (m *Machine) deadlock() error {
	d := &Deadlock{Sems: append([]uint32(nil), m.Sems[:]...)}
	if !m.Halted {
		in := &m.Prog.Code[m.PC]
		why := "blocked"
		switch in.Op.Info().Code {
		case isa.CodeWait:
			why = fmt.Sprintf("waiting for s%d >= %d (s%d = %d)", in.Sem, in.Imm, in.Sem, m.Sems[in.Sem])
		case isa.CodeBarrier:
			why = "waiting at a barrier for the units to drain"
		}
		d.Units = append(d.Units, fmt.Sprintf("scalar: pc %d (%s) at %s, %s", m.PC, in.Format(m.Prog), m.Prog.DebugAt(m.PC).Pos(), why))
	}
	for slot := 1; slot < len(m.units); slot++ {
		q := m.queues[slot]
		if len(q) == 0 {
			continue
		}
		in := &m.Prog.Code[q[0].pc]
		d.Units = append(d.Units, fmt.Sprintf("%s: pc %d (%s) at %s, waiting for s%d >= %d (s%d = %d); %d queued",
			m.units[slot], q[0].pc, in.Format(m.Prog), m.Prog.DebugAt(q[0].pc).Pos(),
			in.Wait.Sem, in.Wait.Count, in.Wait.Sem, m.Sems[in.Wait.Sem], len(q)))
	}
	return d
}

// CheckUnit reports an instruction addressed to a unit the chip lacks, or
// whose tile base is a register whose offset wrapped.
func (m *Machine) CheckUnit(in *isa.Inst) error {
	info := in.Op.Info()
	n := m.Chip.Units(info.Unit)
	if int(in.Unit) >= n {
		return errf("%s unit %d does not exist on chip %s (it has %d)", info.Unit, in.Unit, m.Chip.Name, n)
	}
	for _, t := range in.Tiles {
		if err := m.checkBaseReg(t.Reg); err != nil {
			return err
		}
	}
	return nil
}

// checkBaseReg faults on an address register whose offset wrapped.
func (m *Machine) checkBaseReg(r uint8) error {
	if r == 0 || m.wrapped[r] == 0 {
		return nil
	}
	pc := m.wrapped[r] - 1
	return errf("base register r%d holds an offset that wrapped past the signed 32-bit range at pc %d (%s, %s): the address would name other bytes",
		r, pc, m.Prog.Code[pc].Format(m.Prog), m.Prog.DebugAt(pc).Pos())
}

// Bases reads an instruction's tile base addresses from the registers, as
// the sequencer does when it dispatches it. A register is a signed offset
// (docs/isa.md, "Tile operands"): a walk that steps backwards, as a
// reversed tile loop does, may take it below zero.
func (m *Machine) Bases(in *isa.Inst) [3]int64 {
	var b [3]int64
	for i, t := range in.Tiles {
		b[i] = int64(int32(m.Regs[t.Reg])) + int64(t.Off)
	}
	return b
}

// Signal adds n to a semaphore (a *Fault-ready error on overflow).
func (m *Machine) Signal(sem uint8, n uint32) error { return m.signal(sem, n) }

// FaultAt wraps an error from Exec, Signal or CheckUnit as a *Fault naming
// the instruction at pc and the unit that ran it.
func (m *Machine) FaultAt(pc int, unit string, err error) error { return fault(m.Prog, pc, unit, err) }

// dispatch queues a unit instruction, capturing its tile base registers.
func (m *Machine) dispatch(pc int, in *isa.Inst) error {
	if err := m.CheckUnit(in); err != nil {
		return err
	}
	info := in.Op.Info()
	p := pending{pc: pc, bases: m.Bases(in)}
	slot := m.unitSlot(info.Unit, int(in.Unit))
	if len(m.queues[slot]) >= MaxQueue {
		head := m.queues[slot][0].pc
		return errf("%s has %d queued instructions: it is blocked at pc %d (%s) while the sequencer keeps dispatching",
			m.units[slot], MaxQueue, head, m.Prog.Code[head].Format(m.Prog))
	}
	m.queues[slot] = append(m.queues[slot], p)
	return nil
}
