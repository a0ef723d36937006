package eval

import (
	"errors"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// byExpansion evaluates instruction in as the module text (in alone, over
// parameters args) becomes once expand rewrites it: the program the chips
// run. The expanded modules are kept by text; they share the evaluator's
// generator state.
func (e *Evaluator) byExpansion(in *hlo.Instruction, text string, expansion func(*hlo.Module) error, args []*Value) (*Value, error) {
	m := e.expansions[text]
	if m == nil {
		var err error
		if m, err = hlo.Parse(e.File+" ("+in.Opcode+")", text); err != nil {
			return nil, e.Fail(in, "%v", err)
		}
		if err := expansion(m); err != nil {
			var x *rewrite.ExpandError
			if errors.As(err, &x) {
				return nil, e.Fail(in, "%s", x.Reason)
			}
			return nil, e.Fail(in, "%v", err)
		}
		if e.expansions == nil {
			e.expansions = map[string]*hlo.Module{}
		}
		e.expansions[text] = m
	}
	sub := &Evaluator{File: e.File, M: m, MaxLiveElements: e.MaxLiveElements, MaxHeapBytes: e.MaxHeapBytes,
		Perturb: e.Perturb, rngs: e.rngStateOf(), rngShared: true}
	v, err := sub.Run(args)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	return v, nil
}
