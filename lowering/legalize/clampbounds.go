package legalize

import "github.com/pulse-sim/pulse/hlo"

// BroadcastClampBounds gives the scalar bounds of every non-scalar clamp
// the clamped operand's shape, and likewise the scalar predicate of every
// non-scalar select. HLO allows a scalar min or max, and older XLA a
// scalar predicate (the evaluator and XLA broadcast them); a kernel reads
// three arrays of one shape, so the broadcast is made explicit, where
// fusion folds it into the kernel as a fill.
func BroadcastClampBounds(m *hlo.Module) error {
	if err := rewriteEach(m, "select", broadcastScalarOperands); err != nil {
		return err
	}
	return rewriteEach(m, "clamp", broadcastScalarOperands)
}

func broadcastScalarOperands(x *rewriter, ops []*hlo.Instruction) error {
	c := *x.At
	c.Operands = make([]*hlo.Operand, len(ops))
	for i, o := range ops {
		c.Operands[i] = x.At.Operands[i]
		if len(o.Shape.Dims) == 0 && len(x.At.Shape.Dims) > 0 && !o.Shape.IsTuple {
			b := x.Emit("broadcast", o.Shape.Elem, x.At.Shape.Dims, []*hlo.Instruction{o}, "dimensions", "{}")
			c.Operands[i] = &hlo.Operand{Pos: x.At.Pos, Name: b.Name}
		}
	}
	x.Out = append(x.Out, &c)
	return nil
}
