package verify

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"slices"
	"strings"
)

// Shape inference for the windowed and indexed ops, batch norm, map and the
// single-operand collectives (XLA's ShapeInference, the parts the corpus
// uses). A nil shape means "not inferred": the written one is taken.

func (v *verifier) inferMore(in *hlo.Instruction, ops []*hlo.Shape) (*hlo.Shape, error) {
	for _, s := range ops {
		if s == nil {
			return nil, nil
		}
	}
	switch in.Opcode {
	case hlo.OpConvolution:
		return inferConvolution(in, ops)
	case hlo.OpReduceWindow:
		return inferReduceWindow(in, ops)
	case hlo.OpSelectAndScatter:
		if err := need(ops, 3); err != nil {
			return nil, err
		}
		return ops[0], nil
	case hlo.OpGather:
		return inferGather(in, ops)
	case hlo.OpScatter:
		n := len(ops) / 2
		if len(ops) < 3 || len(ops) != 2*n+1 {
			return nil, fmt.Errorf("scatter takes operands, indices and as many updates")
		}
		for _, k := range []string{"update_window_dims", "inserted_window_dims"} {
			if d, err := hlo.ListAttr(in, k); err == nil && !slices.IsSorted(d) {
				return nil, fmt.Errorf("%s=%v: must be sorted", k, d)
			}
		}
		if n == 1 {
			return ops[0], nil
		}
		return &hlo.Shape{IsTuple: true, Tuple: append([]*hlo.Shape{}, ops[:n]...)}, nil
	case hlo.OpBatchNormTraining, hlo.OpBatchNormGrad:
		if err := need(ops, map[string]int{"batch-norm-training": 3, "batch-norm-grad": 5}[in.Opcode]); err != nil {
			return nil, err
		}
		fi, err := hlo.IntAttr(in, "feature_index")
		if err != nil {
			return nil, err
		}
		if fi < 0 || int(fi) >= len(ops[0].Dims) {
			return nil, fmt.Errorf("feature_index %d out of range of %s", fi, ops[0])
		}
		f := hlo.Array(ops[0].Elem, []int64{ops[0].Dims[fi]})
		if err := checkFeatureOperands(ops, f); err != nil {
			return nil, err
		}
		return &hlo.Shape{IsTuple: true, Tuple: []*hlo.Shape{hlo.Array(ops[0].Elem, ops[0].Dims), f, f}}, nil
	case hlo.OpBatchNormInference:
		if err := need(ops, 5); err != nil {
			return nil, err
		}
		fi, err := hlo.IntAttr(in, "feature_index")
		if err != nil {
			return nil, err
		}
		if fi < 0 || int(fi) >= len(ops[0].Dims) {
			return nil, fmt.Errorf("feature_index %d out of range of %s", fi, ops[0])
		}
		if err := checkFeatureOperands(ops, hlo.Array(ops[0].Elem, []int64{ops[0].Dims[fi]})); err != nil {
			return nil, err
		}
		return hlo.Array(ops[0].Elem, ops[0].Dims), nil
	case hlo.OpMap:
		if len(ops) == 0 {
			return nil, fmt.Errorf("map takes operands")
		}
		r := v.calleeRoot(in, "to_apply")
		if r == nil {
			return nil, nil
		}
		if r.IsTuple || r.Elem == "" || len(r.Dims) != 0 {
			return nil, fmt.Errorf("to_apply returns %s, not a scalar", r)
		}
		// Each parameter is a scalar of its operand's element type (XLA's
		// hlo_verifier_test.cc MapOperandComputationMismatch).
		name, _ := in.Attr("to_apply")
		if c := v.m.Computation(strings.TrimPrefix(name, "%")); c != nil {
			for _, p := range c.Instructions {
				k := p.ParamNumber
				if p.Opcode != hlo.OpParameter || p.Shape == nil || k < 0 || int(k) >= len(ops) || ops[k] == nil || ops[k].IsTuple {
					continue
				}
				if p.Shape.IsTuple || len(p.Shape.Dims) != 0 || p.Shape.Elem != ops[k].Elem {
					return nil, fmt.Errorf("operand %d is %s, and %s's parameter %d is %s (want %s[])", k, ops[k], c.Name, k, p.Shape, ops[k].Elem)
				}
			}
		}
		return hlo.Array(r.Elem, ops[0].Dims), nil
	case hlo.OpGetDimensionSize:
		return hlo.Array("s32", nil), nil
	case hlo.OpAfterAll:
		return hlo.Array("token", nil), nil
	case hlo.OpRngGetAndUpdateState:
		if len(ops) != 0 {
			return nil, fmt.Errorf("takes no operands, has %d", len(ops))
		}
		return hlo.Array("u64", []int64{2}), nil

	case hlo.OpRng:
		for i, s := range ops {
			if s.IsTuple || len(s.Dims) != 0 {
				return nil, fmt.Errorf("operand %d is %s, not a scalar", i, s)
			}
		}

	case hlo.OpAllReduce, hlo.OpCollectivePermute, hlo.OpCollectiveBroadcast:
		if len(ops) == 1 {
			return ops[0], nil
		}
	}
	return nil, nil
}

