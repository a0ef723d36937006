package eval

import (
	"hash/fnv"
	"math"
	"strconv"
	"unsafe"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/pulse-sim/pulse/isa"
)

// Monte Carlo arithmetic (D. S. Parker, 1997; the idea behind Verificarlo
// and CADNA): evaluating a module again with every rounded result moved
// at random by up to one unit in the last place shows how much each
// output depends on rounding. An output that moves by 1e-7 under that
// noise is well conditioned, and a simulated chip that differs from the
// reference by 1e-3 there is wrong. An output that moves by 10% is decided
// by rounding alone, and no implementation can be judged on it.
// --check uses this to tell the two apart (docs/RATIONALE.md, "Checking
// what rounding decides").

// rounds lists the opcodes whose float results are rounded: everything
// else (data movement, selection, comparison, max and min, negation,
// conversion) yields values both the reference and the chip compute
// exactly, and stays unperturbed.
var rounds = map[string]bool{
	"add": true, "subtract": true, "multiply": true, "divide": true,
	"remainder": true, "power": true, "atan2": true,
	"exponential": true, "exponential-minus-one": true, "log": true,
	"log-plus-one": true, "sqrt": true, "rsqrt": true, "cbrt": true,
	"tanh": true, "logistic": true, "sine": true, "cosine": true,
	"tan": true, "erf": true,
	"dot": true, "ragged-dot": true, "convolution": true, "reduce": true, "reduce-window": true,
	"select-and-scatter": true, "scatter": true,
	"batch-norm-training": true, "batch-norm-inference": true, "batch-norm-grad": true,
	// cholesky, triangular-solve: their expansions' ops are perturbed
}

// perturb moves every element of a rounded float result of in to a random
// neighbour within one ulp of its type (x-ulp, x, x+ulp with probabilities
// 1/4, 1/2, 1/4), drawn from a hash of the seed, the instruction and the
// element's index: deterministic, and independent of evaluation order
// and of how many cores share the work. Values stay values of their
// type, so packing (evalstore.go) still holds them exactly. A result that
// shares its elements with an operand is copied first.
func (e *Evaluator) perturb(in *hlo.Instruction, v *Value, ops []*Value) *Value {
	if !rounds[in.Opcode] || v == nil {
		return v
	}
	switch in.Opcode {
	case hlo.OpReduce, hlo.OpReduceWindow, hlo.OpScatter, hlo.OpSelectAndScatter:
		// Exact unless the combiner rounds (max, min, logic do not).
		if c, err := e.Callee(in, "to_apply"); err == nil {
			if r := e.Reducer(c); r != "" && r != "add" && r != "multiply" {
				return v
			}
		}
	}
	if v.Tuple != nil {
		out := *v
		out.Tuple = make([]*Value, len(v.Tuple))
		for i, t := range v.Tuple {
			out.Tuple[i] = e.perturbArray(in, i, t, ops)
		}
		return &out
	}
	return e.perturbArray(in, 0, v, ops)
}

func (e *Evaluator) perturbArray(in *hlo.Instruction, leaf int, v *Value, ops []*Value) *Value {
	if v == nil || v.Shape == nil || len(v.Data) == 0 {
		return v
	}
	spacing := ulpOf(v.Shape.Elem)
	if spacing == nil {
		return v
	}
	for _, o := range ops {
		if o != nil && len(o.Data) > 0 && unsafe.SliceData(o.Data) == unsafe.SliceData(v.Data) {
			v = &Value{Shape: v.Shape, Data: append([]float64(nil), v.Data...)}
			break
		}
	}
	amp := math.Sqrt(float64(termsPerElement(in, leaf, ops, v)))
	h := fnv.New64a()
	h.Write([]byte(in.Name))
	key := splitmix(e.Perturb ^ h.Sum64() ^ uint64(leaf)*0x9e3779b97f4a7c15)
	rnd := scalar.Rounder(v.Shape.Elem)
	parallelFor(len(v.Data), 8, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := v.Data[i]
			if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			u := float64(splitmix(key^uint64(i))>>11) / (1 << 53) // [0, 1)
			// A finite value stays finite: near the largest value
			// of an 8-bit float without infinities the move would
			// round to NaN.
			if r := rnd(x + (2*u-1)*amp*spacing(x)); !math.IsNaN(r) && !math.IsInf(r, 0) {
				v.Data[i] = r
			}
		}
	})
	return v
}

// termsPerElement is how many terms a result element of in sums (1 for
// elementwise ops). A sum of K terms accumulated in its type, in whatever
// order a backend picks, rounds K-1 times; the errors add as a random
// walk, so the perturbation spans sqrt(K) ulps.
func termsPerElement(in *hlo.Instruction, leaf int, ops []*Value, v *Value) int64 {
	elems := func(x *Value) int64 {
		if x == nil || x.Shape == nil {
			return 1
		}
		return max(x.Shape.Elems(), 1)
	}
	switch in.Opcode {
	case hlo.OpDot, hlo.OpRaggedDot:
		k := int64(1)
		lc, _ := hlo.OptList(in, "lhs_contracting_dims")
		for _, d := range lc {
			if int(d) < len(ops[0].Shape.Dims) {
				k *= ops[0].Shape.Dims[d]
			}
		}
		return k
	case hlo.OpConvolution:
		labels, _ := in.Attr("dim_labels")
		d, err := hlo.ParseDimLabels(labels)
		if err != nil || d.RhsOut >= len(ops[1].Shape.Dims) {
			return 1
		}
		return elems(ops[1]) / max(ops[1].Shape.Dims[d.RhsOut], 1) // window x input features
	case hlo.OpReduce:
		return elems(ops[0]) / elems(v)
	case hlo.OpReduceWindow:
		attr, _ := in.Attr("window")
		w, err := hlo.ParseWindow(attr, len(ops[0].Shape.Dims))
		if err != nil {
			return 1
		}
		k := int64(1)
		for _, n := range w.Size {
			k *= n
		}
		return k
	case hlo.OpBatchNormTraining, hlo.OpBatchNormGrad:
		if leaf == 0 {
			return 1 // the normalized output (or dx): elementwise from the statistics
		}
		f, err := strconv.Atoi(hlo.AttrOr(in, "feature_index", ""))
		if err != nil || f >= len(ops[0].Shape.Dims) {
			return 1
		}
		return elems(ops[0]) / max(ops[0].Shape.Dims[f], 1) // the batch statistics' terms
	}
	return 1
}

// ulpOf returns the spacing of a float type's values at x, or nil for
// types that are not perturbed (integers, pred, f64, minifloats).
func ulpOf(elem string) func(x float64) float64 {
	var mant int
	switch elem {
	case hlo.F32:
		mant = 23
	case hlo.BF16:
		mant = 7
	case hlo.F16:
		mant = 10
	default:
		if f := isa.Minifloats[elem]; f != nil {
			return f.Ulp // the 8-bit floats: their sums round too
		}
		return nil
	}
	return func(x float64) float64 {
		_, exp := math.Frexp(x) // |x| in [2^(exp-1), 2^exp)
		return math.Ldexp(1, exp-1-mant)
	}
}

// splitmix is SplitMix64's finalizer: a well-mixed 64-bit hash.
func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
