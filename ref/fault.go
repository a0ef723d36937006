package ref

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/exe"
)

// Fault is a precise architectural fault: the instruction that caused it, where
// it came from, and what went wrong.
type Fault struct {
	PC   int
	Pos  string // source position from the debug map
	Inst string // the instruction as text
	Unit string // the unit that executed it
	Addr int64  // the faulting address, or -1
	Msg  string
}

func (f *Fault) Error() string {
	var b strings.Builder
	if f.Pos != "" && f.Pos != "?" {
		b.WriteString(f.Pos + ": ")
	}
	fmt.Fprintf(&b, "fault at pc %d on %s (%s): %s", f.PC, f.Unit, f.Inst, f.Msg)
	if f.Addr >= 0 {
		fmt.Fprintf(&b, " [address 0x%x]", f.Addr)
	}
	return b.String()
}

// Deadlock reports a program whose waits can never be satisfied.
type Deadlock struct {
	Units []string // one line per unit with pending work
	Sems  []uint32
}

func (d *Deadlock) Error() string {
	var b strings.Builder
	b.WriteString("deadlock: no unit can make progress\n")
	for _, u := range d.Units {
		b.WriteString("  " + u + "\n")
	}
	b.WriteString("  semaphores:")
	any := false
	for i, v := range d.Sems {
		if v != 0 {
			fmt.Fprintf(&b, " s%d=%d", i, v)
			any = true
		}
	}
	if !any {
		b.WriteString(" all zero")
	}
	return b.String()
}

// StepLimit reports a run stopped by the max-steps guard.
type StepLimit struct {
	Steps int64
	PC    int
	Pos   string
}

func (s *StepLimit) Error() string {
	return fmt.Sprintf("stopped after %d steps (max-steps guard); the sequencer was at pc %d (%s)", s.Steps, s.PC, s.Pos)
}

type faultAt struct {
	addr int64
	msg  string
}

func (f *faultAt) Error() string { return f.msg }

func errf(format string, a ...any) error { return &faultAt{-1, fmt.Sprintf(format, a...)} }

func addrErr(addr int64, format string, a ...any) error {
	return &faultAt{addr, fmt.Sprintf(format, a...)}
}

// fault turns an error from a semantics function into a Fault for pc.
func fault(p *exe.Program, pc int, unit string, err error) error {
	if IsPartialStop(err) { // not a fault: the run asks for more values
		return err
	}
	f := &Fault{PC: pc, Unit: unit, Addr: -1, Msg: err.Error()}
	if fa, ok := err.(*faultAt); ok {
		f.Addr = fa.addr
	}
	if pc >= 0 && pc < len(p.Code) {
		f.Inst = p.Code[pc].Format(p)
		f.Pos = p.DebugAt(pc).Pos()
	}
	return f
}
