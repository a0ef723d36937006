package hlo

import (
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
func ExpandRaggedDots(m *Module) error {
	return rewriteEach(m, "ragged-dot", func(x *rewriter, ops []*Instruction) error {
		return x.expandRaggedDot(ops)
	})
}

func (x *rewriter) expandRaggedDot(ops []*Instruction) error {
	in := x.at
	if len(ops) != 3 || in.Shape == nil || in.Shape.IsTuple {
		return x.errorf("takes lhs, rhs and group_sizes")
	}
	lhs, rhs, sizes := ops[0], ops[1], ops[2]
	d, err := parseRagged(in, lhs.Shape, rhs.Shape, sizes.Shape)
	if err != nil {
		return x.errorf("%v", err)
	}
	if d.groups > maxRaggedGroups {
		return x.errorf("%d groups: at most %d are lowered (one dot per group)", d.groups, maxRaggedGroups)
	}
	out := in.Shape.Dims
	elem := in.Shape.Elem
	n := lhs.Shape.Dims[d.lr]
	starts, ends := x.groupBounds(sizes, n, d.groups)
	dot := func(l, r *Instruction, lb, rb, lc, rc []int64, dims []int64) *Instruction {
		attrs := []string{"lhs_contracting_dims", intsText(lc), "rhs_contracting_dims", intsText(rc)}
		if len(lb) > 0 {
			attrs = append(attrs, "lhs_batch_dims", intsText(lb), "rhs_batch_dims", intsText(rb))
		}
		return x.emit("dot", elem, dims, []*Instruction{l, r}, attrs...)
	}
	// within is the pred array of shape dims saying whether each position
	// along dimension dim lies in [lo, hi) (s32 scalars).
	within := func(dims []int64, dim int, lo, hi *Instruction) *Instruction {
		pos := x.emit("iota", "s32", dims, nil, "iota_dimension", strconv.Itoa(dim))
		ge := x.emit("compare", "pred", dims, []*Instruction{pos, x.broadcast(lo, dims, nil)}, "direction", "GE")
		lt := x.emit("compare", "pred", dims, []*Instruction{pos, x.broadcast(hi, dims, nil)}, "direction", "LT")
		return x.binary("and", ge, lt)
	}
	zerosLike := func(a *Instruction) *Instruction {
		return x.broadcast(x.constant(a.Shape.Elem, "0"), a.Shape.Dims, nil)
	}
	lf := freeDims(len(lhs.Shape.Dims), d.lb, d.lc)
	switch d.mode {
	case 1:
		// The rhs without its group dimension renumbers the dims after it.
		drop := func(v []int64) []int64 {
			o := slices.Clone(v)
			for i := range o {
				if o[i] > d.rg {
					o[i]--
				}
			}
			return o
		}
		rdims := slices.Delete(slices.Clone(rhs.Shape.Dims), int(d.rg), int(d.rg)+1)
		rowDim := len(d.lb) + slices.Index(lf, d.lr)
		acc := x.broadcast(x.constant(elem, "0"), out, nil)
		for j := range d.groups {
			start, count, stride := make([]int64, len(rhs.Shape.Dims)), slices.Clone(rhs.Shape.Dims), make([]int64, len(rhs.Shape.Dims))
			for i := range stride {
				stride[i] = 1
			}
			start[d.rg], count[d.rg] = j, 1
			rj := x.reshape(x.slice(rhs, start, count, stride), rdims)
			dj := dot(lhs, rj, d.lb, drop(d.rb), d.lc, drop(d.rc), out)
			acc = x.emit("select", elem, out, []*Instruction{within(out, rowDim, starts[j], ends[j]), dj, acc})
		}
		x.finish(acc)
	case 2:
		kr := slices.Index(d.lc, d.lr)
		rr := d.rc[kr] // the rhs dimension contracted with the ragged one
		one := slices.Clone(out[1:])
		pieces := make([]*Instruction, d.groups)
		for j := range d.groups {
			lm := x.emit("select", lhs.Shape.Elem, lhs.Shape.Dims, []*Instruction{within(lhs.Shape.Dims, int(d.lr), starts[j], ends[j]), lhs, zerosLike(lhs)})
			rm := x.emit("select", rhs.Shape.Elem, rhs.Shape.Dims, []*Instruction{within(rhs.Shape.Dims, int(rr), starts[j], ends[j]), rhs, zerosLike(rhs)})
			pieces[j] = x.reshape(dot(lm, rm, d.lb, d.rb, d.lc, d.rc, one), append([]int64{1}, one...))
		}
		if len(pieces) == 1 {
			x.finish(pieces[0])
			return nil
		}
		x.emit("concatenate", elem, out, pieces, "dimensions", "{0}")
	case 3:
		full := dot(lhs, rhs, d.lb, d.rb, d.lc, d.rc, out)
		bDim := slices.Index(d.lb, d.lr)
		keep := within(out, bDim, starts[0], ends[len(ends)-1])
		x.emit("select", elem, out, []*Instruction{keep, full, x.broadcast(x.constant(elem, "0"), out, nil)})
	}
	return nil
}

// groupBounds computes, as s32 scalars, where each of g groups starts and
// ends along a ragged extent of n: the sizes clamped to [0, n], summed,
// each sum capped at n (the evaluator's groupEnds).
func (x *rewriter) groupBounds(sizes *Instruction, n, g int64) (starts, ends []*Instruction) {
	e := sizes.Shape.Elem
	lo := x.broadcast(x.constant(e, "0"), []int64{g}, nil)
	hi := x.broadcast(x.constant(e, strconv.FormatInt(n, 10)), []int64{g}, nil)
	clamped := x.emit("clamp", e, []int64{g}, []*Instruction{lo, sizes, hi})
	s32 := x.convert(clamped, "s32")
	nc := x.constant("s32", strconv.FormatInt(n, 10))
	at := x.constant("s32", "0")
	for j := range g {
		sj := x.reshape(x.slice(s32, []int64{j}, []int64{1}, []int64{1}), nil)
		starts = append(starts, at)
		at = x.emit("minimum", "s32", nil, []*Instruction{x.emit("add", "s32", nil, []*Instruction{at, sj}), nc})
		ends = append(ends, at)
	}
	return starts, ends
}
