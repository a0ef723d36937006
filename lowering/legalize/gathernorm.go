package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"slices"
	"strconv"
)

// NormalizeGathers and NormalizeScatters put every gather and scatter in
// the form a lowering handles best, as XLA's BatchedGatherScatterNormalizer
// and its layout passes do, without changing a value:
//
//   - batching dims (operand_batching_dims / input_batching_dims, and the
//     indices' matching dims) become ordinary collapsed (inserted) dims
//     whose index is an iota along the indices' batching dim, appended to
//     every index vector;
//   - offset dims of a gather that are not the result's trailing dims:
//     the gather produces them trailing and a transpose puts them back;
//   - update window dims of a scatter that are not the updates' trailing
//     dims: the updates are transposed to put them there.

// NormalizeGathers rewrites every gather (see above).
func NormalizeGathers(m *hlo.Module) error {
	return rewriteEach(m, "gather", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if len(ops) != 2 || in.Shape.IsTuple {
			x.Out = append(x.Out, in)
			return nil
		}
		attrs := slices.Clone(in.Attrs)
		idx := ops[1]
		var err error
		if idx, attrs, err = x.batchingToIndices(attrs, idx, "operand_batching_dims", "start_indices_batching_dims", "collapsed_slice_dims", "start_index_map"); err != nil {
			return err
		}
		offset, _ := hlo.OptList(&hlo.Instruction{Attrs: attrs}, "offset_dims")
		R := len(in.Shape.Dims)
		nb := R - len(offset)
		dims := in.Shape.Dims
		var perm []int64 // the result's dims from the trailing-offset gather's
		if !isTrailing(offset, R) && nb >= 0 {
			var batchDims, offDims []int64
			perm = make([]int64, R)
			for p := range R {
				if j := slices.Index(offset, int64(p)); j >= 0 {
					perm[p] = int64(nb + j)
					offDims = append(offDims, in.Shape.Dims[p])
				} else {
					perm[p] = int64(len(batchDims))
					batchDims = append(batchDims, in.Shape.Dims[p])
				}
			}
			dims = append(batchDims, offDims...)
			attrs = withAttr(attrs, "offset_dims", hlo.IntsText(hlo.Iota64(nb, R)))
		}
		if len(perm) == 0 && idx == ops[1] {
			x.Out = append(x.Out, in)
			return nil
		}
		g := x.Emit("gather", in.Shape.Elem, dims, []*hlo.Instruction{ops[0], idx})
		g.Attrs = attrs
		if perm != nil {
			x.Transpose(g, perm)
		}
		return nil
	})
}

// NormalizeScatters rewrites every scatter (see above).
func NormalizeScatters(m *hlo.Module) error {
	return rewriteEach(m, "scatter", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		n := (len(ops) - 1) / 2
		if n < 1 || len(ops) != 2*n+1 {
			x.Out = append(x.Out, in)
			return nil
		}
		attrs := slices.Clone(in.Attrs)
		idx := ops[n]
		var err error
		if idx, attrs, err = x.batchingToIndices(attrs, idx, "input_batching_dims", "scatter_indices_batching_dims", "inserted_window_dims", "scatter_dims_to_operand_dims"); err != nil {
			return err
		}
		window, _ := hlo.OptList(&hlo.Instruction{Attrs: attrs}, "update_window_dims")
		updates := slices.Clone(ops[n+1:])
		if r := len(updates[0].Shape.Dims); !isTrailing(window, r) {
			var perm []int64
			for d := range r {
				if !slices.Contains(window, int64(d)) {
					perm = append(perm, int64(d))
				}
			}
			perm = append(perm, window...)
			for i, u := range updates {
				updates[i] = x.Transpose(u, perm)
			}
			attrs = withAttr(attrs, "update_window_dims", hlo.IntsText(hlo.Iota64(r-len(window), r)))
		}
		if idx == ops[n] && updates[0] == ops[n+1] {
			x.Out = append(x.Out, in)
			return nil
		}
		s := *in
		s.Name = x.At.Name + ".normalized"
		s.Attrs = attrs
		s.Operands = nil
		for _, o := range slices.Concat(ops[:n], []*hlo.Instruction{idx}, updates) {
			s.Operands = append(s.Operands, &hlo.Operand{Pos: in.Pos, Name: o.Name})
		}
		x.Out = append(x.Out, &s)
		return nil
	})
}

