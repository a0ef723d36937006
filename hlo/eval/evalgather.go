package eval

import (
	"github.com/pulse-sim/pulse/hlo"
	"math"
)

// Gather and scatter, following the XLA operation semantics
// (https://openxla.org/xla/operation_semantics#gather), including the
// batching dimensions of newer dumps.

// indexVector reads the start-index vector for the batch position g (the
// indices' dimensions other than the index-vector one, in order).
func indexVector(idx *Value, ivd int64, g []int64, out []int64) {
	dims := idx.Shape.Dims
	pos := make([]int64, len(dims))
	k := 0
	for d := range dims {
		if int64(d) == ivd {
			continue
		}
		pos[d] = g[k]
		k++
	}
	n := int64(1)
	if ivd < int64(len(dims)) {
		n = dims[ivd]
	}
	for i := int64(0); i < n; i++ {
		if ivd < int64(len(dims)) {
			pos[ivd] = i
		}
		out[i] = intAt(idx, hlo.Flat(pos, dims))
	}
}

// batchPosOf maps each indices dimension (other than the index-vector one)
// to its rank among the batch dimensions.
func batchPosOf(ivd int64, d int64) int {
	if d > ivd {
		return int(d) - 1
	}
	return int(d)
}

func clamp64(x, lo, hi int64) int64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func (e *Evaluator) gather(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) != 2 {
		return nil, e.Fail(in, "takes an operand and start indices")
	}
	src, idx := ops[0], ops[1]
	offsetDims, _ := hlo.OptList(in, "offset_dims")
	collapsed, _ := hlo.OptList(in, "collapsed_slice_dims")
	startMap, _ := hlo.OptList(in, "start_index_map")
	opBatch, _ := hlo.OptList(in, "operand_batching_dims")
	idxBatch, _ := hlo.OptList(in, "start_indices_batching_dims")
	sizes, err := hlo.ListAttr(in, "slice_sizes")
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	ivd, err := hlo.IntAttr(in, "index_vector_dim")
	if err != nil || ivd < 0 || ivd > int64(len(idx.Shape.Dims)) {
		return nil, e.Fail(in, "index_vector_dim must be a dimension of the indices or their rank")
	}
	s := in.Shape
	rank := len(src.Shape.Dims)
	if len(sizes) != rank || len(opBatch) != len(idxBatch) {
		return nil, e.Fail(in, "slice_sizes has %d entries for rank %d", len(sizes), rank)
	}
	// Output dimensions that are not offset dimensions index the batch;
	// operand dimensions neither collapsed nor batching receive offsets.
	isOffset, window, err := hlo.IndexingDims(len(s.Dims), offsetDims, rank, collapsed, opBatch)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	nvec := int64(1)
	if ivd < int64(len(idx.Shape.Dims)) {
		nvec = idx.Shape.Dims[ivd]
	}
	if int64(len(startMap)) != nvec {
		return nil, e.Fail(in, "start_index_map has %d entries for index vectors of %d", len(startMap), nvec)
	}
	if err := hlo.CheckIndexMap("start_index_map", startMap, rank); err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	if err := hlo.CheckBatching(src.Shape.Dims, opBatch, idx.Shape.Dims, idxBatch); err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	out := NewArray(s)
	if len(src.Data) == 0 {
		return out, nil // an empty operand has nothing to read: zeros, as XLA's evaluator gives
	}
	oi := make([]int64, len(s.Dims))
	g := make([]int64, 0, len(s.Dims))
	vec := make([]int64, nvec)
	at := make([]int64, rank)
	for o := range out.Data {
		hlo.Unflatten(int64(o), s.Dims, oi)
		g = g[:0]
		for d, off := range isOffset {
			if !off {
				g = append(g, oi[d])
			}
		}
		indexVector(idx, ivd, g, vec)
		clear(at)
		for k, d := range startMap {
			at[d] = vec[k]
		}
		for d := range rank {
			at[d] = clamp64(at[d], 0, src.Shape.Dims[d]-sizes[d])
		}
		for i, d := range opBatch {
			at[d] = g[batchPosOf(ivd, idxBatch[i])]
		}
		for k, d := range window {
			at[d] += oi[offsetDims[k]]
		}
		out.Data[o] = src.Data[hlo.Flat(at, src.Shape.Dims)]
	}
	return out, nil
}

