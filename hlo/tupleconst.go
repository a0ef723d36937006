package hlo

import "strings"

// SplitTupleConstants rewrites every tuple constant with values into a
// constant per element and a tuple of them (nested tuples likewise), for a
// lowering that places arrays, not tuples, in memory.
func SplitTupleConstants(m *Module) error {
	return rewriteEach(m, "constant", func(x *rewriter, ops []*Instruction) error {
		in := x.at
		if in.Shape == nil || !in.Shape.IsTuple || strings.TrimSpace(in.Literal) == "{...}" {
			cp := *in
			x.out = append(x.out, &cp)
			return nil
		}
		if _, err := x.tupleConstant(in.Shape, in.Literal); err != nil {
			return err
		}
		return nil
	})
}

// tupleConstant emits the constants of a tuple literal and their tuple.
func (x *rewriter) tupleConstant(s *Shape, lit string) (*Instruction, error) {
	if !s.IsTuple {
		c := x.emit("constant", s.Elem, s.Dims, nil).withLiteral(lit)
		c.Shape.Layout = s.Layout
		return c, nil
	}
	parts, ok := SplitTupleLiteral(lit)
	if !ok || len(parts) != len(s.Tuple) {
		return nil, x.errorf("the literal %q does not hold the %d elements of %s", lit, len(s.Tuple), s)
	}
	elems := make([]*Instruction, len(parts))
	for i, p := range parts {
		e, err := x.tupleConstant(s.Tuple[i], p)
		if err != nil {
			return nil, err
		}
		elems[i] = e
	}
	t := x.emit("tuple", "", nil, elems)
	t.Shape = s
	return t, nil
}
