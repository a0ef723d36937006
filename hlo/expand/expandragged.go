package expand

import (
	"github.com/pulse-sim/pulse/hlo"
	"slices"
	"strconv"
)

// maxRaggedGroups bounds the groups a ragged-dot expands over: one dot per
// group.
const maxRaggedGroups = 256

// ExpandRaggedDots rewrites every ragged-dot (ragged.go) into dots a
// matrix unit multiplies, one per group, and selects:
//
//   - mode 1 (ragged free dimension): group j's result is the dot of the
//     whole lhs with the rhs's group j, kept on the output rows in the
//     group — the output, not the lhs, is masked, so that an infinity in
//     another group's rhs cannot reach a row through a zero;
//   - mode 2 (ragged contracting dimension): group j's result is the dot
//     of both operands with the positions of K outside the group zeroed,
//     the groups' results stacked;
//   - mode 3 (ragged batch dimension): one dot, the batches past the last
//     group zeroed.
//
// The group boundaries are computed on the chip from group_sizes (clamped
// to [0, extent], summed, each sum capped at the extent), as the evaluator
// does. Mode 1 multiplies every row by every group's rhs: g times the
// arithmetic of a grouped matmul kernel, which Pulse's timing then counts
// as the work it is.
func ExpandRaggedDots(m *hlo.Module) error {
	return rewriteEach(m, "ragged-dot", func(x *rewriter, ops []*hlo.Instruction) error {
		return x.expandRaggedDot(ops)
	})
}

func (x *rewriter) expandRaggedDot(ops []*hlo.Instruction) error {
	in := x.At
	if len(ops) != 3 || in.Shape == nil || in.Shape.IsTuple {
		return x.Errorf("takes lhs, rhs and group_sizes")
	}
	lhs, rhs, sizes := ops[0], ops[1], ops[2]
	d, err := hlo.ParseRagged(in, lhs.Shape, rhs.Shape, sizes.Shape)
	if err != nil {
		return x.Errorf("%v", err)
	}
	if d.Groups > maxRaggedGroups {
		return x.Errorf("%d groups: at most %d are lowered (one dot per group)", d.Groups, maxRaggedGroups)
	}
	out := in.Shape.Dims
	elem := in.Shape.Elem
	n := lhs.Shape.Dims[d.LhsRagged]
	starts, ends := x.groupBounds(sizes, n, d.Groups, len(d.SizeDims))
	dot := func(l, r *hlo.Instruction, lb, rb, lc, rc []int64, dims []int64) *hlo.Instruction {
		attrs := []string{"lhs_contracting_dims", hlo.IntsText(lc), "rhs_contracting_dims", hlo.IntsText(rc)}
		if len(lb) > 0 {
			attrs = append(attrs, "lhs_batch_dims", hlo.IntsText(lb), "rhs_batch_dims", hlo.IntsText(rb))
		}
		return x.Emit("dot", elem, dims, []*hlo.Instruction{l, r}, attrs...)
	}
	// within is the pred array of shape dims saying whether each position
	// along dimension dim lies in [lo, hi): s32 arrays over the context
	// dims, which ctxAt places among dims (scalars when there are none).
	within := func(dims []int64, dim int, lo, hi *hlo.Instruction, ctxAt []int64) *hlo.Instruction {
		pos := x.Emit("iota", "s32", dims, nil, "iota_dimension", strconv.Itoa(dim))
		ge := x.Emit("compare", "pred", dims, []*hlo.Instruction{pos, x.broadcastAt(lo, dims, ctxAt)}, "direction", "GE")
		lt := x.Emit("compare", "pred", dims, []*hlo.Instruction{pos, x.broadcastAt(hi, dims, ctxAt)}, "direction", "LT")
		return x.Binary("and", ge, lt)
	}
	// at places the context dims among the dims of a target whose
	// dimension for lhs dim c is where(c).
	at := func(where func(c int64) int64) []int64 {
		var o []int64
		for _, c := range d.SizeDims {
			o = append(o, where(c))
		}
		return o
	}
	zerosLike := func(a *hlo.Instruction) *hlo.Instruction {
		return x.Broadcast(x.Constant(a.Shape.Elem, "0"), a.Shape.Dims, nil)
	}
	lf := hlo.FreeDims(len(lhs.Shape.Dims), d.LhsBatch, d.LhsContracting)
	switch d.Mode {
	case 1:
		// The rhs without its group dimension renumbers the dims after it.
		drop := func(v []int64) []int64 {
			o := slices.Clone(v)
			for i := range o {
				if o[i] > d.RhsGroup {
					o[i]--
				}
			}
			return o
		}
		rdims := slices.Delete(slices.Clone(rhs.Shape.Dims), int(d.RhsGroup), int(d.RhsGroup)+1)
		outAt := func(c int64) int64 { // an lhs batch or free dim's place in the output
			if i := slices.Index(d.LhsBatch, c); i >= 0 {
				return int64(i)
			}
			return int64(len(d.LhsBatch) + slices.Index(lf, c))
		}
		rowDim := int(outAt(d.LhsRagged))
		ctxOut := at(outAt)
		acc := x.Broadcast(x.Constant(elem, "0"), out, nil)
		for j := range d.Groups {
			start, count, stride := make([]int64, len(rhs.Shape.Dims)), slices.Clone(rhs.Shape.Dims), make([]int64, len(rhs.Shape.Dims))
			for i := range stride {
				stride[i] = 1
			}
			start[d.RhsGroup], count[d.RhsGroup] = j, 1
			rj := x.Reshape(x.Slice(rhs, start, count, stride), rdims)
			dj := dot(lhs, rj, d.LhsBatch, drop(d.RhsBatch), d.LhsContracting, drop(d.RhsContracting), out)
			acc = x.Emit("select", elem, out, []*hlo.Instruction{within(out, rowDim, starts[j], ends[j], ctxOut), dj, acc})
		}
		x.Finish(acc)
	case 2:
		// The rhs dimension that pairs with an lhs batch or contracting dim.
		rhsOf := func(c int64) int64 {
			if i := slices.Index(d.LhsBatch, c); i >= 0 {
				return d.RhsBatch[i]
			}
			return d.RhsContracting[slices.Index(d.LhsContracting, c)]
		}
		rr := rhsOf(d.LhsRagged)
		ctxL, ctxR := at(func(c int64) int64 { return c }), at(rhsOf)
		one := slices.Clone(out[1:])
		pieces := make([]*hlo.Instruction, d.Groups)
		for j := range d.Groups {
			lm := x.Emit("select", lhs.Shape.Elem, lhs.Shape.Dims, []*hlo.Instruction{within(lhs.Shape.Dims, int(d.LhsRagged), starts[j], ends[j], ctxL), lhs, zerosLike(lhs)})
			rm := x.Emit("select", rhs.Shape.Elem, rhs.Shape.Dims, []*hlo.Instruction{within(rhs.Shape.Dims, int(rr), starts[j], ends[j], ctxR), rhs, zerosLike(rhs)})
			pieces[j] = x.Reshape(dot(lm, rm, d.LhsBatch, d.RhsBatch, d.LhsContracting, d.RhsContracting, one), append([]int64{1}, one...))
		}
		if len(pieces) == 1 {
			x.Finish(pieces[0])
			return nil
		}
		x.Emit("concatenate", elem, out, pieces, "dimensions", "{0}")
	case 3:
		full := dot(lhs, rhs, d.LhsBatch, d.RhsBatch, d.LhsContracting, d.RhsContracting, out)
		batchAt := func(c int64) int64 { return int64(slices.Index(d.LhsBatch, c)) }
		keep := within(out, int(batchAt(d.LhsRagged)), starts[0], ends[len(ends)-1], at(batchAt))
		x.Emit("select", elem, out, []*hlo.Instruction{keep, full, x.Broadcast(x.Constant(elem, "0"), out, nil)})
	}
	return nil
}

