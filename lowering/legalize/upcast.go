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
// Other dots (mixed, integer) are left for the lowering to judge.
func UpcastDots(m *hlo.Module, upcast func(elem string) bool) error {
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
		d := x.Emit("dot", "f32", in.Shape.Dims, []*hlo.Instruction{x.Convert(a, "f32"), x.Convert(b, "f32")})
		d.Attrs = in.Attrs
		x.Emit("convert", in.Shape.Elem, in.Shape.Dims, []*hlo.Instruction{d})
		return nil
	})
}
