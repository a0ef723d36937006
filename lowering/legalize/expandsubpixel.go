package legalize

import (
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
)

// A convolution with lhs dilation (a transposed convolution: upsampling,
// the input gradient of a strided convolution) reads an input with d-1
// zeros between its elements; a dot per kernel tap over the dilated input
// multiplies them all, d^n times the work, from a buffer d^n times the
// input. Split by output phase (XLA's and cuDNN's sub-pixel form), each
// output position o = phi + d t takes only the taps k whose input
// position o + k - padLo is a multiple of d, reading the undilated input
// at t + (phi + k - padLo) / d: per phase a convolution of stride 1 over
// the input itself, the phases interleaved into the output. Every tap
// serves exactly one phase per dimension, so there are as many dots as
// taps, each d^n times smaller.

// maxSubPixelPhases bounds the phases (d^n), each a few dots and a piece
// of the interleave.
const maxSubPixelPhases = 16

// subPixelFits says whether the convolution of geometry g and window w
// over an input of spatial dims S takes the sub-pixel form: some lhs
// dilation, strides and rhs dilations of 1, output lengths that the
// dilations divide, few phases, unrolled taps.
func subPixelFits(g geometry, w hlo.Window, S []int64) bool {
	dilated, phases := false, int64(1)
	for i := 0; i < g.n; i++ {
		d := w.LhsDil[i]
		if w.Stride[i] != 1 || w.RhsDil[i] != 1 || d < 1 || g.P[i] < 1 || g.P[i]%d != 0 || S[i] < 1 {
			return false
		}
		dilated = dilated || d > 1
		phases *= d
	}
	return dilated && phases <= maxSubPixelPhases && hlo.Prod(g.K) <= MaxUnrolledTaps
}

// subPixel is the convolution of L[B, S..., F] with R[K..., F, O] by
// output phase: [B, P..., O] in the accumulation type.
func (x *rewriter) subPixel(g geometry, w hlo.Window, L, R *hlo.Instruction) *hlo.Instruction {
	n := g.n
	B, O := L.Shape.Dims[0], R.Shape.Dims[n+1]
	d, T := make([]int64, n), make([]int64, n)
	for i := range n {
		d[i], T[i] = w.LhsDil[i], g.P[i]/w.LhsDil[i]
	}
	// The input offset of tap k in phase phi along dim i, where it counts.
	offset := func(i int, phi, k int64) (int64, bool) {
		v := phi + k - w.PadLo[i]
		if m := v % d[i]; m != 0 {
			return 0, false
		}
		return floorDiv(v, d[i]), true
	}
	// Zeros around the input so that every phase's window is a slice.
	lo, hi := make([]int64, n), make([]int64, n)
	for i := range n {
		for phi := range d[i] {
			for k := range g.K[i] {
				if c, ok := offset(i, phi, k); ok {
					lo[i] = max(lo[i], -c)
					hi[i] = max(hi[i], c+T[i]-L.Shape.Dims[1+i])
				}
			}
		}
	}
	Lz := L
	if anyPositive(lo) || anyPositive(hi) {
		Lz = x.padZeros(L, append(append([]int64{0}, lo...), 0), append(append([]int64{0}, hi...), 0))
	}
	pieceDims := []int64{B}
	for i := range n {
		pieceDims = append(pieceDims, T[i], 1)
	}
	pieceDims = append(pieceDims, O)
	F := L.Shape.Dims[n+1]
	out := append(append([]int64{B}, T...), O)
	var pieces []*hlo.Instruction
	for _, phi := range hlo.Positions(d) {
		// The phase's taps: their input windows as [B, T..., 1, F] and
		// their kernel slices as [1, F, O], stacked so that one dot
		// contracts over (tap, F) — a dot per tap was a kernel of a few
		// rows each, its fixed cost many times its work.
		var xs, ws []*hlo.Instruction
		for _, k := range hlo.Positions(g.K) {
			start := make([]int64, n+2)
			ok := true
			for i := range n {
				c, hit := offset(i, phi[i], k[i])
				ok = ok && hit
				start[1+i] = c + lo[i]
			}
			if !ok {
				continue
			}
			count := append(append([]int64{B}, T...), F)
			one := make([]int64, n+2)
			for i := range one {
				one[i] = 1
			}
			xs = append(xs, x.Reshape(x.Slice(Lz, start, count, one), append(append(append([]int64{B}, T...), 1), F)))
			ws = append(ws, x.Reshape(x.kernelAt(g, R, k), []int64{1, F, O}))
		}
		var sum *hlo.Instruction
		if len(xs) == 0 { // no tap reaches this phase
			sum = x.Broadcast(x.Constant(g.acc, "0"), out, nil)
		} else {
			X, W := x.dotOperands(x.Concatenate(xs, n+1), x.Concatenate(ws, 0), g.acc)
			sum = x.Emit("dot", g.acc, out, []*hlo.Instruction{X, W},
				"lhs_contracting_dims", hlo.IntsText([]int64{int64(n + 1), int64(n + 2)}), "rhs_contracting_dims", "{0,1}")
		}
		pieces = append(pieces, x.Reshape(sum, pieceDims))
	}
	// Interleave: the phases listed row-major over phi, concatenated along
	// each dim's phase axis, innermost dim first; then t and phi merge.
	for i := n - 1; i >= 0; i-- {
		var next []*hlo.Instruction
		for j := 0; j < len(pieces); j += int(d[i]) {
			next = append(next, x.Concatenate(pieces[j:j+int(d[i])], 2+2*i))
		}
		pieces = next
	}
	return x.Reshape(pieces[0], append(append([]int64{B}, g.P...), O))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func anyPositive(v []int64) bool {
	for _, x := range v {
		if x > 0 {
			return true
		}
	}
	return false
}

// padZeros pads a with zeros, lo and hi elements per dimension.
func (x *rewriter) padZeros(a *hlo.Instruction, lo, hi []int64) *hlo.Instruction {
	dims := make([]int64, len(a.Shape.Dims))
	cfg := ""
	for i, n := range a.Shape.Dims {
		dims[i] = n + lo[i] + hi[i]
		if i > 0 {
			cfg += "x"
		}
		cfg += strconv.FormatInt(lo[i], 10) + "_" + strconv.FormatInt(hi[i], 10)
	}
	return x.Emit("pad", a.Shape.Elem, dims, []*hlo.Instruction{a, x.Constant(a.Shape.Elem, "0")}, "padding", cfg)
}
