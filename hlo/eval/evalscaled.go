package eval

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/expand"
)

// scaledDot evaluates scaled-dot as its expansion (ExpandScaledDots), the
// program the chips run.
func (e *Evaluator) scaledDot(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) != 4 {
		return nil, e.Fail(in, "takes lhs, rhs and their scales")
	}
	return e.byExpansion(in, soloText(in, ops), expand.ExpandScaledDots, ops)
}

// blockScaledDot evaluates a block-scaled dot custom call as its
// expansion (ExpandBlockScaledDots).
func (e *Evaluator) blockScaledDot(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) < 3 || len(ops) > 5 {
		return nil, e.Fail(in, "takes lhs, rhs, lhs_scale and optionally rhs_scale and a global scale")
	}
	return e.byExpansion(in, soloText(in, ops), expand.ExpandBlockScaledDots, ops)
}

// stochasticConvert evaluates stochastic-convert as its expansion
// (ExpandStochasticConverts), the program the chips run.
func (e *Evaluator) stochasticConvert(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) != 2 {
		return nil, e.Fail(in, "takes an operand and random bits")
	}
	return e.byExpansion(in, soloText(in, ops), expand.ExpandStochasticConverts, ops)
}

// soloText is a module of in alone (a scaled-dot, a block-scaled dot)
// over parameters of the operands' shapes, for the evaluator.
func soloText(in *hlo.Instruction, ops []*Value) string {
	s := "HloModule scaled\nENTRY e {\n"
	names := ""
	for i, o := range ops {
		s += fmt.Sprintf("  p%d = %s parameter(%d)\n", i, o.Shape, i)
		if i > 0 {
			names += ", "
		}
		names += fmt.Sprintf("p%d", i)
	}
	attrs := ""
	for _, a := range in.Attrs {
		attrs += ", " + a.Key + "=" + a.Value
	}
	return s + fmt.Sprintf("  ROOT r = %s %s(%s)%s\n}\n", in.Shape, in.Opcode, names, attrs)
}
