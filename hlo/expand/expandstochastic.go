package expand

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// ExpandStochasticConverts rewrites each stochastic-convert(x, random) —
// a float to a signed integer, rounding each element up with the
// probability of its fraction, by comparing the fraction scaled to the
// random operand's range with that unsigned random value — as XLA's
// StochasticConvertDecomposer does: |x| floored, its fraction (in f32 for
// an f16 x) times 2^bits(random), compared with the random value; one
// added where the random value is below it; the sign restored; x at or
// beyond the type's extremes giving them. The evaluator evaluates the
// same expansion.
func ExpandStochasticConverts(m *hlo.Module) error {
	return rewriteEach(m, "stochastic-convert", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if len(ops) != 2 || in.Shape == nil || in.Shape.IsTuple {
			return x.Errorf("takes an operand and random bits, and returns an array")
		}
		op, rnd := ops[0], ops[1]
		to := in.Shape.Elem
		switch {
		case !hlo.IsFloat(op.Shape.Elem) || strings.HasPrefix(op.Shape.Elem, "c"):
			return x.Errorf("converts floats, not %s", op.Shape.Elem)
		case !hlo.IsUnsigned(rnd.Shape.Elem) || hlo.ElemBits(rnd.Shape.Elem) != hlo.ElemBits(op.Shape.Elem):
			return x.Errorf("the random operand must be an unsigned integer as wide as the operand (%s for %s)", rnd.Shape.Elem, op.Shape.Elem)
		case !slices.Contains([]string{"s8", "s16", "s32", "s64"}, to):
			return x.Errorf("converts to a signed integer type, not %s (as XLA's decomposer)", to)
		case !hlo.EqualDims(op.Shape.Dims, rnd.Shape.Dims) || !hlo.EqualDims(op.Shape.Dims, in.Shape.Dims):
			return x.Errorf("the operand %s, the random bits %s and the result %s differ in shape", op.Shape, rnd.Shape, in.Shape)
		}
		dims, fe := op.Shape.Dims, op.Shape.Elem
		scalar := func(elem string, v float64) *hlo.Instruction {
			lit := fmt.Sprint(v)
			if !hlo.IsFloat(elem) { // an integer literal is written as one: 2147483647, not 2.147483647e+09
				lit = strconv.FormatFloat(v, 'f', -1, 64)
			}
			return x.Broadcast(x.Constant(elem, lit), dims, nil)
		}
		cmp := func(a, b *hlo.Instruction, dir string) *hlo.Instruction {
			return x.Emit("compare", "pred", dims, []*hlo.Instruction{a, b}, "direction", dir)
		}
		sel := func(p, a, b *hlo.Instruction) *hlo.Instruction {
			return x.Emit("select", a.Shape.Elem, dims, []*hlo.Instruction{p, a, b})
		}
		sign := x.Emit("sign", fe, dims, []*hlo.Instruction{op})
		neg := cmp(sign, scalar(fe, 0), "LT")
		abs := x.Emit("abs", fe, dims, []*hlo.Instruction{op})
		trunc := x.Emit("floor", fe, dims, []*hlo.Instruction{abs})
		frac := x.Binary("subtract", abs, trunc)
		if fe == "f16" {
			frac = x.Convert(frac, "f32") // 2^16 is beyond f16
		}
		fixed := x.Binary("multiply", frac, scalar(frac.Shape.Elem, math.Ldexp(1, hlo.ElemBits(rnd.Shape.Elem))))
		up := cmp(rnd, x.Convert(fixed, rnd.Shape.Elem), "LT")
		ti := x.Convert(trunc, to)
		ti = sel(up, x.Binary("add", ti, scalar(to, 1)), ti)
		res := sel(neg, x.Emit("negate", to, dims, []*hlo.Instruction{ti}), ti)
		bits := hlo.ElemBits(to)
		lo, hi := -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)-1
		res = sel(cmp(op, scalar(fe, lo), "LE"), scalar(to, lo), res)
		res = sel(cmp(op, scalar(fe, hi), "GE"), scalar(to, hi), res)
		x.Finish(res)
		return nil
	})
}
