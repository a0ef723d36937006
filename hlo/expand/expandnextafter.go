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
		in := x.at
		if len(ops) != 2 || in.Shape.IsTuple {
			return x.errorf("next-after takes two arrays")
		}
		elem := in.Shape.Elem
		ints := map[string]string{"f64": "s64", "f32": "s32", "f16": "s16", "bf16": "s16"}[elem]
		if ints == "" {
			return x.errorf("next-after of %s is not lowered (f16, bf16, f32 and f64 are)", elem)
		}
		a, b := ops[0], ops[1]
		d := in.Shape.Dims
		cmp := func(p, q *hlo.Instruction, dir string) *hlo.Instruction {
			return x.emit("compare", "pred", d, []*hlo.Instruction{p, q}, "direction", dir)
		}
		sel := func(c, p, q *hlo.Instruction) *hlo.Instruction {
			return x.emit("select", p.Shape.Elem, d, []*hlo.Instruction{c, p, q})
		}
		zero := x.broadcast(x.constant(elem, "0"), d, nil)
		one := x.broadcast(x.constant(ints, "1"), d, nil)
		bits := x.emit("bitcast-convert", ints, d, []*hlo.Instruction{a})
		away := cmp(cmp(a, zero, "LT"), cmp(b, a, "LT"), "EQ")
		step := sel(away, x.binary("add", bits, one), x.binary("subtract", bits, one))
		// The smallest subnormal, with y's sign: bits 1, or the sign bit
		// and 1 (the type's minimum integer plus one).
		minInt := map[string]string{"s64": "-9223372036854775807", "s32": "-2147483647", "s16": "-32767"}[ints]
		tiny := sel(cmp(b, zero, "LT"), x.broadcast(x.constant(ints, minInt), d, nil), one)
		r := x.emit("bitcast-convert", elem, d, []*hlo.Instruction{sel(cmp(a, zero, "EQ"), tiny, step)})
		nan := x.emit("or", "pred", d, []*hlo.Instruction{cmp(a, a, "NE"), cmp(b, b, "NE")})
		r = sel(nan, x.binary("add", a, b), r)
		x.finish(sel(cmp(a, b, "EQ"), b, r))
		return nil
	})
}
