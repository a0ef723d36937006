package legalize

import (
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// MaxUnrolledTaps is the most kernel positions a convolution expands into
// straight-line code; one with more (a 30x30 window, a 3-D weight
// gradient) runs its taps as a while loop, so that the program's size does
// not grow with the window (issue 21). A variable so that tests can send
// small convolutions through the loop.
var MaxUnrolledTaps int64 = 64

// tapLoop sums term over every kernel position k, row-major, as a counted
// while loop. The trailing kernel dimensions whose positions number at
// most maxUnrolledTaps stay unrolled in the body, so that the loop's own
// work (its condition, the accumulator carried from one iteration to the
// next) is spread over many taps; the loop runs over the leading ones.
// Each iteration takes the window of Lp those taps read and R at the
// leading position (dynamic-slices), then per tap its static slices, and
// adds term(X, W) to an accumulator of the given dims. The accumulator
// starts at -0 (floats) or 0: the additive identity, so the sum has the
// bits of the unrolled one (which starts from the first term).
func (x *rewriter) tapLoop(g geometry, Lp, R *hlo.Instruction, dims []int64,
	term func(b *rewriter, X, W *hlo.Instruction) *hlo.Instruction) *hlo.Instruction {
	n := g.n
	lead := n // kernel dims [0, lead) are looped over, [lead, n) unrolled
	for lead > 0 && hlo.Prod(g.K[lead-1:]) <= MaxUnrolledTaps {
		lead--
	}
	zeroLit := "0"
	if hlo.IsRealFloat(g.acc) {
		zeroLit = "-0"
	}
	acc := x.Broadcast(x.Constant(g.acc, zeroLit), dims, nil)
	out := x.Counted("taps", hlo.Prod(g.K[:lead]), []*hlo.Instruction{acc, Lp, R}, func(rb *rewrite.Rewriter, t *hlo.Instruction, v []*hlo.Instruction) []*hlo.Instruction {
		b := &rewriter{rb}
		sum, lp, r := v[0], v[1], v[2]
		s32 := func(c int64) *hlo.Instruction { return b.Constant("s32", strconv.FormatInt(c, 10)) }
		zero := s32(0)
		k := append(b.digits(t, g.K[:lead]), make([]*hlo.Instruction, n-lead)...)
		for i := lead; i < n; i++ {
			k[i] = zero
		}
		// The window the iteration's taps read: along a leading dim the
		// span of the output positions from k*rhsDil, along an unrolled
		// one all of the taps' spans.
		starts := []*hlo.Instruction{zero}
		sizes := []int64{Lp.Shape.Dims[0]}
		for i := 0; i < n; i++ {
			st, size := k[i], (g.P[i]-1)*g.stride[i]+1
			if i >= lead {
				size += (g.K[i] - 1) * g.rhsDil[i]
			} else if g.rhsDil[i] != 1 {
				st = b.Binary("multiply", st, s32(g.rhsDil[i]))
			}
			starts = append(starts, st)
			sizes = append(sizes, size)
		}
		starts = append(starts, zero)
		sizes = append(sizes, Lp.Shape.Dims[n+1])
		win := b.Emit("dynamic-slice", lp.Shape.Elem, sizes, append([]*hlo.Instruction{lp}, starts...), "dynamic_slice_sizes", hlo.IntsText(sizes))
		// R at the leading position, every unrolled tap.
		wsizes := append(append(hlo.Ones(lead), g.K[lead:]...), R.Shape.Dims[n:]...)
		kern := b.Emit("dynamic-slice", r.Shape.Elem, wsizes, append(append([]*hlo.Instruction{r}, k...), zero, zero), "dynamic_slice_sizes", hlo.IntsText(wsizes))
		for _, in := range hlo.Positions(g.K[lead:]) {
			// The tap: its window slice of win, its [I, O] of kern.
			pos := append(make([]int64, lead), in...)
			st, cnt, stride := make([]int64, n+2), append([]int64{}, win.Shape.Dims...), make([]int64, n+2)
			stride[0], stride[n+1] = 1, 1
			for i := 0; i < n; i++ {
				st[1+i], cnt[1+i], stride[1+i] = pos[i]*g.rhsDil[i], g.P[i], g.stride[i]
			}
			X := b.Slice(win, st, cnt, stride)
			W := b.kernelAt(g, kern, pos)
			sum = b.Binary("add", sum, term(b, X, W))
		}
		return []*hlo.Instruction{sum, lp, r}
	})
	return out[0]
}

// digits emits the row-major digits of the s32 count t over the extents
// ext: digit i is t / (ext[i+1]*...) mod ext[i] (the first not reduced:
// t stays below the product).
func (x *rewriter) digits(t *hlo.Instruction, ext []int64) []*hlo.Instruction {
	out := make([]*hlo.Instruction, len(ext))
	for i := range ext {
		d := t
		if inner := hlo.Prod(ext[i+1:]); inner > 1 {
			d = x.Binary("divide", d, x.Constant("s32", strconv.FormatInt(inner, 10)))
		}
		if i > 0 {
			d = x.Binary("remainder", d, x.Constant("s32", strconv.FormatInt(ext[i], 10)))
		}
		out[i] = d
	}
	return out
}