// checkFeatureOperands: a batch norm's per-feature operands (all but the
// first, and but a gradient the operand's shape) have one value per feature.
func checkFeatureOperands(ops []*hlo.Shape, f *hlo.Shape) error {
	for i, s := range ops[1:] {
		if i == 3 && hlo.SameDims(s, ops[0]) {
			continue // batch-norm-grad's grad_output
		}
		if !hlo.SameDims(s, f) {
			return fmt.Errorf("operand %d is %s, want one value per feature: %s", i+1, s, f)
		}
	}
	return nil
}

// outputSize is a window's output extent over an input of n elements.
func outputSize(n int64, w hlo.Window, i int) int64 {
	if n > 0 {
		n = (n-1)*w.LhsDil[i] + 1
	}
	n += w.PadLo[i] + w.PadHi[i]
	k := (w.Size[i]-1)*w.RhsDil[i] + 1
	if n < k || w.Stride[i] <= 0 {
		return 0
	}
	return (n-k)/w.Stride[i] + 1
}

func inferConvolution(in *hlo.Instruction, ops []*hlo.Shape) (*hlo.Shape, error) {
	if err := need(ops, 2); err != nil || in.Shape == nil {
		return nil, err
	}
	labels, ok := in.Attr("dim_labels")
	if !ok {
		return nil, fmt.Errorf("no dim_labels")
	}
	d, err := hlo.ParseDimLabels(labels)
	if err != nil {
		return nil, err
	}
	lhs, rhs := ops[0], ops[1]
	rank := len(d.LhsSpatial) + 2
	if len(lhs.Dims) != rank || len(rhs.Dims) != rank || len(in.Shape.Dims) != rank {
		return nil, fmt.Errorf("dim_labels %s for %s and %s", labels, lhs, rhs)
	}
	wv, _ := in.Attr("window")
	w, err := hlo.ParseWindow(wv, len(d.LhsSpatial))
	if err != nil {
		return nil, err
	}
	groups := int64(1)
	if _, ok := in.Attr("feature_group_count"); ok {
		if groups, err = hlo.IntAttr(in, "feature_group_count"); err != nil {
			return nil, err
		}
	}
	batchGroups := int64(1)
	if _, ok := in.Attr("batch_group_count"); ok {
		if batchGroups, err = hlo.IntAttr(in, "batch_group_count"); err != nil {
			return nil, err
		}
	}
	if groups <= 0 || batchGroups <= 0 || lhs.Dims[d.LhsFeature] != rhs.Dims[d.RhsIn]*groups {
		return nil, fmt.Errorf("input features %d are not kernel input features %d x feature_group_count %d",
			lhs.Dims[d.LhsFeature], rhs.Dims[d.RhsIn], groups)
	}
	out := make([]int64, rank)
	out[d.OutBatch] = lhs.Dims[d.LhsBatch] / batchGroups
	out[d.OutFeature] = rhs.Dims[d.RhsOut]
	for i := range d.LhsSpatial {
		if w.Size[i] != rhs.Dims[d.RhsSpatial[i]] {
			return nil, fmt.Errorf("window size %d for a kernel of %d in spatial dimension %d", w.Size[i], rhs.Dims[d.RhsSpatial[i]], i)
		}
		out[d.OutSpatial[i]] = outputSize(lhs.Dims[d.LhsSpatial[i]], w, i)
	}
	return hlo.Array(in.Shape.Elem, out), nil
}

