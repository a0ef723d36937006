package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
)

// ExpandTotalOrderCompares rewrites every compare of floats with
// type=TOTALORDER (IEEE's total order: -NaN < -inf < ... < -0 < +0 < ... <
// inf < NaN, the order JAX's sort comparators ask for) into a signed
// compare of integer keys: the float's bits as a signed integer of its
// width, with every bit but the sign flipped where it is negative, so that
// larger magnitudes of negatives come first. This is totalOrderCmp's key
// (evalbits.go), built from ops a vector unit has: bitcast-convert, xor,
// compare, select.
func ExpandTotalOrderCompares(m *hlo.Module) error {
	return rewriteEach(m, "compare", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		t, _ := in.Attr("type")
		elem := ops[0].Shape.Elem
		bits := map[string]string{"f64": "s64", "f32": "s32", "bf16": "s16", "f16": "s16"}[elem]
		if t != "TOTALORDER" || bits == "" || ops[0].Shape.IsTuple {
			x.Out = append(x.Out, in)
			return nil
		}
		dims := ops[0].Shape.Dims
		maxInt := strconv.FormatUint(1<<(hlo.ElemBits(bits)-1)-1, 10)
		key := func(a *hlo.Instruction) *hlo.Instruction {
			i := x.Emit("bitcast-convert", bits, dims, []*hlo.Instruction{a})
			neg := x.Emit("compare", "pred", dims, []*hlo.Instruction{i, x.Broadcast(x.Constant(bits, "0"), dims, nil)},
				"direction", "LT", "type", "SIGNED")
			flipped := x.Binary("xor", i, x.Broadcast(x.Constant(bits, maxInt), dims, nil))
			return x.Emit("select", bits, dims, []*hlo.Instruction{neg, flipped, i})
		}
		a, b := key(ops[0]), key(ops[1])
		dir, _ := in.Attr("direction")
		x.Emit("compare", "pred", in.Shape.Dims, []*hlo.Instruction{a, b}, "direction", dir, "type", "SIGNED")
		return nil
	})
}
