package expand

import (
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
)

// Cephes' erfc and erf approximations as XLA computes them: in f32,
// erfc(x) = exp(-x^2) (1/|x|) P(1/x^2) for 1 < |x| < 2 and R(1/x^2) beyond
// (2 - that for negative x), 1 - x T(x^2) within [-1, 1]; in f64, exp(-x^2)
// P(|x|)/Q(|x|) below 8 and R/S beyond, 1 - x T(x^2)/U(x^2) within [-1, 1].
var (
	erfcP32 = []float64{+2.326819970068386e-2, -1.387039388740657e-1, +3.687424674597105e-1,
		-5.824733027278666e-1, +6.210004621745983e-1, -4.944515323274145e-1,
		+3.404879937665872e-1, -2.741127028184656e-1, +5.638259427386472e-1}
	erfcR32 = []float64{-1.047766399936249e+1, +1.297719955372516e+1, -7.495518717768503e+0,
		+2.921019019210786e+0, -1.015265279202700e+0, +4.218463358204948e-1,
		-2.820767439740514e-1, +5.641895067754075e-1}
	erfT32 = []float64{+7.853861353153693e-5, -8.010193625184903e-4, +5.188327685732524e-3,
		-2.685381193529856e-2, +1.128358514861418e-1, -3.761262582423300e-1,
		+1.128379165726710e+0}
	erfcP64 = []float64{2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
		4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
		9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2}
	erfcQ64 = []float64{1.00000000000000000000e0, 1.32281951154744992508e1, 8.67072140885989742329e1,
		3.54937778887819891062e2, 9.75708501743205489753e2, 1.82390916687909736289e3,
		2.24633760818710981792e3, 1.65666309194161350182e3, 5.57535340817727675546e2}
	erfcR64 = []float64{5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
		6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0}
	erfcS64 = []float64{1.00000000000000000000e0, 2.26052863220117276590e0, 9.39603524938001434673e0,
		1.20489539808096656605e1, 1.70814450747565897222e1, 9.60896809063285878198e0,
		3.36907645100081516050e0}
	erfT64 = []float64{9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
		7.00332514112805075473e3, 5.55923013010394962768e4}
	erfU64 = []float64{1.00000000000000000000e0, 3.35617141647503099647e1, 5.21357949780152679795e2,
		4.59432382970980127987e3, 2.26290000613890934246e4, 4.92673942608635921086e4}
)

// ExpandErfcs rewrites erfc as XLA computes it (above; f16 and bf16 in
// f32) for the chips, which have no such instruction. The evaluator
// computes erfc directly (math.Erfc, rounded once): the oracle.
func ExpandErfcs(m *hlo.Module) error { return rewriteUnaryFloat(m, "erfc", (*rewriter).erfc) }

// rewriteUnaryFloat rewrites each opcode instruction of a float array as
// f computes it: in f64 (wide), or in f32 for f32, f16 and bf16. An f
// that returns nil leaves the instruction as it is.
func rewriteUnaryFloat(m *hlo.Module, opcode string, f func(x *rewriter, a *hlo.Instruction, wide bool) *hlo.Instruction) error {
	return rewriteEach(m, opcode, func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		elem := in.Shape.Elem
		if len(ops) != 1 || in.Shape.IsTuple || !hlo.IsRealFloat(elem) {
			x.Out = append(x.Out, in)
			return nil
		}
		if elem == hlo.F64 {
			if r := f(x, ops[0], true); r != nil {
				x.Finish(r)
				return nil
			}
			x.Out = append(x.Out, in)
			return nil
		}
		x.Finish(x.InF32(ops[0], func(a *hlo.Instruction) *hlo.Instruction { return f(x, a, false) }))
		return nil
	})
}