func (e *Evaluator) scatter(in *hlo.Instruction, ops []*Value) (*Value, error) {
	n := (len(ops) - 1) / 2
	if n < 1 || len(ops) != 2*n+1 {
		return nil, e.Fail(in, "takes operands, scatter indices and as many updates")
	}
	c, err := e.Callee(in, "to_apply")
	if err != nil {
		return nil, err
	}
	operands, idx, updates := ops[:n], ops[n], ops[n+1:]
	windowDims, _ := hlo.OptList(in, "update_window_dims")
	inserted, _ := hlo.OptList(in, "inserted_window_dims")
	toOperand, _ := hlo.OptList(in, "scatter_dims_to_operand_dims")
	opBatch, _ := hlo.OptList(in, "input_batching_dims")
	idxBatch, _ := hlo.OptList(in, "scatter_indices_batching_dims")
	ivd, err := hlo.IntAttr(in, "index_vector_dim")
	if err != nil || ivd < 0 || ivd > int64(len(idx.Shape.Dims)) {
		return nil, e.Fail(in, "index_vector_dim must be a dimension of the indices or their rank")
	}
	dims := operands[0].Shape.Dims
	rank := len(dims)
	udims := updates[0].Shape.Dims
	isWindow, window, err := hlo.IndexingDims(len(udims), windowDims, rank, inserted, opBatch)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	if err := hlo.CheckBatching(dims, opBatch, idx.Shape.Dims, idxBatch); err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	// The extent of the update window in each operand dimension.
	wsize := make([]int64, rank)
	for d := range wsize {
		wsize[d] = 1
	}
	for k, d := range window {
		wsize[d] = udims[windowDims[k]]
	}
	nvec := int64(1)
	if ivd < int64(len(idx.Shape.Dims)) {
		nvec = idx.Shape.Dims[ivd]
	}
	if int64(len(toOperand)) != nvec {
		return nil, e.Fail(in, "scatter_dims_to_operand_dims has %d entries for index vectors of %d", len(toOperand), nvec)
	}
	if err := hlo.CheckIndexMap("scatter_dims_to_operand_dims", toOperand, rank); err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	results := make([]*Value, n)
	for k, o := range operands {
		results[k] = &Value{Shape: o.Shape, Data: append([]float64{}, o.Data...)}
	}
	fast, assign := e.Reducer(c), isAssign(c)
	ui := make([]int64, len(udims))
	g := make([]int64, 0, len(udims))
	vec := make([]int64, nvec)
	start := make([]int64, rank)
	at := make([]int64, rank)
	args := make([]*Value, 2*n)
	for u := range updates[0].Data {
		hlo.Unflatten(int64(u), udims, ui)
		g = g[:0]
		for d, w := range isWindow {
			if !w {
				g = append(g, ui[d])
			}
		}
		indexVector(idx, ivd, g, vec)
		clear(start)
		for k, d := range toOperand {
			start[d] = vec[k]
		}
		for i, d := range opBatch {
			start[d] = g[batchPosOf(ivd, idxBatch[i])]
		}
		// A window that does not fit in the operand is skipped whole (XLA's
		// evaluator and TPU backend do the same).
		inside := true
		for d := range rank {
			if start[d] < 0 || start[d]+wsize[d] > dims[d] {
				inside = false
			}
			at[d] = start[d]
		}
		if !inside {
			continue
		}
		for k, d := range window {
			at[d] += ui[windowDims[k]]
		}
		j := hlo.Flat(at, dims)
		if n == 1 && (fast != "" || assign) {
			results[0].Data[j] = ApplyFast(fast, results[0].Shape.Elem, results[0].Data[j], updates[0].Data[u], assign)
			continue
		}
		for k := 0; k < n; k++ {
			args[k] = Scalar(results[k].Shape.Elem, results[k].Data[j])
			args[n+k] = Scalar(updates[k].Shape.Elem, updates[k].Data[u])
		}
		v, err := e.Call(c, args)
		if err != nil {
			return nil, err
		}
		for k := 0; k < n; k++ {
			results[k].Data[j] = component(v, n, k)
		}
	}
	if n == 1 {
		return &Value{Shape: in.Shape, Data: results[0].Data}, nil
	}
	t := &Value{Shape: in.Shape}
	for k := range results {
		t.Tuple = append(t.Tuple, &Value{Shape: in.Shape.Tuple[k], Data: results[k].Data})
	}
	return t, nil
}

// isAssign recognizes a scatter combiner that returns its second parameter
// (the update), XLA's "overwrite" scatter.
func isAssign(c *hlo.Computation) bool {
	if c.Root == nil || c.Root.Opcode != hlo.OpParameter {
		return false
	}
	np := 0
	for _, in := range c.Instructions {
		if in.Opcode == hlo.OpParameter {
			np++
		}
	}
	return np == 2 && c.Root.ParamNumber == 1
}

// applyFast combines old and new with a recognized binary reducer (or
// overwrites), rounding to elem.
func ApplyFast(op, elem string, a, x float64, assign bool) float64 {
	if assign {
		return x
	}
	if hlo.IsWide(elem) {
		return wideFast(op, elem, a, x)
	}
	switch op {
	case hlo.OpAdd:
		a += x
	case hlo.OpMultiply:
		a *= x
	case hlo.OpMaximum:
		if a == a && (x != x || x > a) {
			a = x
		}
	case hlo.OpMinimum:
		if a == a && (x != x || x < a) {
			a = x
		}
	case hlo.OpAnd:
		a = float64(int64(a) & int64(x))
	case hlo.OpOr:
		a = float64(int64(a) | int64(x))
	}
	return hlo.Round(elem, a)
}

func Scalar(elem string, x float64) *Value {
	return &Value{Shape: &hlo.Shape{Elem: elem}, Data: []float64{x}}
}

// component returns element k of a scalar result, or of a tuple of n.
func component(v *Value, n, k int) float64 {
	if n == 1 && v.Tuple == nil {
		return v.Data[0]
	}
	return v.Tuple[k].Data[0]
}

// wideFast is applyFast on s64/u64 values' carried bits (IsWide).
func wideFast(op, elem string, a, x float64) float64 {
	p, q := math.Float64bits(a), math.Float64bits(x)
	less := func(u, v uint64) bool {
		if elem == hlo.S64 {
			return int64(u) < int64(v)
		}
		return u < v
	}
	switch op {
	case hlo.OpAdd:
		p += q
	case hlo.OpMultiply:
		p *= q
	case hlo.OpMaximum:
		if less(p, q) {
			p = q
		}
	case hlo.OpMinimum:
		if less(q, p) {
			p = q
		}
	case hlo.OpAnd:
		p &= q
	case hlo.OpOr:
		p |= q
	}
	return math.Float64frombits(p)
}
