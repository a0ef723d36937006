package eval

import (
	"github.com/pulse-sim/pulse/hlo"
	"math"
)

// The batch-norm ops, computed in float64 and rounded once to the element
// type (XLA expands them into reductions and elementwise ops in the
// operand's type, so results may differ from XLA's in the last bits of
// bf16/f16; f32 agrees to a few ulps).

// featureSums returns, per feature, the number of elements and the sums of
// f(x) over every other dimension.
type featureLayout struct {
	n        int64 // elements per feature
	features int64
	inner    int64 // elements after the feature dimension
}

func layoutFor(dims []int64, fi int64) featureLayout {
	l := featureLayout{features: dims[fi], inner: 1}
	for d := fi + 1; d < int64(len(dims)); d++ {
		l.inner *= dims[d]
	}
	var total int64 = 1
	for _, d := range dims {
		total *= d
	}
	if l.features > 0 {
		l.n = total / l.features
	}
	return l
}

// feature returns the feature index of flat position i.
func (l featureLayout) feature(i int64) int64 { return i / l.inner % l.features }

func (e *Evaluator) batchNorm(in *hlo.Instruction, ops []*Value) (*Value, error) {
	fi, err := hlo.IntAttr(in, "feature_index")
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	epsAttr, _ := in.Attr("epsilon")
	eps, err := hlo.ParseFloatAttr(epsAttr)
	if err != nil {
		return nil, e.Fail(in, "bad epsilon %q", epsAttr)
	}
	x := ops[0]
	if fi < 0 || int(fi) >= len(x.Shape.Dims) {
		return nil, e.Fail(in, "feature_index %d out of range", fi)
	}
	l := layoutFor(x.Shape.Dims, fi)
	elem := x.Shape.Elem
	moments := func() (mean, variance []float64) {
		mean, variance = make([]float64, l.features), make([]float64, l.features)
		for i, v := range x.Data {
			mean[l.feature(int64(i))] += v
		}
		for f := range mean {
			mean[f] /= float64(l.n)
		}
		for i, v := range x.Data {
			d := v - mean[l.feature(int64(i))]
			variance[l.feature(int64(i))] += d * d
		}
		for f := range variance {
			variance[f] /= float64(l.n)
		}
		return mean, variance
	}
	normalize := func(scale, offset, mean, variance []float64) []float64 {
		out := make([]float64, len(x.Data))
		for i, v := range x.Data {
			f := l.feature(int64(i))
			out[i] = hlo.Round(elem, (v-mean[f])/math.Sqrt(variance[f]+eps)*scale[f]+offset[f])
		}
		return out
	}
	roundAll := func(v []float64) []float64 {
		for i := range v {
			v[i] = hlo.Round(elem, v[i])
		}
		return v
	}
	switch in.Opcode {
	case hlo.OpBatchNormInference:
		if len(ops) != 5 {
			return nil, e.Fail(in, "takes operand, scale, offset, mean and variance")
		}
		return &Value{Shape: in.Shape, Data: normalize(ops[1].Data, ops[2].Data, ops[3].Data, ops[4].Data)}, nil
	case hlo.OpBatchNormTraining:
		if len(ops) != 3 {
			return nil, e.Fail(in, "takes operand, scale and offset")
		}
		mean, variance := moments()
		out := normalize(ops[1].Data, ops[2].Data, mean, variance)
		return tupleOf(in.Shape, out, roundAll(mean), roundAll(variance)), nil
	}
	// batch-norm-grad(operand, scale, mean, variance, grad_output)
	if len(ops) != 5 {
		return nil, e.Fail(in, "takes operand, scale, mean, variance and grad_output")
	}
	scale, mean, variance, dy := ops[1].Data, ops[2].Data, ops[3].Data, ops[4].Data
	sumDy := make([]float64, l.features)
	sumDyXc := make([]float64, l.features)
	for i, g := range dy {
		f := l.feature(int64(i))
		sumDy[f] += g
		sumDyXc[f] += g * (x.Data[i] - mean[f])
	}
	dx := make([]float64, len(x.Data))
	n := float64(l.n)
	for i, g := range dy {
		f := l.feature(int64(i))
		inv := 1 / math.Sqrt(variance[f]+eps)
		xc := x.Data[i] - mean[f]
		dx[i] = hlo.Round(elem, scale[f]*inv/n*(n*g-sumDy[f]-xc*sumDyXc[f]*inv*inv))
	}
	dScale := make([]float64, l.features)
	for f := range dScale {
		dScale[f] = hlo.Round(elem, sumDyXc[f]/math.Sqrt(variance[f]+eps))
	}
	return tupleOf(in.Shape, dx, dScale, roundAll(sumDy)), nil
}

func tupleOf(s *hlo.Shape, parts ...[]float64) *Value {
	t := &Value{Shape: s}
	for i, p := range parts {
		t.Tuple = append(t.Tuple, &Value{Shape: s.Tuple[i], Data: p})
	}
	return t
}
