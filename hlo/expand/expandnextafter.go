package expand

import "github.com/pulse-sim/pulse/hlo"

// ExpandNextAfters rewrites next-after(x, y) — the representable value
// after x towards y — into the steps on the value's bits the chips run:
// y when x == y, NaN when either is, the smallest subnormal with y's sign
// when x is zero, else x's bits (as a signed integer of the type's width)
// plus one when moving away from zero, minus one towards it. The
// evaluator computes next-after directly (Go's math.Nextafter for f32 and
// f64): the oracle this expansion is checked against.
func ExpandNextAfters(m *hlo.Module) error {
	return rewriteEach(m, "next-after", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if len(ops) != 2 || in.Shape.IsTuple {
			return x.Errorf("next-after takes two arrays")
		}
		elem := in.Shape.Elem
		ints := map[string]string{"f64": "s64", "f32": "s32", "f16": "s16", "bf16": "s16"}[elem]
		if ints == "" {
			return x.Errorf("next-after of %s is not lowered (f16, bf16, f32 and f64 are)", elem)
		}
		a, b := ops[0], ops[1]
		d := in.Shape.Dims
		cmp := func(p, q *hlo.Instruction, dir string) *hlo.Instruction {
			return x.Emit("compare", "pred", d, []*hlo.Instruction{p, q}, "direction", dir)
		}
		sel := func(c, p, q *hlo.Instruction) *hlo.Instruction {
			return x.Emit("select", p.Shape.Elem, d, []*hlo.Instruction{c, p, q})
		}
		zero := x.Broadcast(x.Constant(elem, "0"), d, nil)
		one := x.Broadcast(x.Constant(ints, "1"), d, nil)
		bits := x.Emit("bitcast-convert", ints, d, []*hlo.Instruction{a})
		away := cmp(cmp(a, zero, "LT"), cmp(b, a, "LT"), "EQ")
		step := sel(away, x.Binary("add", bits, one), x.Binary("subtract", bits, one))
		// The smallest subnormal, with y's sign: bits 1, or the sign bit
		// and 1 (the type's minimum integer plus one).
		minInt := map[string]string{"s64": "-9223372036854775807", "s32": "-2147483647", "s16": "-32767"}[ints]
		tiny := sel(cmp(b, zero, "LT"), x.Broadcast(x.Constant(ints, minInt), d, nil), one)
		r := x.Emit("bitcast-convert", elem, d, []*hlo.Instruction{sel(cmp(a, zero, "EQ"), tiny, step)})
		nan := x.Emit("or", "pred", d, []*hlo.Instruction{cmp(a, a, "NE"), cmp(b, b, "NE")})
		r = sel(nan, x.Binary("add", a, b), r)
		x.Finish(sel(cmp(a, b, "EQ"), b, r))
		return nil
	})
}