// isTrailing: dims are r-len(dims), ..., r-1 in order.
func isTrailing(dims []int64, r int) bool {
	for i, d := range dims {
		if d != int64(r-len(dims)+i) {
			return false
		}
	}
	return true
}

// withAttr is attrs with key set to value (replaced, or appended).
func withAttr(attrs []hlo.Attr, key, value string) []hlo.Attr {
	for i, a := range attrs {
		if a.Key == key {
			attrs[i].Value = value
			return attrs
		}
	}
	return append(attrs, hlo.Attr{Key: key, Value: value})
}

// withoutAttr is attrs without key.
func withoutAttr(attrs []hlo.Attr, key string) []hlo.Attr {
	return slices.DeleteFunc(attrs, func(a hlo.Attr) bool { return a.Key == key })
}

// batchingToIndices turns the batching dims (operand dims opKey, indices
// dims idxKey) of a gather or scatter into collapsed dims (collapsedKey)
// indexed by an iota along each indices batching dim, appended to the
// index vectors and to the index map (mapKey). It returns the new indices
// and attributes (the old ones when there are no batching dims).
func (x *rewriter) batchingToIndices(attrs []hlo.Attr, idx *hlo.Instruction, opKey, idxKey, collapsedKey, mapKey string) (*hlo.Instruction, []hlo.Attr, error) {
	probe := &hlo.Instruction{Attrs: attrs}
	opBatch, _ := hlo.OptList(probe, opKey)
	idxBatch, _ := hlo.OptList(probe, idxKey)
	if len(opBatch) == 0 {
		return idx, attrs, nil
	}
	if len(opBatch) != len(idxBatch) {
		return nil, nil, x.Errorf("%s and %s differ in length", opKey, idxKey)
	}
	orig, mark := idx, len(x.Out)
	ivd, err := hlo.IntAttr(probe, "index_vector_dim")
	r := int64(len(idx.Shape.Dims))
	if err != nil || ivd < 0 || ivd > r {
		return nil, nil, x.Errorf("bad index_vector_dim")
	}
	if ivd == r {
		idx = x.Reshape(idx, append(slices.Clone(idx.Shape.Dims), 1))
	}
	one := slices.Clone(idx.Shape.Dims)
	one[ivd] = 1
	parts := []*hlo.Instruction{idx}
	for _, d := range idxBatch {
		if d < 0 || d >= r || d == ivd {
			return nil, nil, x.Errorf("bad %s", idxKey)
		}
		parts = append(parts, x.Emit("iota", idx.Shape.Elem, one, nil, "iota_dimension", strconv.FormatInt(d, 10)))
	}
	idx = x.Concatenate(parts, int(ivd))
	collapsed, _ := hlo.OptList(probe, collapsedKey)
	startMap, _ := hlo.OptList(probe, mapKey)
	for _, d := range opBatch {
		if slices.Contains(startMap, d) {
			// An index component for a batching dim (which the batch
			// position overrides, as in the evaluator): not expressible
			// with the dim collapsed; left for the lowering to name.
			x.Out = x.Out[:mark]
			return orig, attrs, nil
		}
	}
	collapsed = append(collapsed, opBatch...)
	slices.Sort(collapsed)
	attrs = withAttr(attrs, collapsedKey, hlo.IntsText(collapsed))
	attrs = withAttr(attrs, mapKey, hlo.IntsText(append(startMap, opBatch...)))
	attrs = withoutAttr(withoutAttr(attrs, opKey), idxKey)
	return idx, attrs, nil
}