func inferReduceWindow(in *hlo.Instruction, ops []*hlo.Shape) (*hlo.Shape, error) {
	n := len(ops) / 2
	if n == 0 || len(ops) != 2*n {
		return nil, fmt.Errorf("reduce-window takes operands and as many init values, not %d operands", len(ops))
	}
	for _, o := range ops[:n] {
		if o.IsTuple || !slices.Equal(o.Dims, ops[0].Dims) {
			return nil, fmt.Errorf("the operands %s and %s differ in shape", ops[0], o)
		}
	}
	wv, _ := in.Attr("window")
	w, err := hlo.ParseWindow(wv, len(ops[0].Dims))
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(ops[0].Dims))
	for i, d := range ops[0].Dims {
		out[i] = outputSize(d, w, i)
	}
	if n == 1 {
		return hlo.Array(ops[1].Elem, out), nil
	}
	t := &hlo.Shape{IsTuple: true}
	for _, init := range ops[n:] {
		t.Tuple = append(t.Tuple, hlo.Array(init.Elem, out))
	}
	return t, nil
}

func inferGather(in *hlo.Instruction, ops []*hlo.Shape) (*hlo.Shape, error) {
	if err := need(ops, 2); err != nil {
		return nil, err
	}
	src, idx := ops[0], ops[1]
	offsetDims, _ := hlo.OptList(in, "offset_dims")
	collapsed, _ := hlo.OptList(in, "collapsed_slice_dims")
	opBatch, _ := hlo.OptList(in, "operand_batching_dims")
	idxBatch, _ := hlo.OptList(in, "start_indices_batching_dims")
	startMap, _ := hlo.OptList(in, "start_index_map")
	sizes, err := hlo.ListAttr(in, "slice_sizes")
	if err != nil {
		return nil, err
	}
	ivd, err := hlo.IntAttr(in, "index_vector_dim")
	if err != nil {
		return nil, err
	}
	if len(sizes) != len(src.Dims) {
		return nil, fmt.Errorf("slice_sizes has %d entries for %s", len(sizes), src)
	}
	for d, s := range sizes {
		if s < 0 || s > src.Dims[d] {
			return nil, fmt.Errorf("slice size %d out of range of dimension %d of %s", s, d, src)
		}
	}
	if ivd < 0 || ivd > int64(len(idx.Dims)) {
		return nil, fmt.Errorf("index_vector_dim %d out of range of %s", ivd, idx)
	}
	nvec := int64(1)
	if ivd < int64(len(idx.Dims)) {
		nvec = idx.Dims[ivd]
	}
	if int64(len(startMap)) != nvec {
		return nil, fmt.Errorf("start_index_map has %d entries for index vectors of %d", len(startMap), nvec)
	}
	if err := hlo.CheckIndexMap("start_index_map", startMap, len(src.Dims)); err != nil {
		return nil, err
	}
	if err := hlo.CheckBatching(src.Dims, opBatch, idx.Dims, idxBatch); err != nil {
		return nil, err
	}
	var batch []int64
	for d, n := range idx.Dims {
		if int64(d) != ivd {
			batch = append(batch, n)
		}
	}
	_, window, err := hlo.IndexingDims(len(batch)+len(offsetDims), offsetDims, len(src.Dims), collapsed, opBatch)
	if err != nil {
		return nil, err
	}
	rank := len(batch) + len(offsetDims)
	out := make([]int64, rank)
	isOffset := make([]bool, rank)
	for k, d := range offsetDims {
		out[d] = sizes[window[k]]
		isOffset[d] = true
	}
	b := 0
	for d := range out {
		if !isOffset[d] {
			out[d] = batch[b]
			b++
		}
	}
	return hlo.Array(src.Elem, out), nil
}

