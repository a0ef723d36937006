package core

import (
	"fmt"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/ref"
)

// A sequencer that loops on its own (no unit work queued or in flight, no
// store to scalar memory) is a deterministic machine whose whole state is
// its registers, semaphores and pc: if that state ever repeats, the loop is
// endless. spinDetector finds a repeat with Brent's algorithm, comparing
// the state at each backward branch with one saved at doubling intervals,
// so it needs no memory however long the loop, and stops `top: jmp top` at
// its second turn instead of at the cycle limit.
type spinDetector struct {
	valid      bool
	saved      spinState
	power, lam int64
}

type spinState struct {
	pc   int
	regs [isa.NumRegs]uint32
	sems [isa.NumSems]uint32
}

// reset forgets the saved state: something outside the registers changed.
func (d *spinDetector) reset() { d.valid = false }

// repeats reports whether the state at a backward branch to pc equals
// the saved one.
func (d *spinDetector) repeats(a *ref.Machine, pc int) bool {
	st := spinState{pc: pc, regs: a.Regs, sems: a.Sems}
	if !d.valid {
		d.valid, d.saved, d.power, d.lam = true, st, 1, 0
		return false
	}
	if st == d.saved {
		return true
	}
	if d.lam++; d.lam == d.power {
		d.saved, d.power, d.lam = st, d.power*2, 0
	}
	return false
}

// EndlessLoopError stops a run whose sequencer loops forever on its own.
type EndlessLoopError struct {
	PC     int
	Pos    string
	Cycles int64
}

func (e *EndlessLoopError) Error() string {
	return fmt.Sprintf("%s: endless loop: after %d cycles the sequencer came back to pc %d with the same registers and semaphores, no unit work and no store to scalar memory, so it can never halt", e.Pos, e.Cycles, e.PC)
}
