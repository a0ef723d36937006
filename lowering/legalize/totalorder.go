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
		bits := totalOrderBits(ops[0].Shape.Elem)
		if t != "TOTALORDER" || bits == "" || ops[0].Shape.IsTuple {
			x.Out = append(x.Out, in)
			return nil
		}
		dims := ops[0].Shape.Dims
		key := func(a *hlo.Instruction) *hlo.Instruction {
			return x.flipNegative(x.Emit("bitcast-convert", bits, dims, []*hlo.Instruction{a}), bits)
		}
		a, b := key(ops[0]), key(ops[1])
		dir, _ := in.Attr("direction")
		x.Emit("compare", "pred", in.Shape.Dims, []*hlo.Instruction{a, b}, "direction", dir, "type", "SIGNED")
		return nil
	})
}

// totalOrderBits is the signed integer type of a float type's width ("" for
// any other type).
func totalOrderBits(elem string) string {
	return map[string]string{"f64": "s64", "f32": "s32", "bf16": "s16", "f16": "s16"}[elem]
}

// flipNegative flips every bit but the sign of the signed integers b where
// they are negative: the float total-order key, and its own inverse.
func (x *rewriter) flipNegative(b *hlo.Instruction, bt string) *hlo.Instruction {
	dims := b.Shape.Dims
	maxInt := strconv.FormatUint(1<<(hlo.ElemBits(bt)-1)-1, 10)
	neg := x.Emit("compare", hlo.Pred, dims, []*hlo.Instruction{b, x.Broadcast(x.Constant(bt, "0"), dims, nil)}, "direction", "LT", "type", "SIGNED")
	flipped := x.Binary("xor", b, x.Broadcast(x.Constant(bt, maxInt), dims, nil))
	return x.Emit("select", bt, dims, []*hlo.Instruction{neg, flipped, b})
}
