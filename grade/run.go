package grade

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/labs"
	"github.com/pulse-sim/pulse/ref"
)

// run is one simulation of a kernel on fixed inputs.
type run struct {
	outs   map[string][]float64
	cycles int64
	model  *core.Model
	err    error // the kernel's failure: fault, deadlock, limit
	races  *core.Races
}

// unwritten is what the grader puts in every output element before a run,
// so that an element the kernel never stores shows as such: NaN for float
// outputs, and for integer ones a value no lab's answer takes.
func unwritten(d isa.DType) float64 {
	if d.IsFloat() {
		return math.NaN()
	}
	return -7
}

// simulate runs prog on chip c with the inputs placed in its tensors and
// the outputs filled with unwritten values, stopping at maxCycles.
func simulate(c *config.Chip, prog *exe.Program, l *labs.Lab, ins map[string][]float64, maxCycles int64) run {
	load := func(a *ref.Machine) error {
		for _, t := range l.Inputs {
			if err := a.WriteTensor(t.Name, ins[t.Name]); err != nil {
				return err
			}
		}
		for _, t := range l.Outputs {
			d, _ := isa.ParseDType(t.DType)
			v := make([]float64, t.Elems())
			for i := range v {
				v[i] = unwritten(d)
			}
			if err := a.WriteTensor(t.Name, v); err != nil {
				return err
			}
		}
		return nil
	}
	races := &core.Races{}
	m, err := core.Simulate(c, prog, core.Options{MaxCycles: maxCycles, Observers: []core.Observer{races}}, load)
	r := run{model: m, err: err, races: races}
	if m != nil {
		r.cycles = m.Cycles()
	}
	if err != nil {
		return r
	}
	r.outs = map[string][]float64{}
	for _, t := range l.Outputs {
		v, _, err := m.Arch.ReadTensor(t.Name)
		if err != nil {
			r.err = err
			return r
		}
		r.outs[t.Name] = v
	}
	return r
}

// failure explains a run that did not finish: what happened and its
// likely cause, keyed for the handout's sections.
func failure(err error) (cause, msg string) {
	var (
		f  *ref.Fault
		d  *ref.Deadlock
		mc *core.MaxCyclesError
		el *core.EndlessLoopError
		st *core.StuckError
	)
	switch {
	case errors.As(err, &mc):
		return "limit", fmt.Sprintf("the kernel ran past the lab's limit of %d cycles and was stopped (the sequencer was at %s). Likely cause: a loop that never ends, or a loop count far too large.", mc.Cycles, mc.Pos)
	case errors.As(err, &el):
		return "limit", el.Error() + ". Likely cause: a branch whose condition never changes, or a spin loop on a value no unit writes."
	case errors.As(err, &d):
		return "deadlock", d.Error() + "\nLikely cause: a wait whose count is never reached. Count, for each semaphore, the signals the program sends against the waits it makes (a semset that is missing or too small, or a signal left out)."
	case errors.As(err, &f):
		if strings.Contains(f.Msg, "never written") {
			return "acc-unwritten", f.Error() + "\nLikely cause: " + faultCause(f.Msg)
		}
		return "fault", f.Error() + "\nLikely cause: " + faultCause(f.Msg)
	case errors.As(err, &st):
		return "fault", st.Error()
	}
	return "fault", err.Error()
}

func faultCause(msg string) string {
	switch {
	case contains(msg, "outside", "out of", "beyond", "exceeds"):
		return "an address past the end of a buffer or tensor: check the tile count and the offset arithmetic (an off-by-one tile)."
	case contains(msg, "dtype", "type"):
		return "operands whose dtypes do not agree (a dtype mismatch): check each tile's type against the tensor it names."
	case contains(msg, "aligned"):
		return "a base address that is not a multiple of the element size."
	case contains(msg, "never written"):
		return "reading accumulator memory no matmul has written: either the reader did not wait for the matmul (a missing wait, or a wait count too small), or the block was never computed (a loop one short: an off-by-one); the first K step must use mxu.mm."
	}
	return "see the message: it names the instruction and its source line."
}

func contains(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
