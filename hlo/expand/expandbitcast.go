package expand

import (
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
)

// ExpandWidthBitcasts rewrites every bitcast-convert between types of
// different widths (u32[n,2] to u64[n], s64[n] to s8[n,8], f32[n,2] to
// f64[n], ...) into same-width bitcasts to unsigned integers, shifts, masks
// and ors: a wide element is its narrow parts with the first in the low
// bits (the little-endian order the evaluator reads), a narrow part the
// wide element shifted right and masked. pred takes part in neither.
func ExpandWidthBitcasts(m *hlo.Module) error {
	return rewriteEach(m, "bitcast-convert", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		from, to := ops[0].Shape.Elem, in.Shape.Elem
		fb, tb := hlo.ElemBits(from), hlo.ElemBits(to)
		uf, ut := unsignedOf(fb), unsignedOf(tb)
		if fb == tb || uf == "" || ut == "" || from == "pred" || to == "pred" || in.Shape.IsTuple || ops[0].Shape.IsTuple {
			x.Out = append(x.Out, in)
			return nil
		}
		same := func(a *hlo.Instruction, elem string) *hlo.Instruction {
			if a.Shape.Elem == elem {
				return a
			}
			return x.Emit("bitcast-convert", elem, a.Shape.Dims, []*hlo.Instruction{a})
		}
		splat := func(elem string, v uint64, dims []int64) *hlo.Instruction {
			return x.Broadcast(x.Constant(elem, strconv.FormatUint(v, 10)), dims, nil)
		}
		src := same(ops[0], uf)
		dims := src.Shape.Dims
		r := len(dims)
		if fb < tb {
			// Narrow to wide: the trailing dim's k parts, low first.
			k := tb / fb
			if r == 0 || dims[r-1] != int64(k) {
				return x.Errorf("%s to %s needs a trailing dimension of %d", ops[0].Shape, in.Shape, k)
			}
			out := dims[:r-1]
			var acc *hlo.Instruction
			for j := range k {
				st, cnt, str := make([]int64, r), append([]int64{}, dims...), make([]int64, r)
				for d := range str {
					str[d] = 1
				}
				st[r-1], cnt[r-1] = int64(j), 1
				p := x.Convert(x.Reshape(x.Slice(src, st, cnt, str), out), ut)
				if j > 0 {
					p = x.Binary("shift-left", p, splat(ut, uint64(j*fb), out))
				}
				acc = x.Binary("or", acc, p)
			}
			x.Finish(same(acc, to))
			return nil
		}
		// Wide to narrow: each part the element shifted and masked.
		k := fb / tb
		part := append(append([]int64{}, dims...), 1)
		var parts []*hlo.Instruction
		for j := range k {
			v := src
			if j > 0 {
				v = x.Binary("shift-right-logical", v, splat(uf, uint64(j*tb), dims))
			}
			v = x.Binary("and", v, splat(uf, 1<<tb-1, dims))
			parts = append(parts, x.Reshape(same(x.Convert(v, ut), to), part))
		}
		x.Finish(x.Concatenate(parts, r))
		return nil
	})
}

// unsignedOf is the unsigned integer type of a width ("" for others).
func unsignedOf(bits int) string {
	switch bits {
	case 8, 16, 32, 64:
		return "u" + strconv.Itoa(bits)
	}
	return ""
}

// TypedBitcasts rewrites every bitcast that also changes the element type
// (of one width: f32 to s32, as XLA's post-layout dumps write) into a
// bitcast-convert of the operand, and a reshape when the dimensions change
// too: the kernels read a bitcast as a view in its operand's type.
func TypedBitcasts(m *hlo.Module) error {
	return rewriteEach(m, "bitcast", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if len(ops) != 1 || in.Shape == nil || ops[0].Shape == nil || in.Shape.IsTuple || ops[0].Shape.IsTuple ||
			in.Shape.Elem == ops[0].Shape.Elem || hlo.ElemBits(in.Shape.Elem) != hlo.ElemBits(ops[0].Shape.Elem) ||
			in.Shape.Elems() != ops[0].Shape.Elems() {
			x.Out = append(x.Out, in)
			return nil
		}
		bc := x.Emit("bitcast-convert", in.Shape.Elem, ops[0].Shape.Dims, ops)
		if hlo.EqualDims(bc.Shape.Dims, in.Shape.Dims) {
			x.Finish(bc)
			return nil
		}
		x.Emit("reshape", in.Shape.Elem, in.Shape.Dims, []*hlo.Instruction{bc})
		return nil
	})
}
