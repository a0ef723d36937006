package expand

import "github.com/pulse-sim/pulse/hlo"

// ExpandScaledDots rewrites every scaled-dot(lhs, rhs, lhs_scale,
// rhs_scale) — a dot of block-scaled operands (MX formats: f8 values with
// a scale per block of the contracting dim) — into converts, multiplies
// and a dot, as XLA's ScaledDotRewriter does: each operand is multiplied
// by its scale, each scale element repeated over its block (every operand
// dim a multiple of the scale's; a scalar scale leaves the operand as it
// is), in a common type (bf16 when both are narrower than 16 bits, the
// wider one otherwise, f32 between two of one width); the dot runs in the
// wider of that type and the result's, converted to the result type. The
// evaluator evaluates the same expansion (evalscaled.go).
func ExpandScaledDots(m *hlo.Module) error {
	return rewriteEach(m, "scaled-dot", func(x *rewriter, ops []*hlo.Instruction) error {
		if len(ops) != 4 || x.At.Shape == nil || x.At.Shape.IsTuple {
			return x.Errorf("takes lhs, rhs and their scales, and returns an array")
		}
		lhs, err := x.dequantize(ops[0], ops[2], "lhs")
		if err != nil {
			return err
		}
		rhs, err := x.dequantize(ops[1], ops[3], "rhs")
		if err != nil {
			return err
		}
		t := scaledType(lhs.Shape.Elem, rhs.Shape.Elem)
		lhs, rhs = x.Convert(lhs, t), x.Convert(rhs, t)
		work := scaledType(t, x.At.Shape.Elem)
		d := x.Emit("dot", work, x.At.Shape.Dims, []*hlo.Instruction{lhs, rhs})
		d.Attrs = x.At.Attrs
		x.Finish(x.Convert(d, x.At.Shape.Elem))
		return nil
	})
}

// scaledType is the type two operands of types a and b meet in.
func scaledType(a, b string) string {
	wa, wb := hlo.ElemBits(a), hlo.ElemBits(b)
	switch {
	case wa < 16 && wb < 16:
		return "bf16"
	case a == b:
		return a
	case wa == wb:
		return "f32"
	case wa > wb:
		return a
	}
	return b
}

// dequantize is operand times its scale repeated over blocks.
func (x *rewriter) dequantize(op, scale *hlo.Instruction, side string) (*hlo.Instruction, error) {
	if len(scale.Shape.Dims) == 0 {
		return op, nil
	}
	t := scaledType(op.Shape.Elem, scale.Shape.Elem)
	op, scale = x.Convert(op, t), x.Convert(scale, t)
	if len(op.Shape.Dims) != len(scale.Shape.Dims) {
		return nil, x.Errorf("the %s scale %s is not of the %s operand's rank (%s)", side, scale.Shape, side, op.Shape)
	}
	// scale [s0, s1] over [s0*b0, s1*b1]: broadcast to [s0, b0, s1, b1],
	// reshaped.
	var wide, mapping []int64
	for i, d := range op.Shape.Dims {
		s := scale.Shape.Dims[i]
		if s <= 0 || d%s != 0 {
			return nil, x.Errorf("the %s scale's dim %d (%d) does not divide the operand's (%d)", side, i, s, d)
		}
		mapping = append(mapping, int64(len(wide)))
		wide = append(wide, s)
		if d != s {
			wide = append(wide, d/s)
		}
	}
	b := x.Reshape(x.Emit("broadcast", t, wide, []*hlo.Instruction{scale}, "dimensions", hlo.IntsText(mapping)), op.Shape.Dims)
	return x.Emit("multiply", t, op.Shape.Dims, []*hlo.Instruction{op, b}), nil
}
