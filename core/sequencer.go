package core

import (
	"fmt"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/sim"
)

// Sequencer fetches instructions in order, up to issue_width per cycle:
// scalar instructions execute here (a taken branch costs branch_penalty
// more cycles, a load smem_latency), others go into their unit's queue with
// their base registers read now. A full queue stalls it (back-pressure).
type Sequencer struct {
	sim.Hookable
	m          *Model
	tickQueued bool
	halted     bool
	inBarrier  bool
	haltedAt   sim.Time
	acct       Accounting
	blocked    string
	spin       spinDetector
}

// Accounting is the sequencer's time by state.
func (s *Sequencer) Accounting() *Accounting { return &s.acct }

// Handle runs a cycle of the sequencer.
func (s *Sequencer) Handle(now sim.Time) {
	s.tickQueued = false
	if e := s.m.Clock.NextEdge(now); e != now {
		s.at(e)
		return
	}
	s.tick(now)
}

func (s *Sequencer) at(t sim.Time) {
	if !s.tickQueued && !s.halted {
		s.tickQueued = true
		s.m.Eng.Schedule(t, s)
	}
}

func (s *Sequencer) wake(now sim.Time) { s.at(s.m.Clock.NextEdge(now)) }

// unitsProgressed is called when an instruction completes: a barrier may pass.
func (s *Sequencer) unitsProgressed(now sim.Time) {
	if s.inBarrier && s.m.drained() {
		s.inBarrier = false
		s.wake(now)
	}
}

func (s *Sequencer) tick(now sim.Time) {
	m := s.m
	a := m.Arch
	cyc := m.Clock.Period
	first := a.PC // the cycle's time is attributed to its first instruction
	for i := 0; i < m.Chip.Scalar.IssueWidth; i++ {
		pc := a.PC
		if pc < 0 || pc >= len(m.Prog.Code) {
			m.fail(a.RunOffEnd())
			return
		}
		in := &m.Prog.Code[pc]
		info := in.Op.Info()
		switch {
		case info.Unit != isa.UnitScalar:
			if err := a.CheckUnit(in); err != nil {
				m.fail(a.FaultAt(pc, "scalar", err))
				return
			}
			u := m.unitFor(in)
			if u.queue.Full() {
				s.acct.set(now, Structural, pc)
				s.blocked = fmt.Sprintf("waiting for space in the %s queue", u.Name)
				u.queue.NotifySpace(s)
				return
			}
			u.queue.Send(pending{pc: pc, bases: a.Bases(in), at: now})
			m.actions[pc].ScalarInstructions++
			s.spin.reset()
			if s.Wants(sim.HookDispatch) {
				c := s.HookCtx()
				*c = sim.HookCtx{Pos: sim.HookDispatch, Now: now, Unit: u.Index, PC: pc, Depth: u.queue.Len()}
				s.InvokeHook(c)
			}
			a.PC++
			continue
		case info.Code == isa.CodeWait:
			if a.Sems[in.Sem] < uint32(in.Imm) {
				s.acct.set(now, SemWait, pc)
				s.blocked = fmt.Sprintf("waiting for s%d >= %d (s%d = %d)", in.Sem, in.Imm, in.Sem, a.Sems[in.Sem])
				m.waitSem(in.Sem, s)
				return
			}
			a.Sems[in.Sem] -= uint32(in.Imm)
			m.semHist[in.Sem].record(now, a.Sems[in.Sem])
			m.actions[pc].ScalarInstructions++
			a.PC++
		case info.Code == isa.CodeBarrier:
			if !m.drained() {
				s.acct.set(now, Structural, pc)
				s.blocked = "waiting at a barrier for the units to drain"
				s.inBarrier = true
				return
			}
			a.PC++
		case info.Code == isa.CodeHalt:
			s.acct.set(now, Idle, -1)
			s.halted = true
			s.haltedAt = now + cyc
			a.Halted = true
			m.actions[pc].ScalarInstructions++
			a.PC++
			m.retired++
			m.last = max(m.last, s.haltedAt)
			return
		default:
			next, err := a.ExecScalar(pc)
			if err != nil {
				m.fail(err)
				return
			}
			a.PC = next
			m.actions[pc].ScalarInstructions++
			m.retired++
			if info.Code == isa.CodeSignal || info.Code == isa.CodeSemSet {
				// Units (and the sequencer) waiting on it may go on.
				m.signaled(in.Sem, now)
				if l := m.opt.Link; l != nil && info.Code == isa.CodeSignal && in.Sem == isa.SemLink {
					m.linkStart(pc, now)
					if err := l.Doorbell(m, now); err != nil {
						m.fail(err)
						return
					}
				}
			}
			s.acct.set(now, Busy, first)
			if info.Code == isa.CodeSt {
				s.spin.reset()
			} else if next <= pc && m.drained() && s.spin.repeats(a, next) {
				m.fail(&EndlessLoopError{PC: next, Pos: m.Prog.DebugAt(next).Pos(), Cycles: m.Clock.Cycles(now)})
				return
			}
			switch {
			case next != pc+1:
				s.at(now + cyc*sim.Time(1+m.Chip.Scalar.BranchPenalty))
				return
			case info.Format == isa.FmtLoad:
				s.at(now + cyc*sim.Time(m.Chip.Scalar.SMEMLatency))
				return
			}
			continue
		}
		m.retired++
	}
	s.acct.set(now, Busy, first)
	s.at(now + cyc)
}
