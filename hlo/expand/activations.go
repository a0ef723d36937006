package expand

import (
	"github.com/pulse-sim/pulse/hlo"
	"math"
	"strings"
)

// The error function and the activation custom calls torch-neuronx emits
// (AwsNeuronGelu for torch's exact GELU, AwsNeuronGeluApprxTanh for its
// tanh form, AwsNeuronGeluBackward for the exact GELU's derivative,
// AwsNeuronErf, AwsNeuronSilu), computed by the evaluator with
// the math library and expanded for the lowering into elementwise ops the
// vector unit has. erf is XLA's own f32 approximation (ErfImpl32: x times
// a degree-6 over degree-4 rational function of x^2 on x clamped to
// [-4, 4]; within 7e-8 of erf everywhere), evaluated in f32.

var erfAlpha = []float64{-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
	-5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02}
var erfBeta = []float64{-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
	-7.37332916720468e-03, -1.42647390514189e-02}

// NeuronActivations maps the torch-neuronx activation targets to their
// functions (for the evaluator).
var NeuronActivations = map[string]func(float64) float64{
	"AwsNeuronGelu":          func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) },
	"AwsNeuronGeluApprxTanh": func(x float64) float64 { return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x))) },
	"AwsNeuronErf":           math.Erf,
	"AwsNeuronSilu":          func(x float64) float64 { return x / (1 + math.Exp(-x)) },
	// The derivative of the exact GELU, d/dx x*Phi(x) = Phi(x) + x*phi(x):
	// torch-xla's GeluBackward multiplies it by the incoming gradient.
	"AwsNeuronGeluBackward": func(x float64) float64 {
		return 0.5*(1+math.Erf(x/math.Sqrt2)) + x*math.Exp(-x*x/2)/math.Sqrt(2*math.Pi)
	},
}

// NeuronActivation returns the target of an activation custom call, "" for
// other instructions.
func NeuronActivation(in *hlo.Instruction) string {
	if in.Opcode != hlo.OpCustomCall {
		return ""
	}
	t, _ := in.Attr("custom_call_target")
	t = strings.Trim(t, `"`)
	if NeuronActivations[t] == nil {
		return ""
	}
	return t
}

// erf is XLA's f32 erf of a (f32).
func (x *rewriter) erf(a *hlo.Instruction) *hlo.Instruction {
	c := x.Emit("clamp", a.Shape.Elem, a.Shape.Dims, []*hlo.Instruction{x.ScalarLike(a, -4), a, x.ScalarLike(a, 4)})
	x2 := x.Binary("multiply", c, c)
	poly := func(cs []float64) *hlo.Instruction {
		p := x.ScalarLike(a, cs[0])
		for _, k := range cs[1:] {
			p = x.Binary("add", x.Binary("multiply", p, x2), x.ScalarLike(a, k))
		}
		return p
	}
	return x.Binary("divide", x.Binary("multiply", c, poly(erfAlpha)), poly(erfBeta))
}

// ExpandErfAndActivations rewrites erf and the activation custom calls
// into elementwise ops (see above).
func ExpandErfAndActivations(m *hlo.Module) error {
	if err := rewriteEach(m, "erf", func(x *rewriter, ops []*hlo.Instruction) error {
		if x.At.Shape.Elem == hlo.F64 {
			// XLA's f64 erf: Cephes' rational function within [-1, 1],
			// 1 - erfc beyond (expanderfc.go).
			x.Finish(x.erf64(ops[0]))
			return nil
		}
		r := x.InF32(ops[0], x.erf)
		x.Finish(r)
		return nil
	}); err != nil {
		return err
	}
	return rewriteEach(m, "custom-call", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		t := NeuronActivation(in)
		if t == "" {
			x.Out = append(x.Out, in)
			return nil
		}
		if len(ops) != 1 || ops[0].Shape.IsTuple || !hlo.SameShape(ops[0].Shape, in.Shape) {
			return x.Errorf("an activation custom call takes one array of the result's shape")
		}
		var r *hlo.Instruction
		switch t {
		case "AwsNeuronErf":
			r = x.InF32(ops[0], x.erf)
		case "AwsNeuronGelu":
			r = x.InF32(ops[0], func(a *hlo.Instruction) *hlo.Instruction {
				e := x.erf(x.Binary("multiply", a, x.ScalarLike(a, 1/math.Sqrt2)))
				h := x.Binary("multiply", a, x.ScalarLike(a, 0.5))
				return x.Binary("multiply", h, x.Binary("add", e, x.ScalarLike(a, 1)))
			})
		case "AwsNeuronGeluApprxTanh":
			r = x.InF32(ops[0], func(a *hlo.Instruction) *hlo.Instruction {
				a3 := x.Binary("multiply", x.Binary("multiply", a, a), a)
				in := x.Binary("add", a, x.Binary("multiply", a3, x.ScalarLike(a, 0.044715)))
				t := x.Emit("tanh", a.Shape.Elem, a.Shape.Dims, []*hlo.Instruction{x.Binary("multiply", in, x.ScalarLike(a, math.Sqrt(2/math.Pi)))})
				h := x.Binary("multiply", a, x.ScalarLike(a, 0.5))
				return x.Binary("multiply", h, x.Binary("add", t, x.ScalarLike(a, 1)))
			})
		case "AwsNeuronGeluBackward":
			r = x.InF32(ops[0], func(a *hlo.Instruction) *hlo.Instruction {
				e := x.erf(x.Binary("multiply", a, x.ScalarLike(a, 1/math.Sqrt2)))
				cdf := x.Binary("multiply", x.Binary("add", e, x.ScalarLike(a, 1)), x.ScalarLike(a, 0.5))
				g := x.Emit("exponential", a.Shape.Elem, a.Shape.Dims, []*hlo.Instruction{x.Binary("multiply", x.Binary("multiply", a, a), x.ScalarLike(a, -0.5))})
				pdf := x.Binary("multiply", g, x.ScalarLike(a, 1/math.Sqrt(2*math.Pi)))
				return x.Binary("add", cdf, x.Binary("multiply", a, pdf))
			})
		case "AwsNeuronSilu":
			r = x.InF32(ops[0], func(a *hlo.Instruction) *hlo.Instruction {
				return x.Binary("multiply", a, x.Emit("logistic", a.Shape.Elem, a.Shape.Dims, []*hlo.Instruction{a}))
			})
		}
		x.Finish(r)
		return nil
	})
}
