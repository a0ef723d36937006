package expand

import (
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// ExpandFloatRemainders rewrites the remainder of floats (C's fmod: the
// sign of x, magnitude below |y|) for the chips, which have no such
// instruction and whose x - trunc(x/y)*y loses the answer once the
// quotient outgrows the mantissa. It is exact, as fmod is: long division
// in binary. t starts at |y| and doubles (exactly) while 2t <= |x|; then,
// halving t back down to |y|, r -= t whenever r >= t. Each subtraction is
// exact (t <= r < 2t, Sterbenz), so r ends as |x| mod |y| to the last bit.
// Elements run as many steps as their exponents differ (at most 277 each
// way in f32, 2,098 in f64): two while loops that stop when no element has
// a step left. NaN, infinite x and zero y give NaN; infinite y and |x| <
// |y| give x. f16, bf16 and the f8 types go through f32, where their
// remainders are exact too. The evaluator computes math.Mod directly: the
// oracle.
func ExpandFloatRemainders(m *hlo.Module) error {
	return rewriteEach(m, "remainder", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		elem := in.Shape.Elem
		if len(ops) != 2 || in.Shape.IsTuple || !hlo.IsRealFloat(elem) {
			x.Out = append(x.Out, in)
			return nil
		}
		if elem == hlo.F64 || elem == hlo.F32 {
			x.Finish(x.fmod(ops[0], ops[1]))
			return nil
		}
		x.Finish(x.Convert(x.fmod(x.Convert(ops[0], "f32"), x.Convert(ops[1], "f32")), elem))
		return nil
	})
}

// fmod of a by b (f32 or f64 arrays of one shape).
func (x *rewriter) fmod(a, b *hlo.Instruction) *hlo.Instruction {
	d, elem := a.Shape.Dims, a.Shape.Elem
	c := x.scalarsOf(elem, d)
	cmp := func(p, q *hlo.Instruction, dir string) *hlo.Instruction {
		return x.Emit("compare", "pred", d, []*hlo.Instruction{p, q}, "direction", dir)
	}
	or := func(p, q *hlo.Instruction) *hlo.Instruction { return x.Emit("or", "pred", d, []*hlo.Instruction{p, q}) }
	not := func(p *hlo.Instruction) *hlo.Instruction { return x.Emit("not", "pred", d, []*hlo.Instruction{p}) }
	sel := func(p, t, f *hlo.Instruction) *hlo.Instruction {
		return x.Emit("select", t.Shape.Elem, d, []*hlo.Instruction{p, t, f})
	}
	ax := x.Emit("abs", elem, d, []*hlo.Instruction{a})
	ay := x.Emit("abs", elem, d, []*hlo.Instruction{b})
	inf := x.Broadcast(x.Constant(elem, "inf"), d, nil)
	nan := or(or(cmp(a, a, "NE"), cmp(b, b, "NE")), or(cmp(ax, inf, "EQ"), cmp(ay, c(0), "EQ")))
	keep := or(cmp(ax, ay, "LT"), cmp(ay, inf, "EQ"))
	work := not(or(nan, keep))
	// Elements that do not divide start with r = t = 0: no step is theirs.
	r0 := sel(work, ax, c(0))
	t0 := sel(work, ay, c(0))
	any := func(b *rewriter, p *hlo.Instruction) *hlo.Instruction {
		n := b.ReduceSum(b.Convert(p, "s32"), allDims(len(d)))
		return b.Emit("compare", "pred", nil, []*hlo.Instruction{n, b.Constant("s32", "0")}, "direction", "GT")
	}
	// Doubling: t = 2t while 2t <= r (2t overflowing to inf stops it).
	up, _ := x.WhileLoop("fmod_up", []*hlo.Instruction{r0, t0},
		func(rb *rewrite.Rewriter, v []*hlo.Instruction) *hlo.Instruction {
			b := &rewriter{rb}
			t2 := b.Binary("multiply", v[1], b.Broadcast(b.Constant(elem, "2"), d, nil))
			return any(b, b.Emit("and", "pred", d, []*hlo.Instruction{
				b.Emit("compare", "pred", d, []*hlo.Instruction{t2, v[0]}, "direction", "LE"),
				b.Emit("compare", "pred", d, []*hlo.Instruction{v[1], b.Broadcast(b.Constant(elem, "0"), d, nil)}, "direction", "GT")}))
		},
		func(rb *rewrite.Rewriter, v []*hlo.Instruction) []*hlo.Instruction {
			b := &rewriter{rb}
			t2 := b.Binary("multiply", v[1], b.Broadcast(b.Constant(elem, "2"), d, nil))
			grow := b.Emit("and", "pred", d, []*hlo.Instruction{
				b.Emit("compare", "pred", d, []*hlo.Instruction{t2, v[0]}, "direction", "LE"),
				b.Emit("compare", "pred", d, []*hlo.Instruction{v[1], b.Broadcast(b.Constant(elem, "0"), d, nil)}, "direction", "GT")})
			return []*hlo.Instruction{v[0], b.Emit("select", elem, d, []*hlo.Instruction{grow, t2, v[1]})}
		})
	// Long division: while t >= |y| (and the element divides), subtract
	// t where it fits and halve t.
	ayw := sel(work, ay, inf) // t >= inf never holds: idle elements stop at once
	down, _ := x.WhileLoop("fmod_down", []*hlo.Instruction{up[0], up[1], ayw},
		func(rb *rewrite.Rewriter, v []*hlo.Instruction) *hlo.Instruction {
			b := &rewriter{rb}
			return any(b, b.Emit("compare", "pred", d, []*hlo.Instruction{v[1], v[2]}, "direction", "GE"))
		},
		func(rb *rewrite.Rewriter, v []*hlo.Instruction) []*hlo.Instruction {
			b := &rewriter{rb}
			active := b.Emit("compare", "pred", d, []*hlo.Instruction{v[1], v[2]}, "direction", "GE")
			fits := b.Emit("and", "pred", d, []*hlo.Instruction{active,
				b.Emit("compare", "pred", d, []*hlo.Instruction{v[0], v[1]}, "direction", "GE")})
			r := b.Emit("select", elem, d, []*hlo.Instruction{fits, b.Binary("subtract", v[0], v[1]), v[0]})
			half := b.Binary("multiply", v[1], b.Broadcast(b.Constant(elem, "0.5"), d, nil))
			t := b.Emit("select", elem, d, []*hlo.Instruction{active, half, v[1]})
			return []*hlo.Instruction{r, t, v[2]}
		})
	r := down[0]
	signed := sel(cmp(a, c(0), "LT"), x.Emit("negate", elem, d, []*hlo.Instruction{r}), r)
	return sel(nan, x.Broadcast(x.Constant(elem, "nan"), d, nil), sel(keep, a, signed))
}

func allDims(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}
