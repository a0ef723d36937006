package grade

import (
	"fmt"
	"math"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/labs"
)

// A reference computes a lab's outputs from its inputs in float64 (want),
// with each element's scale: the magnitude its rounding error is relative
// to (for a sum, the sum of the magnitudes of its terms), so tolerances
// stay meaningful where terms cancel.
type reference func(l *labs.Lab, in map[string][]float64) (want, scale map[string][]float64, err error)

// references are the labs' float64 oracles, by the name lab.yaml gives.
// "hlo:FILE" evaluates a module the lab hands out with Pulse's HLO
// evaluator (its inputs are the entry's parameters in order).
var references = map[string]reference{
	"vadd":    refVAdd,
	"gelu":    refGELU,
	"gemm":    refGEMM,
	"softmax": refSoftmax,
	"colsum":  refColSum,
}

func lookupReference(name string) (reference, error) {
	if f, ok := strings.CutPrefix(name, "hlo:"); ok {
		return func(l *labs.Lab, in map[string][]float64) (map[string][]float64, map[string][]float64, error) {
			return refHLO(l, f, in)
		}, nil
	}
	r, ok := references[name]
	if !ok {
		return nil, fmt.Errorf("lab reference %q is not defined (grade/reference.go)", name)
	}
	return r, nil
}

func one(name string, want, scale []float64) (map[string][]float64, map[string][]float64, error) {
	return map[string][]float64{name: want}, map[string][]float64{name: scale}, nil
}

// refVAdd: z = x + y.
func refVAdd(l *labs.Lab, in map[string][]float64) (map[string][]float64, map[string][]float64, error) {
	x, y := in["x"], in["y"]
	z, s := make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		z[i] = x[i] + y[i]
		s[i] = math.Abs(x[i]) + math.Abs(y[i])
	}
	return one(l.Outputs[0].Name, z, s)
}

// Gelu is the tanh approximation the vector unit's vgelu computes.
func Gelu(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

// refGELU: y = gelu(x), elementwise.
func refGELU(l *labs.Lab, in map[string][]float64) (map[string][]float64, map[string][]float64, error) {
	x := in["x"]
	y, s := make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		y[i] = Gelu(x[i])
		s[i] = math.Abs(y[i])
	}
	return one(l.Outputs[0].Name, y, s)
}

// refGEMM: C[M,N] = A[M,K] @ B[K,N].
func refGEMM(l *labs.Lab, in map[string][]float64) (map[string][]float64, map[string][]float64, error) {
	a, b := in["A"], in["B"]
	sa, sb := shapeOf(l, "A"), shapeOf(l, "B")
	m, k, n := sa[0], sa[1], sb[1]
	c, s := make([]float64, m*n), make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var sum, mag float64
			for kk := 0; kk < k; kk++ {
				p := a[i*k+kk] * b[kk*n+j]
				sum += p
				mag += math.Abs(p)
			}
			c[i*n+j], s[i*n+j] = sum, mag
		}
	}
	return one(l.Outputs[0].Name, c, s)
}

// refSoftmax: Y = softmax of each row of X.
func refSoftmax(l *labs.Lab, in map[string][]float64) (map[string][]float64, map[string][]float64, error) {
	x := in["X"]
	sh := shapeOf(l, "X")
	rows, cols := sh[0], sh[1]
	y, s := make([]float64, len(x)), make([]float64, len(x))
	for r := 0; r < rows; r++ {
		row := x[r*cols : (r+1)*cols]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, v)
		}
		var sum float64
		for _, v := range row {
			sum += math.Exp(v - mx)
		}
		for c, v := range row {
			y[r*cols+c] = math.Exp(v-mx) / sum
			s[r*cols+c] = y[r*cols+c]
		}
	}
	return one(l.Outputs[0].Name, y, s)
}

// refColSum: S[1,N] = the sum of each column of X[M,N].
func refColSum(l *labs.Lab, in map[string][]float64) (map[string][]float64, map[string][]float64, error) {
	x := in["X"]
	sh := shapeOf(l, "X")
	rows, cols := sh[0], sh[1]
	out, s := make([]float64, cols), make([]float64, cols)
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			out[c] += x[r*cols+c]
			s[c] += math.Abs(x[r*cols+c])
		}
	}
	return one(l.Outputs[0].Name, out, s)
}

// refHLO evaluates the lab's module file on the inputs (the entry's
// parameters, in the order lab.yaml lists the inputs); its result (or its
// tuple's elements) are the outputs in order. Scales are the outputs'
// magnitudes plus the largest magnitude in the output, since the module's
// sums are not visible from here: tolerances are relative to the tensor.
func refHLO(l *labs.Lab, file string, in map[string][]float64) (map[string][]float64, map[string][]float64, error) {
	src, err := l.File(file)
	if err != nil {
		return nil, nil, err
	}
	m, err := hlo.Parse(file, string(src))
	if err != nil {
		return nil, nil, err
	}
	var params []*hlo.Instruction
	for _, ins := range m.Entry.Instructions {
		if ins.Opcode == hlo.OpParameter {
			params = append(params, ins)
		}
	}
	if len(params) != len(l.Inputs) {
		return nil, nil, fmt.Errorf("%s has %d parameters, the lab %d inputs", file, len(params), len(l.Inputs))
	}
	args := make([]*eval.Value, len(params))
	for _, p := range params {
		args[p.ParamNumber] = &eval.Value{Shape: p.Shape, Data: in[l.Inputs[p.ParamNumber].Name]}
	}
	v, err := (&eval.Evaluator{File: file, M: m}).Run(args)
	if err != nil {
		return nil, nil, err
	}
	vals := []*eval.Value{v}
	if v.Tuple != nil {
		vals = v.Tuple
	}
	if len(vals) != len(l.Outputs) {
		return nil, nil, fmt.Errorf("%s returns %d values, the lab has %d outputs", file, len(vals), len(l.Outputs))
	}
	want, scale := map[string][]float64{}, map[string][]float64{}
	for i, o := range l.Outputs {
		want[o.Name] = vals[i].Data
		var mx float64
		for _, x := range vals[i].Data {
			mx = math.Max(mx, math.Abs(x))
		}
		s := make([]float64, len(vals[i].Data))
		for j, x := range vals[i].Data {
			s[j] = math.Abs(x) + mx
		}
		scale[o.Name] = s
	}
	return want, scale, nil
}

func shapeOf(l *labs.Lab, name string) []int {
	for _, t := range append(append([]labs.Tensor{}, l.Inputs...), l.Outputs...) {
		if t.Name == name {
			return t.Shape
		}
	}
	return nil
}