// groupBounds computes, as s32 arrays over the context dims (the leading
// ctx dims of group_sizes; scalars when none), where each of g groups
// starts and ends along a ragged extent of n: the sizes clamped to [0, n],
// summed, each sum capped at n (the evaluator's groupEnds).
func (x *rewriter) groupBounds(sizes *hlo.Instruction, n, g int64, ctx int) (starts, ends []*hlo.Instruction) {
	e, all := sizes.Shape.Elem, sizes.Shape.Dims
	cdims := all[:ctx]
	lo := x.Broadcast(x.Constant(e, "0"), all, nil)
	hi := x.Broadcast(x.Constant(e, strconv.FormatInt(n, 10)), all, nil)
	clamped := x.Emit("clamp", e, all, []*hlo.Instruction{lo, sizes, hi})
	s32 := x.Convert(clamped, "s32")
	nc := x.Broadcast(x.Constant("s32", strconv.FormatInt(n, 10)), cdims, nil)
	cur := x.Broadcast(x.Constant("s32", "0"), cdims, nil)
	start, count, stride := make([]int64, len(all)), slices.Clone(all), make([]int64, len(all))
	for i := range stride {
		stride[i] = 1
	}
	for j := range g {
		start[ctx], count[ctx] = j, 1
		sj := x.Reshape(x.Slice(s32, start, count, stride), cdims)
		starts = append(starts, cur)
		cur = x.Emit("minimum", "s32", cdims, []*hlo.Instruction{x.Emit("add", "s32", cdims, []*hlo.Instruction{cur, sj}), nc})
		ends = append(ends, cur)
	}
	return starts, ends
}

// broadcastAt broadcasts a into dims with a's dimensions at the places
// at (in any order: a is transposed first, since a broadcast's dimensions
// increase).
func (x *rewriter) broadcastAt(a *hlo.Instruction, dims, at []int64) *hlo.Instruction {
	perm := make([]int64, len(at))
	for i := range perm {
		perm[i] = int64(i)
	}
	slices.SortFunc(perm, func(p, q int64) int { return int(at[p] - at[q]) })
	sorted := make([]int64, len(at))
	for i, p := range perm {
		sorted[i] = at[p]
	}
	return x.Broadcast(x.Transpose(a, perm), dims, sorted)
}
