package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// UpcastDots rewrites every dot whose operands are both f16, bf16 or an
// 8-bit float of a type the matrix unit does not multiply (upcast reports it) into converts
// of its operands to f32, the dot in f32, and a convert of the result back:
// what XLA's float normalization does for f16 on a TPU. Converting f16,
// bf16 or an 8-bit float to f32 is exact, so the product is the f32 product rounded once.
// Operands that are all 8- or 4-bit floats (or bf16 with them) go to bf16
// instead where the unit multiplies bf16 (mxu reports what it multiplies): every such
// value is a bf16 value, so the products and their f32 sum are the same,
// at the unit's bf16 rate and with half the bytes of an f32 copy (MaxText's
// FP8 Llama 3.1 405B step on a TPU v5p, which has no fp8 MXU).
// Other dots (mixed, integer) are left for the lowering to judge.
func UpcastDots(m *hlo.Module, upcast, mxu func(elem string) bool) error {
	return rewriteEach(m, "dot", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		a, b := ops[0], ops[1]
		low := func(e string) bool {
			return (e == "f16" || e == "bf16" || isa.Minifloats[e] != nil && e != "f4e2m1fn") && upcast(e)
		}
		if len(ops) != 2 || !low(a.Shape.Elem) || !low(b.Shape.Elem) || in.Shape.IsTuple {
			x.Out = append(x.Out, in) // unchanged
			return nil
		}
		to := "f32"
		mini := func(e string) bool { return isa.Minifloats[e] != nil }
		if mxu("bf16") && (mini(a.Shape.Elem) || mini(b.Shape.Elem)) && (mini(a.Shape.Elem) || a.Shape.Elem == "bf16") && (mini(b.Shape.Elem) || b.Shape.Elem == "bf16") {
			to = "bf16"
		}
		d := x.Emit("dot", "f32", in.Shape.Dims, []*hlo.Instruction{x.Convert(a, to), x.Convert(b, to)})
		d.Attrs = in.Attrs
		x.Emit("convert", in.Shape.Elem, in.Shape.Dims, []*hlo.Instruction{d})
		return nil
	})
}
