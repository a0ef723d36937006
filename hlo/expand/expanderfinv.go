package expand

import "github.com/pulse-sim/pulse/hlo"

// Giles' single-precision approximation of erfinv ("Approximating the
// erfinv function", GPU Computing Gems, 2010), the coefficients of its two
// polynomials in w = -log1p(-x^2) - 2.5 (w < 5) and sqrt(w) - 3.
var (
	erfInvSmall = []float64{2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
		0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941}
	erfInvLarge = []float64{-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
		0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682}
)

// ExpandErfInvs rewrites erf-inv of f32 (and of f16, bf16 computed in
// f32) as XLA computes it — Giles' approximation, ±inf at ±1 — for the
// chips, which have no such instruction. The evaluator computes erf-inv
// directly (math.Erfinv, rounded once): the oracle the approximation, good
// to a few ulps, is checked against. f64 is left as it is (XLA's f64
// approximation needs an f64 log1p the chips do not lower).
func ExpandErfInvs(m *hlo.Module) error {
	return rewriteUnaryFloat(m, "erf-inv", func(x *rewriter, a *hlo.Instruction, wide bool) *hlo.Instruction {
		if wide {
			return nil
		}
		return x.erfInv32(a)
	})
}

// erfInv32 is Giles' approximation of erfinv(a) for f32 a.
func (x *rewriter) erfInv32(a *hlo.Instruction) *hlo.Instruction {
	d := a.Shape.Dims
	c := x.scalarsOf("f32", d)
	unary := func(op string, v *hlo.Instruction) *hlo.Instruction {
		return x.Emit(op, "f32", d, []*hlo.Instruction{v})
	}
	w := unary("negate", unary("log-plus-one", unary("negate", x.Binary("multiply", a, a))))
	lt := x.Emit("compare", "pred", d, []*hlo.Instruction{w, c(5)}, "direction", "LT")
	sel := func(p, q *hlo.Instruction) *hlo.Instruction {
		return x.Emit("select", "f32", d, []*hlo.Instruction{lt, p, q})
	}
	w = sel(x.Binary("subtract", w, c(2.5)), x.Binary("subtract", unary("sqrt", w), c(3)))
	p := sel(c(erfInvSmall[0]), c(erfInvLarge[0]))
	for i := 1; i < len(erfInvSmall); i++ {
		p = x.Binary("add", sel(c(erfInvSmall[i]), c(erfInvLarge[i])), x.Binary("multiply", p, w))
	}
	res := x.Binary("multiply", p, a)
	one := x.Emit("compare", "pred", d, []*hlo.Instruction{unary("abs", a), c(1)}, "direction", "EQ")
	return x.Emit("select", "f32", d, []*hlo.Instruction{one, x.Binary("multiply", a, x.Broadcast(x.Constant("f32", "inf"), d, nil)), res})
}
