package legalize

import (
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// windowLoop folds a window of more than maxWindowPositions positions
// (a cumulative sum over 46,592 elements, a 63x255 blur) with the one
// elementwise op as a counted while loop, so that the program does not
// grow with the window: each iteration takes the slice of padded its
// positions read (a dynamic-slice) and folds their strided slices into
// the accumulator in row-major window order, the evaluator's, so the bits
// agree. The trailing window dims are unrolled in the body while their
// positions number at most maxUnrolledTaps, with a divisor's worth of the
// next dim's (a 46,592 window: 728 iterations of 64 positions).
func (x *rewriter) windowLoop(op string, padded, acc *hlo.Instruction, w hlo.Window, out []int64) *hlo.Instruction {
	n := len(w.Size)
	K := w.Size
	lead := n // dims [lead, n) unrolled whole
	for lead > 0 && hlo.Prod(K[lead-1:]) <= MaxUnrolledTaps {
		lead--
	}
	// Dim lead-1 runs in chunks of c positions, unrolled too.
	c := int64(1)
	if lead > 0 {
		inner := hlo.Prod(K[lead:])
		for d := K[lead-1]; d >= 1; d-- {
			if K[lead-1]%d == 0 && d*inner <= MaxUnrolledTaps {
				c = d
				break
			}
		}
	}
	ext := []int64{}
	if lead > 0 {
		ext = append(append(ext, K[:lead-1]...), K[lead-1]/c)
	}
	res := x.Counted("window", hlo.Prod(ext), []*hlo.Instruction{acc, padded}, func(rb *rewrite.Rewriter, t *hlo.Instruction, v []*hlo.Instruction) []*hlo.Instruction {
		b := &rewriter{rb}
		sum, src := v[0], v[1]
		s32 := func(c int64) *hlo.Instruction { return b.Constant("s32", strconv.FormatInt(c, 10)) }
		k := b.digits(t, ext)
		starts := make([]*hlo.Instruction, n)
		sizes := make([]int64, n)
		for i := 0; i < n; i++ {
			span := (out[i]-1)*w.Stride[i] + 1
			switch {
			case i < lead-1:
				starts[i], sizes[i] = k[i], span
			case i == lead-1:
				starts[i], sizes[i] = b.Binary("multiply", k[i], s32(c)), span+(c-1)*w.RhsDil[i]
			default:
				starts[i], sizes[i] = s32(0), span+(K[i]-1)*w.RhsDil[i]
			}
			if i < lead && w.RhsDil[i] != 1 {
				starts[i] = b.Binary("multiply", starts[i], s32(w.RhsDil[i]))
			}
		}
		win := b.Emit("dynamic-slice", src.Shape.Elem, sizes, append([]*hlo.Instruction{src}, starts...), "dynamic_slice_sizes", hlo.IntsText(sizes))
		chunk := append([]int64{}, K...)
		for i := 0; i < lead; i++ {
			chunk[i] = 1
		}
		if lead > 0 {
			chunk[lead-1] = c
		}
		for _, p := range hlo.Positions(chunk) {
			st := make([]int64, n)
			for i := range st {
				st[i] = p[i] * w.RhsDil[i]
			}
			sum = b.Emit(op, sum.Shape.Elem, out, []*hlo.Instruction{sum, b.Slice(win, st, out, w.Stride)})
		}
		return []*hlo.Instruction{sum, src}
	})
	return res[0]
}
