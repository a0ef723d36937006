package expand

import (
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
)

// ExpandBatchNorms rewrites batch-norm-training, batch-norm-inference and
// batch-norm-grad into reductions and elementwise ops, as XLA's
// BatchNormExpander does for TPUs: the lowering then fuses them into its
// reduce and loop kernels. Statistics are two-pass (the variance sums
// squared deviations from the mean, as the evaluator does), in the operand's
// type. The results are the tuples the originals return, so their
// get-tuple-element users are untouched.
func ExpandBatchNorms(m *hlo.Module) error {
	for _, op := range []string{"batch-norm-training", "batch-norm-inference", "batch-norm-grad"} {
		if err := rewriteEach(m, op, func(x *rewriter, ops []*hlo.Instruction) error { return x.expandBatchNorm(ops) }); err != nil {
			return err
		}
	}
	return nil
}

func (x *rewriter) expandBatchNorm(ops []*hlo.Instruction) error {
	in := x.At
	want := map[string]int{"batch-norm-training": 3, "batch-norm-inference": 5, "batch-norm-grad": 5}[in.Opcode]
	if len(ops) != want {
		return x.Errorf("takes %d operands", want)
	}
	xv := ops[0]
	dims := xv.Shape.Dims
	fi, err := strconv.ParseInt(hlo.AttrOr(in, "feature_index", ""), 10, 64)
	if err != nil || fi < 0 || int(fi) >= len(dims) {
		return x.Errorf("bad feature_index")
	}
	eps, err := hlo.ParseFloatAttr(hlo.AttrOr(in, "epsilon", ""))
	if err != nil {
		return x.Errorf("bad epsilon")
	}
	elem := xv.Shape.Elem
	if !hlo.IsRealFloat(elem) {
		return x.Errorf("operand type %s is not a float type", elem)
	}
	var others []int64
	for d := range dims {
		if int64(d) != fi {
			others = append(others, int64(d))
		}
	}
	n := hlo.Prod(dims) / max(dims[fi], 1)
	C := []int64{dims[fi]}
	scalar := func(v float64) *hlo.Instruction {
		return x.Constant(elem, strconv.FormatFloat(v, 'g', -1, 64))
	}
	perFeature := func(v float64) *hlo.Instruction { return x.Broadcast(scalar(v), C, nil) }
	spread := func(v *hlo.Instruction) *hlo.Instruction { return x.Broadcast(v, dims, []int64{fi}) }
	sum := func(v *hlo.Instruction) *hlo.Instruction { return x.ReduceSum(v, others) }
	mul := func(a, b *hlo.Instruction) *hlo.Instruction { return x.Binary("multiply", a, b) }
	sub := func(a, b *hlo.Instruction) *hlo.Instruction { return x.Binary("subtract", a, b) }
	add := func(a, b *hlo.Instruction) *hlo.Instruction { return x.Binary("add", a, b) }
	div := func(a, b *hlo.Instruction) *hlo.Instruction { return x.Binary("divide", a, b) }
	rsqrt := func(a *hlo.Instruction) *hlo.Instruction {
		return x.Emit("rsqrt", elem, a.Shape.Dims, []*hlo.Instruction{a})
	}
	tuple := func(parts ...*hlo.Instruction) {
		s := &hlo.Shape{IsTuple: true}
		for _, p := range parts {
			s.Tuple = append(s.Tuple, p.Shape)
		}
		x.Emit("tuple", "", nil, parts).Shape = s
	}

	switch in.Opcode {
	case hlo.OpBatchNormTraining:
		scale, offset := ops[1], ops[2]
		mean := div(sum(xv), perFeature(float64(n)))
		xc := sub(xv, spread(mean))
		variance := div(sum(mul(xc, xc)), perFeature(float64(n)))
		inv := rsqrt(add(variance, perFeature(eps)))
		out := add(mul(xc, spread(mul(inv, scale))), spread(offset))
		tuple(out, mean, variance)
	case hlo.OpBatchNormInference:
		scale, offset, mean, variance := ops[1], ops[2], ops[3], ops[4]
		inv := rsqrt(add(variance, perFeature(eps)))
		xc := sub(xv, spread(mean))
		add(mul(xc, spread(mul(inv, scale))), spread(offset))
	default: // batch-norm-grad
		scale, mean, variance, dy := ops[1], ops[2], ops[3], ops[4]
		xc := sub(xv, spread(mean))
		sumDy := sum(dy)
		sumDyXc := sum(mul(dy, xc))
		inv := rsqrt(add(variance, perFeature(eps)))
		dScale := mul(sumDyXc, inv)
		N := float64(n)
		// dx = scale*inv/N * (N*dy - sum(dy) - xc*sum(dy*xc)*inv^2)
		k := spread(div(mul(scale, inv), perFeature(N)))
		inner := sub(sub(mul(dy, x.Broadcast(scalar(N), dims, nil)), spread(sumDy)), mul(xc, spread(mul(sumDyXc, mul(inv, inv)))))
		dx := mul(k, inner)
		tuple(dx, dScale, sumDy)
	}
	return nil
}
