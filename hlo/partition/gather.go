package partition

import (
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// gather keeps what a gather leaves alone split: an operand dimension it
// neither indexes nor slices (taken whole into an offset dimension of the
// result) keeps its split there, and the indices' batch dimensions keep
// theirs in the result's batch dimensions (an embedding lookup of a
// batch-split token array gives batch-split rows). An operand batching
// dimension is split as its indices' dimension is. What the gather
// indexes is gathered whole first.
func (p *partitioner) gather(in *hlo.Instruction, ops []*val) error {
	list := func(key string) []int64 {
		v, _ := hlo.OptList(in, key)
		return v
	}
	offsetDims, collapsed, startMap := list("offset_dims"), list("collapsed_slice_dims"), list("start_index_map")
	opBatch, idxBatch := list("operand_batching_dims"), list("start_indices_batching_dims")
	sizes := list("slice_sizes")
	ivd, err := hlo.IntAttr(in, "index_vector_dim")
	if err != nil {
		return p.replicated(in, ops, "a gather without index_vector_dim is computed whole")
	}
	operand, indices := ops[0], ops[1]
	if operand.tuple != nil || indices.tuple != nil || len(sizes) != len(operand.global.Dims) {
		return p.replicated(in, ops, "a gather of this form is computed whole")
	}
	src, idx := dimsOnly(operand.sh), dimsOnly(indices.sh)
	opT, idxT := Replicated(len(src.Dims)), Replicated(len(idx.Dims))
	out := Replicated(len(in.Shape.Dims))
	take := axisPool{}.take
	// The result's batch dimensions are the indices' dimensions but the
	// index vector's, in order, at the positions offset_dims leaves.
	var batchOut []int
	for d := range in.Shape.Dims {
		if !slices.Contains(offsetDims, int64(d)) {
			batchOut = append(batchOut, d)
		}
	}
	k := 0
	for d := range idx.Dims {
		if int64(d) == ivd {
			continue
		}
		if k < len(batchOut) {
			a := take(idx.Dims[d])
			idxT.Dims[d], out.Dims[batchOut[k]] = a, slices.Clone(a)
			if j := slices.Index(idxBatch, int64(d)); j >= 0 {
				opT.Dims[opBatch[j]] = slices.Clone(a)
			}
		}
		k++
	}
	// Offset dimensions: the operand's dimensions that are neither
	// collapsed nor batching, in order.
	k = 0
	for d := range src.Dims {
		if slices.Contains(collapsed, int64(d)) || slices.Contains(opBatch, int64(d)) {
			continue
		}
		if k < len(offsetDims) && !slices.Contains(startMap, int64(d)) && sizes[d] == operand.global.Dims[d] {
			a := take(src.Dims[d])
			opT.Dims[d], out.Dims[offsetDims[k]] = a, slices.Clone(a)
		}
		k++
	}
	if _, err := p.mesh.LocalDims(out, in.Shape.Dims); err != nil {
		return p.replicated(in, ops, "a gather whose split would not divide its result is computed whole")
	}
	o, err := p.reshard(operand, opT)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	ix, err := p.reshard(indices, idxT)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	localOp, _ := p.mesh.LocalDims(opT, operand.global.Dims)
	local := slices.Clone(sizes)
	for d := range local {
		if len(opT.Dims[d]) > 0 {
			local[d] = localOp[d]
		}
	}
	return p.emitAs(in, out, []string{o.name, ix.name}, map[string]string{"slice_sizes": hlo.IntsText(local)})
}

// scatter keeps what a scatter leaves alone split: an operand dimension
// it neither indexes nor inserts into, updated whole by a window
// dimension of the updates, keeps its split, the updates' window
// dimension split with it. Into an operand that is the combiner's
// identity (the zeros of an embedding gradient, with an add), updates
// split along their scatter dimensions are scattered where they are,
// leaving partial sums combined later (an all-reduce or reduce-scatter), as
// XLA's partitioner does; otherwise the updates' scatter dimensions and
// the indices are gathered whole.
func (p *partitioner) scatter(in *hlo.Instruction, ops []*val) error {
	if len(ops) != 3 || in.Shape.IsTuple {
		return p.replicated(in, ops, "a scatter of several operands is computed whole")
	}
	list := func(key string) []int64 {
		v, _ := hlo.OptList(in, key)
		return v
	}
	windowDims, inserted, toOperand := list("update_window_dims"), list("inserted_window_dims"), list("scatter_dims_to_operand_dims")
	opBatch, idxBatch := list("input_batching_dims"), list("scatter_indices_batching_dims")
	if len(opBatch) != len(idxBatch) {
		return p.replicated(in, ops, "a scatter whose batching dimensions do not pair up is computed whole")
	}
	ivd, err := hlo.IntAttr(in, "index_vector_dim")
	if err != nil {
		return p.replicated(in, ops, "a scatter without index_vector_dim is computed whole")
	}
	operand, indices, updates := ops[0], ops[1], ops[2]
	if operand.tuple != nil || indices.tuple != nil || updates.tuple != nil {
		return p.replicated(in, ops, "a scatter of tuples is computed whole")
	}
	src, idx, upd := dimsOnly(operand.sh), dimsOnly(indices.sh), dimsOnly(updates.sh)
	opT, idxT, updT := Replicated(len(src.Dims)), Replicated(len(idx.Dims)), Replicated(len(upd.Dims))
	take := axisPool{}.take
	k := 0
	for d := range src.Dims {
		if slices.Contains(inserted, int64(d)) || slices.Contains(opBatch, int64(d)) {
			continue
		}
		if k < len(windowDims) && !slices.Contains(toOperand, int64(d)) && updates.global.Dims[windowDims[k]] == operand.global.Dims[d] {
			a := take(src.Dims[d])
			opT.Dims[d], updT.Dims[windowDims[k]] = a, slices.Clone(a)
		}
		k++
	}
	// Batching dimensions (a take_along_axis's gradient, one row of
	// indices per batch element): the operand's, the indices' and the
	// updates' split alike, each device scattering into its own rows. The
	// split is the updates' or the indices' where they have one, as the
	// operand is usually zeros just made.
	scatterDims := func() []int {
		var out []int
		for d := range upd.Dims {
			if !slices.Contains(windowDims, int64(d)) {
				out = append(out, d)
			}
		}
		return out
	}()
	updOfIdx := func(id int64) int {
		k := 0
		for d := range idx.Dims {
			if int64(d) == ivd {
				continue
			}
			if int64(d) == id {
				if k < len(scatterDims) {
					return scatterDims[k]
				}
				return -1
			}
			k++
		}
		return -1
	}
	for j, od := range opBatch {
		id := idxBatch[j]
		ud := updOfIdx(id)
		if int(od) >= len(src.Dims) || int(id) >= len(idx.Dims) || ud < 0 {
			return p.replicated(in, ops, "a scatter with batching dimensions out of range is computed whole")
		}
		want := upd.Dims[ud]
		if len(want) == 0 {
			want = idx.Dims[id]
		}
		if len(want) == 0 {
			want = src.Dims[od]
		}
		a := take(want)
		opT.Dims[od], idxT.Dims[id], updT.Dims[ud] = a, slices.Clone(a), slices.Clone(a)
	}
	// Partial sums: updates split along their scatter dimensions, the
	// indices split alike, into the combiner's identity.
	var partial []int
	if len(opBatch) == 0 && p.identityOperand(in, operand) {
		var scatterDims []int
		for d := range upd.Dims {
			if !slices.Contains(windowDims, int64(d)) {
				scatterDims = append(scatterDims, d)
			}
		}
		ok := true
		k := 0
		for d := range idx.Dims {
			if int64(d) == ivd {
				if len(idx.Dims[d]) > 0 {
					ok = false
				}
				continue
			}
			if k >= len(scatterDims) || !slices.Equal(idx.Dims[d], upd.Dims[scatterDims[k]]) {
				ok = false
				break
			}
			k++
		}
		if ok {
			for d := range idx.Dims {
				if int64(d) == ivd || len(idx.Dims[d]) == 0 {
					continue
				}
				a := take(idx.Dims[d])
				if a == nil {
					ok = false
					break
				}
				idxT.Dims[d] = a
				partial = append(partial, a...)
			}
			if ok {
				k := 0
				for id := range idx.Dims {
					if int64(id) == ivd {
						continue
					}
					updT.Dims[scatterDims[k]] = slices.Clone(idxT.Dims[id])
					k++
				}
			} else {
				partial = nil
				idxT = Replicated(len(idx.Dims))
			}
		}
	}
	out := opT.Clone()
	if len(partial) > 0 {
		slices.Sort(partial)
		out.Partial, out.Reducer = partial, attr(in, "to_apply")
	}
	var names []string
	for i, o := range ops {
		to := []Sharding{opT, idxT, updT}[i]
		r, err := p.reshard(o, to)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		names = append(names, r.name)
	}
	return p.emitAs(in, out, names, nil)
}

// identityOperand: the scatter's operand is a broadcast constant that is
// its combiner's identity (identityInit's test, on the scatter's
// to_apply).
func (p *partitioner) identityOperand(in *hlo.Instruction, operand *val) bool {
	b := p.defs[in.Operands[0].Name]
	if b == nil || b.Opcode != "broadcast" || len(b.Operands) != 1 {
		return false
	}
	probe := &hlo.Instruction{Operands: []*hlo.Operand{nil, {Name: b.Operands[0].Name}}}
	return p.identityInit(probe, attr(in, "to_apply"))
}