// arity is the operand count of the ops that have a fixed one (min, max;
// max -1 for any number).
var arity = func() map[string][2]int {
	a := map[string][2]int{}
	set := func(ops string, lo, hi int) {
		for op := range hlo.OpSet(ops) {
			a[op] = [2]int{lo, hi}
		}
	}
	set(`abs negate sign floor ceil round-nearest-afz round-nearest-even sqrt rsqrt cbrt exponential
		exponential-minus-one log log-plus-one logistic sine cosine tan tanh erf is-finite not popcnt
		count-leading-zeros convert bitcast-convert reduce-precision acos acosh asin asinh atanh sinh cosh lgamma digamma erf-inv erfc bessel-i1e
		reshape bitcast copy transpose broadcast reverse slice get-tuple-element while real imag
		get-dimension-size copy-start copy-done async-update async-done all-reduce-done all-gather-done
		collective-permute-done domain topk fft cholesky`, 1, 1)
	set(`add-dependency`, 2, 2)
	set(`ragged-dot`, 3, 3)
	set(`add subtract multiply divide remainder power maximum minimum atan2 next-after and or xor shift-left
		shift-right-logical shift-right-arithmetic compare dot convolution pad gather rng
		set-dimension-size complex triangular-solve`, 2, 2)
	set(`select clamp select-and-scatter batch-norm-training`, 3, 3)
	set(`batch-norm-inference batch-norm-grad`, 5, 5)
	set(`parameter constant iota partition-id replica-id`, 0, 0)
	set(`dynamic-slice`, 2, -1)
	set(`dynamic-update-slice scatter`, 3, -1)
	set(`reduce reduce-window`, 2, -1)
	set(`conditional`, 2, -1)
	set(`map sort all-reduce all-gather reduce-scatter all-to-all rng-bit-generator collective-permute
		collective-broadcast all-reduce-start all-gather-start collective-permute-start`, 1, -1)
	return a
}()

func checkArity(in *hlo.Instruction) error {
	r, ok := arity[in.Opcode]
	if !ok {
		return nil
	}
	n := len(in.Operands)
	switch {
	case r[0] == r[1] && n != r[0]:
		return fmt.Errorf("takes %d operands, has %d", r[0], n)
	case n < r[0]:
		return fmt.Errorf("takes at least %d operands, has %d", r[0], n)
	case r[1] >= 0 && n > r[1]:
		return fmt.Errorf("takes at most %d operands, has %d", r[1], n)
	}
	return nil
}

// checkApplied checks a per-element computation named by attr: it takes
// nparams scalar parameters and returns a scalar (results == 1) or a tuple
// of that many scalars.
func (v *verifier) checkApplied(in *hlo.Instruction, attr string, nparams, results int) error {
	name, ok := in.Attr(attr)
	if !ok {
		return nil
	}
	c := v.m.Computation(strings.TrimPrefix(name, "%"))
	if c == nil || c.Root == nil || c.Root.Shape == nil {
		return nil
	}
	np := 0
	for _, p := range c.Instructions {
		if p.Opcode == hlo.OpParameter {
			np++
			if p.Shape == nil || p.Shape.IsTuple || len(p.Shape.Dims) != 0 {
				return fmt.Errorf("%s=%s: parameter %s is %s, not a scalar", attr, c.Name, p.Name, p.Shape)
			}
		}
	}
	if np != nparams {
		return fmt.Errorf("%s=%s takes %d parameters, want %d", attr, c.Name, np, nparams)
	}
	r := c.Root.Shape
	scalar := func(s *hlo.Shape) bool { return !s.IsTuple && len(s.Dims) == 0 && s.Elem != "" }
	switch {
	case results == 1 && scalar(r):
	case results > 1 && r.IsTuple && len(r.Tuple) == results:
		for _, t := range r.Tuple {
			if !scalar(t) {
				return fmt.Errorf("%s=%s returns %s, want %d scalars", attr, c.Name, r, results)
			}
		}
	default:
		return fmt.Errorf("%s=%s returns %s, want %d scalar(s)", attr, c.Name, r, results)
	}
	return nil
}

// checkAppliedComputations checks the per-element computations of the ops
// that have them, and that reductions start from scalars.
func (v *verifier) checkAppliedComputations(in *hlo.Instruction) error {
	n := len(in.Operands)
	switch in.Opcode {
	case hlo.OpReduce, hlo.OpReduceWindow:
		if n%2 != 0 {
			return fmt.Errorf("takes inputs and as many init values")
		}
		return v.checkApplied(in, "to_apply", n, n/2)
	case hlo.OpScatter:
		return v.checkApplied(in, "to_apply", n-1, (n-1)/2)
	case hlo.OpSort:
		return v.checkApplied(in, "to_apply", 2*n, 1)
	case hlo.OpMap:
		return v.checkApplied(in, "to_apply", n, 1)
	case hlo.OpSelectAndScatter:
		if err := v.checkApplied(in, "select", 2, 1); err != nil {
			return err
		}
		return v.checkApplied(in, "scatter", 2, 1)
	}
	return nil
}
