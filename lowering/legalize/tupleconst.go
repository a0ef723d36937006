package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"strings"
)

// SplitTupleConstants rewrites every tuple constant with values into a
// constant per element and a tuple of them (nested tuples likewise), for a
// lowering that places arrays, not tuples, in memory.
func SplitTupleConstants(m *hlo.Module) error {
	return rewriteEach(m, "constant", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if in.Shape == nil || !in.Shape.IsTuple || strings.TrimSpace(in.Literal) == "{...}" {
			cp := *in
			x.Out = append(x.Out, &cp)
			return nil
		}
		if _, err := x.tupleConstant(in.Shape, in.Literal); err != nil {
			return err
		}
		return nil
	})
}

// tupleConstant emits the constants of a tuple literal and their tuple.
func (x *rewriter) tupleConstant(s *hlo.Shape, lit string) (*hlo.Instruction, error) {
	if !s.IsTuple {
		c := x.Emit("constant", s.Elem, s.Dims, nil).WithLiteral(lit)
		c.Shape.Layout = s.Layout
		return c, nil
	}
	parts, ok := hlo.SplitTupleLiteral(lit)
	if !ok || len(parts) != len(s.Tuple) {
		return nil, x.Errorf("the literal %q does not hold the %d elements of %s", lit, len(s.Tuple), s)
	}
	elems := make([]*hlo.Instruction, len(parts))
	for i, p := range parts {
		e, err := x.tupleConstant(s.Tuple[i], p)
		if err != nil {
			return nil, err
		}
		elems[i] = e
	}
	t := x.Emit("tuple", "", nil, elems)
	t.Shape = s
	return t, nil
}