// erfc of a (f32, or f64 when wide): the tail beyond |x| = 1, 1 - erf
// within.
func (x *rewriter) erfc(a *hlo.Instruction, wide bool) *hlo.Instruction {
	d, elem := a.Shape.Dims, a.Shape.Elem
	c := x.scalarsOf(elem, d)
	x2 := x.Binary("multiply", a, a)
	var near *hlo.Instruction
	if wide {
		near = x.Binary("subtract", c(1), x.Binary("divide", x.Binary("multiply", a, x.horner(x2, erfT64)), x.horner(x2, erfU64)))
	} else {
		near = x.Binary("subtract", c(1), x.Binary("multiply", a, x.horner(x2, erfT32)))
	}
	abs := x.Emit("abs", elem, d, []*hlo.Instruction{a})
	far := x.Emit("compare", "pred", d, []*hlo.Instruction{abs, c(1)}, "direction", "GT")
	return x.Emit("select", elem, d, []*hlo.Instruction{far, x.erfcTail(a, wide), near})
}

// erfcTail is XLA's ErfcImpl: Cephes' erfc for |x| >= 1 (2 - it for
// negative x).
func (x *rewriter) erfcTail(a *hlo.Instruction, wide bool) *hlo.Instruction {
	d, elem := a.Shape.Dims, a.Shape.Elem
	c := x.scalarsOf(elem, d)
	lt := func(p, q *hlo.Instruction) *hlo.Instruction {
		return x.Emit("compare", "pred", d, []*hlo.Instruction{p, q}, "direction", "LT")
	}
	sel := func(cnd, p, q *hlo.Instruction) *hlo.Instruction {
		return x.Emit("select", elem, d, []*hlo.Instruction{cnd, p, q})
	}
	abs := x.Emit("abs", elem, d, []*hlo.Instruction{a})
	z := x.Emit("exponential", elem, d, []*hlo.Instruction{x.Emit("negate", elem, d, []*hlo.Instruction{x.Binary("multiply", a, a)})})
	var tail *hlo.Instruction
	if wide {
		tail = x.Binary("multiply", z, sel(lt(abs, c(8)),
			x.Binary("divide", x.horner(abs, erfcP64), x.horner(abs, erfcQ64)),
			x.Binary("divide", x.horner(abs, erfcR64), x.horner(abs, erfcS64))))
	} else {
		q := x.Binary("divide", c(1), abs)
		y := x.Binary("multiply", q, q)
		p := sel(lt(abs, c(2)), x.horner(y, erfcP32), x.horner(y, erfcR32))
		tail = x.Binary("multiply", x.Binary("multiply", z, q), p)
	}
	return sel(lt(a, c(0)), x.Binary("subtract", c(2), tail), tail)
}

// scalarsOf makes constants of elem broadcast to d, printed exactly for
// the type.
func (x *rewriter) scalarsOf(elem string, d []int64) func(float64) *hlo.Instruction {
	bits := 32
	if elem == hlo.F64 {
		bits = 64
	}
	return func(v float64) *hlo.Instruction {
		return x.Broadcast(x.Constant(elem, strconv.FormatFloat(v, 'g', -1, bits)), d, nil)
	}
}

// horner evaluates the polynomial with coefficients cs (the highest
// power's first) at v, as XLA's EvaluatePolynomial does.
func (x *rewriter) horner(v *hlo.Instruction, cs []float64) *hlo.Instruction {
	c := x.scalarsOf(v.Shape.Elem, v.Shape.Dims)
	p := c(cs[0])
	for _, k := range cs[1:] {
		p = x.Binary("add", x.Binary("multiply", p, v), c(k))
	}
	return p
}

// erf64 is XLA's f64 erf: x T(x^2) / U(x^2) within (-1, 1), 1 - erfc's
// tail beyond.
func (x *rewriter) erf64(a *hlo.Instruction) *hlo.Instruction {
	d := a.Shape.Dims
	c := x.scalarsOf("f64", d)
	x2 := x.Binary("multiply", a, a)
	near := x.Binary("divide", x.Binary("multiply", a, x.horner(x2, erfT64)), x.horner(x2, erfU64))
	abs := x.Emit("abs", "f64", d, []*hlo.Instruction{a})
	lt := x.Emit("compare", "pred", d, []*hlo.Instruction{abs, c(1)}, "direction", "LT")
	return x.Emit("select", "f64", d, []*hlo.Instruction{lt, near, x.Binary("subtract", c(1), x.erfcTail(a, true))})
}
