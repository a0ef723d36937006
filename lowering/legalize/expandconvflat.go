package legalize

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// A convolution of stride one over a padded input Lp[B, S..., F] is, on
// the input flattened to rows of F features, one matrix product: output
// row m (a position of the padded grid) at kernel position k reads input
// row m + base(k), where base(k) = sum_i k_i * dil_i * rowStride_i is the
// same for every row. So the windows are slices of the flattened input at
// fixed row offsets, side by side along the contracting dim:
//
//	out[m, o] = sum_{k, f} X[m + base(k), f] * R[k, f, o]
//	          = dot(concatenate_k(X[base(k) : base(k)+M]), R as [T*F, O])
//
// computed for every grid position (M = B * prod(S) rows), of which the
// ones inside [B, P...] are the convolution's; the rows that straddle an
// edge are computed and dropped. It is how a TPU's convolution emitter
// feeds the MXU, shifted windows of one resident input accumulating into
// one result, instead of one product per kernel position each adding its
// partial sum to the last through HBM (a 3x3 convolution was nine dot
// kernels and eight sums; see lowering's dot kernel, which reads these
// windows in place). The last rows of the last windows run one image past
// the input, so the input is padded by one image of zeros (expandConv adds
// it to the convolution's own padding).

// FlatGrid enables flatGrid; a variable so that tests can compare the
// tap loop with the straight-line sum over taps, which add in one order.
var FlatGrid = true

// maxFlatWaste bounds the grid positions computed per output position:
// a window large against its input (a 7x7 kernel over 9x9) would compute
// mostly rows it drops.
const maxFlatWaste = 1.6

// flatGridFits reports whether a convolution of geometry g over an input
// padded to pdims [B, S..., F], I input features a group, runs on the
// flattened grid: stride one, several kernel positions (one is already a
// single product) but fewer than the output positions (a weight
// gradient's few outputs over large windows stack positions instead),
// little waste, and (sideBySide: a dense convolution's windows, which
// its dot reads side by side) windows within maxWindowBytes should they
// be copied out.
func flatGridFits(g geometry, pdims []int64, I, esz int64, sideBySide bool) bool {
	n := g.n
	if !FlatGrid {
		return false
	}
	for i := 0; i < n; i++ {
		if g.stride[i] != 1 {
			return false
		}
	}
	T, Pn := hlo.Prod(g.K), hlo.Prod(g.P)
	if T < 2 || T > MaxUnrolledTaps || T > Pn || Pn == 0 || I == 0 {
		return false
	}
	S := hlo.Prod(pdims[1 : n+1])
	B := pdims[0]
	if float64(S) > maxFlatWaste*float64(Pn) {
		return false
	}
	return !sideBySide || B*S*T*I*esz <= maxWindowBytes
}

// maxWindowBytes bounds the windows side by side of a flattened-grid
// convolution: its dot kernel reads them in place, but where it cannot
// (a windowed operand it does not take) the concatenate is copied out
// whole, T times the input.
const maxWindowBytes = 512 << 20

// flatGrid is dense's convolution of Lp[B+1, S..., F] (the last image
// zeros) with R[K..., F, O] as one product on the flattened grid, the
// result cut back to [B, P..., O].
func (x *rewriter) flatGrid(g geometry, Lp, R *hlo.Instruction) *hlo.Instruction {
	n := g.n
	B, F, O := Lp.Shape.Dims[0]-1, Lp.Shape.Dims[n+1], R.Shape.Dims[n+1]
	S := Lp.Shape.Dims[1 : n+1]
	rows := B * hlo.Prod(S)
	rs := hlo.Strides(S)
	X := x.Reshape(Lp, []int64{(B + 1) * hlo.Prod(S), F})
	var windows []*hlo.Instruction
	for _, base := range windowBases(g.K, g.rhsDil, rs) {
		windows = append(windows, x.SliceDim(X, 0, base, rows))
	}
	T := int64(len(windows))
	lhs, W := x.dotOperands(x.Concatenate(windows, 1), x.Reshape(R, []int64{T * F, O}), g.acc)
	D := x.Emit("dot", g.acc, []int64{rows, O}, []*hlo.Instruction{lhs, W},
		"lhs_contracting_dims", "{1}", "rhs_contracting_dims", "{0}")
	return x.outputPositions(D, B, S, g.P)
}

// windowBases is the row offset on the flattened grid (rows rs apart per
// spatial dim) of each kernel position k (row-major over K, dilated by
// dil): sum_i k_i * dil_i * rs_i.
func windowBases(K, dil, rs []int64) []int64 {
	var bases []int64
	for _, k := range hlo.Positions(K) {
		var base int64
		for i := range k {
			base += k[i] * dil[i] * rs[i]
		}
		bases = append(bases, base)
	}
	return bases
}

// outputPositions cuts a result on the flattened grid, [B x prod(S), C],
// back to the convolution's output positions [B, P..., C].
func (x *rewriter) outputPositions(D *hlo.Instruction, B int64, S, P []int64) *hlo.Instruction {
	n, C := len(S), D.Shape.Dims[1]
	grid := x.Reshape(D, append(append([]int64{B}, S...), C))
	start, one := make([]int64, n+2), make([]int64, n+2)
	for i := range one {
		one[i] = 1
	}
	return x.Slice(grid, start, append(append([]int64{B}, P...), C), one)
}

// A weight gradient (a convolution whose window, the output gradient, is
// as large as the input and whose few output positions are the kernel's
// taps) is the same product turned around. With the input as
// [F, S..., B] (XLA's f01b: the forward's batch contracted, its features
// the gradient's rows) and the output gradient as [F, K..., O] (i01o):
//
//	out[p, b, o] = sum_{f, k} Lp[f, p+k, b] * R[f, k, o]
//	             = sum_r X[r + base(p), b] * Rg[r, o]
//
// over the rows r of the flattened padded grid [F, S...], where X is the
// padded input in rows of its B features and Rg the output gradient
// placed on the same grid (zeros past its window). So one dot,
// Rg^T . windows, contracting the rows: [O, P*B], the windows side by
// side along its columns, read in place by the dot kernel as the
// forward's are (dotwindows.go). It replaces two transposes into the
// canonical [B, S..., F], an im2col copy of every output position's
// window and a dot over that copy.

// flatWeightGradient expands the convolution x is at as that dot, or
// returns false with nothing emitted when it is not such a gradient.
func (x *rewriter) flatWeightGradient(lhs, rhs *hlo.Instruction, d hlo.ConvDims, w hlo.Window, acc string) bool {
	in := x.At
	n := len(d.LhsSpatial)
	if !FlatGrid || n == 0 || d.LhsFeature != 0 || d.LhsBatch != n+1 || d.RhsIn != 0 || d.RhsOut != n+1 {
		return false
	}
	for i := 0; i < n; i++ {
		if d.LhsSpatial[i] != 1+i || d.RhsSpatial[i] != 1+i || w.Stride[i] != 1 || w.LhsDil[i] != 1 || w.RhsDil[i] != 1 ||
			i < len(w.RhsRev) && w.RhsRev[i] || w.PadLo[i] < 0 || w.PadHi[i] < 0 {
			return false
		}
	}
	F, B, O := lhs.Shape.Dims[0], lhs.Shape.Dims[n+1], rhs.Shape.Dims[n+1]
	K := rhs.Shape.Dims[1 : n+1]
	S := make([]int64, n) // the padded input's spatial dims
	P := make([]int64, n) // the output positions: the kernel's taps
	for i := 0; i < n; i++ {
		S[i] = lhs.Shape.Dims[1+i] + w.PadLo[i] + w.PadHi[i]
		P[i] = S[i] - K[i] + 1
		if P[i] < 1 || K[i] < 1 {
			return false
		}
	}
	T, Kn := hlo.Prod(P), hlo.Prod(K)
	esz := int64(max(hlo.ElemBits(lhs.Shape.Elem)/8, 1))
	if rhs.Shape.Dims[0] != F || T < 2 || T > MaxUnrolledTaps || T >= Kn || B == 0 || O == 0 || F == 0 ||
		float64(hlo.Prod(S)) > maxFlatWaste*float64(Kn) || F*hlo.Prod(S)*T*B*esz > maxStackedBytes {
		return false
	}
	// The output's dims, for the transpose at the end.
	want := make([]int64, n+2)
	for j := range want {
		want[j] = in.Shape.Dims[j]
	}
	got := append(append([]int64{O}, P...), B) // the canonical result [O, P..., B]
	perm := make([]int64, n+2)
	perm[d.OutFeature], perm[d.OutBatch] = 0, int64(n+1)
	for i, j := range d.OutSpatial {
		perm[j] = int64(1 + i)
	}
	for j, p := range perm {
		if got[p] != want[j] {
			return false
		}
	}

	zero := x.Constant(lhs.Shape.Elem, "0")
	cfg := make([]string, n+2)
	cfg[0], cfg[n+1] = "0_1", "0_0" // one more image of zeros: the last windows' slack
	pdims := append([]int64{F + 1}, S...)
	pdims = append(pdims, B)
	for i := 0; i < n; i++ {
		cfg[1+i] = fmt.Sprintf("%d_%d", w.PadLo[i], w.PadHi[i])
	}
	Lp := x.Emit("pad", lhs.Shape.Elem, pdims, []*hlo.Instruction{lhs, zero}, "padding", strings.Join(cfg, "x"))
	rows := F * hlo.Prod(S)
	X := x.Reshape(Lp, []int64{(F + 1) * hlo.Prod(S), B})
	var windows []*hlo.Instruction
	for _, base := range windowBases(P, hlo.Ones(n), hlo.Strides(S)) {
		windows = append(windows, x.SliceDim(X, 0, base, rows))
	}
	// The output gradient on the grid: zeros past its window.
	rcfg := make([]string, n+2)
	rcfg[0], rcfg[n+1] = "0_0", "0_0"
	gdims := append([]int64{F}, S...)
	gdims = append(gdims, O)
	for i := 0; i < n; i++ {
		rcfg[1+i] = fmt.Sprintf("0_%d", S[i]-K[i])
	}
	Rg := x.Emit("pad", rhs.Shape.Elem, gdims, []*hlo.Instruction{rhs, x.Constant(rhs.Shape.Elem, "0")}, "padding", strings.Join(rcfg, "x"))
	G, W := x.dotOperands(x.Reshape(Rg, []int64{rows, O}), x.Concatenate(windows, 1), acc)
	D := x.Emit("dot", acc, []int64{O, T * B}, []*hlo.Instruction{G, W},
		"lhs_contracting_dims", "{0}", "rhs_contracting_dims", "{0}")
	res := x.Convert(x.Reshape(D, got), in.Shape.Elem)
	res = x.Transpose(res, perm)
	x.Finish(res)
	return true
}

// flatDepthwise is depthwise's convolution (one input and one output
// feature a group: out[b, p, c] = sum_k Lp[b, p+k, c] * R[k, 0, c]) on
// the flattened grid: each kernel position's term is a row slice of the
// flattened input times that position's weights, summed in the order the
// unrolled expansion sums them (so the bits are the same), the result cut
// back to [B, P..., C]. The slices are the same array shifted by whole
// rows, which the loop kernel loads once for all of them (the stream
// kernel's shared windows) where the 4-D windows were each read from HBM.
func (x *rewriter) flatDepthwise(g geometry, Lp, R *hlo.Instruction) *hlo.Instruction {
	n := g.n
	B, C := Lp.Shape.Dims[0]-1, Lp.Shape.Dims[n+1]
	S := Lp.Shape.Dims[1 : n+1]
	rows := B * hlo.Prod(S)
	rs := hlo.Strides(S)
	X := x.Reshape(Lp, []int64{(B + 1) * hlo.Prod(S), C})
	dims := []int64{rows, C}
	bases := windowBases(g.K, g.rhsDil, rs)
	var sum *hlo.Instruction
	for j, k := range hlo.Positions(g.K) {
		Xk := x.Convert(x.SliceDim(X, 0, bases[j], rows), g.acc)
		W := x.Convert(x.Reshape(x.kernelAt(g, R, k), []int64{C}), g.acc)
		sum = x.Binary("add", sum, x.Binary("multiply", Xk, x.Broadcast(W, dims, []int64{1})))
	}
	return x.outputPositions(sum, B, S, g.P)
}

// A 1x1 convolution in NCHW (PyTorch's pointwise convolutions, and their
// input gradients) is, for each image b, out[b] [O, H*W] = W [O, I] .
// X[b] [I, H*W]: the weights the same for every image, the image's
// channels contracted along its rows. As one batched dot whose lhs is the
// weights broadcast over the batch (which the fusion keeps in the dot's
// fusion and the dot kernel reads in place, a batch stride of zero:
// fusion's operandBroadcast), the input and output stay in NCHW, where
// the canonical form transposed the input to NHWC and the result back
// (MobileNet-v2's f32[96,96,112,112] expansion: a 2.58M-cycle transpose
// of its output alone).

// nchwPointwise expands the convolution x is at as that dot, or returns
// false with nothing emitted.
func (x *rewriter) nchwPointwise(lhs, rhs *hlo.Instruction, d hlo.ConvDims, w hlo.Window, acc string) bool {
	in := x.At
	n := len(d.LhsSpatial)
	if !FlatGrid || n == 0 || d.LhsBatch != 0 || d.LhsFeature != 1 || d.OutBatch != 0 || d.OutFeature != 1 {
		return false
	}
	for i := 0; i < n; i++ {
		if d.LhsSpatial[i] != 2+i || d.OutSpatial[i] != 2+i || w.Size[i] != 1 || w.Stride[i] != 1 || w.LhsDil[i] != 1 ||
			w.RhsDil[i] != 1 || w.PadLo[i] != 0 || w.PadHi[i] != 0 || i < len(w.RhsRev) && w.RhsRev[i] {
			return false
		}
	}
	B, I := lhs.Shape.Dims[0], lhs.Shape.Dims[1]
	O := rhs.Shape.Dims[d.RhsOut]
	HW := hlo.Prod(lhs.Shape.Dims[2:])
	if rhs.Shape.Dims[d.RhsIn] != I || B < 2 || HW < 2 || !hlo.EqualDims(in.Shape.Dims, append([]int64{B, O}, lhs.Shape.Dims[2:]...)) {
		return false
	}
	// The weights as [O, I]: the spatial dims are ones.
	perm := []int64{int64(d.RhsOut), int64(d.RhsIn)}
	for _, s := range d.RhsSpatial {
		perm = append(perm, int64(s))
	}
	Wt := x.Transpose(rhs, perm)
	Wm := x.Reshape(Wt, []int64{O, I})
	X := x.Reshape(lhs, []int64{B, I, HW})
	Wc, Xc := x.dotOperands(Wm, X, acc)
	Wb := x.Broadcast(Wc, []int64{B, O, I}, []int64{1, 2})
	D := x.Emit("dot", acc, []int64{B, O, HW}, []*hlo.Instruction{Wb, Xc},
		"lhs_batch_dims", "{0}", "lhs_contracting_dims", "{2}", "rhs_batch_dims", "{0}", "rhs_contracting_dims", "{1}")
	res := x.Convert(x.Reshape(D, in.Shape.Dims), in.Shape.Elem)
	x.Finish(res)
	return true
}

// nchwPointwiseGradient is the weight gradient of a 1x1 convolution in
// NCHW (XLA's fb01_io01->01bf over windows as large as the image): for
// each image f, X[f] [B, H*W] . Y[f]^T [H*W, O], summed over the images.
// One batched dot over the images (Y contracted along its rows' minor
// dim, which the MXU loads transposed) and a sum over the batch: the
// canonical form transposed both operands (the output gradient whole)
// to bring the contracted dims together. The same arithmetic in another
// order (the products summed per image first).
func (x *rewriter) nchwPointwiseGradient(lhs, rhs *hlo.Instruction, d hlo.ConvDims, w hlo.Window, acc string) bool {
	in := x.At
	n := len(d.LhsSpatial)
	if !FlatGrid || n == 0 || d.LhsFeature != 0 || d.LhsBatch != 1 || d.RhsIn != 0 || d.RhsOut != 1 {
		return false
	}
	for i := 0; i < n; i++ {
		if d.LhsSpatial[i] != 2+i || d.RhsSpatial[i] != 2+i || w.Size[i] != lhs.Shape.Dims[2+i] || w.Stride[i] != 1 ||
			w.LhsDil[i] != 1 || w.RhsDil[i] != 1 || w.PadLo[i] != 0 || w.PadHi[i] != 0 || i < len(w.RhsRev) && w.RhsRev[i] {
			return false
		}
	}
	F, B, O := lhs.Shape.Dims[0], lhs.Shape.Dims[1], rhs.Shape.Dims[1]
	HW := hlo.Prod(lhs.Shape.Dims[2:])
	if rhs.Shape.Dims[0] != F || !hlo.EqualDims(rhs.Shape.Dims[2:], lhs.Shape.Dims[2:]) || F < 2 || HW < 2 {
		return false
	}
	operm := make([]int64, n+2)
	operm[d.OutBatch], operm[d.OutFeature] = 0, int64(n+1)
	for i, j := range d.OutSpatial {
		operm[j] = int64(1 + i)
	}
	got := append(append([]int64{B}, hlo.Ones(n)...), O)
	for j, p := range operm {
		if got[p] != in.Shape.Dims[j] {
			return false
		}
	}
	X, Y := x.dotOperands(x.Reshape(lhs, []int64{F, B, HW}), x.Reshape(rhs, []int64{F, O, HW}), acc)
	D := x.Emit("dot", acc, []int64{F, B, O}, []*hlo.Instruction{X, Y},
		"lhs_batch_dims", "{0}", "lhs_contracting_dims", "{2}", "rhs_batch_dims", "{0}", "rhs_contracting_dims", "{2}")
	sum := x.ReduceSum(D, []int64{0})
	res := x.Transpose(x.Reshape(x.Convert(sum, in.Shape.Elem), got), operm)
	x.Finish(res)
	return true
}

// A strided convolution reads every s-th window: on the flattened grid
// its output positions are not one row apart. Space-to-depth makes it a
// stride-one convolution: the padded input regrouped into blocks of s
// positions per spatial dim, each block's positions stacked into the
// features ([B, S/s..., s..., F] -> [B, S/s..., s^n x F]), and the
// kernel likewise ([ceil(K/s) s..., F, O] -> [ceil(K/s)..., s^n x F, O],
// zeros for the positions past K), since out[p] = sum_k Lp[s p + k] R[k]
// = sum_{k', r} Lp[s (p + k') + r] R[s k' + r]. The stride-one
// convolution then runs on the flattened grid (flatGrid). It replaces a
// strided slice per kernel position, each reading runs of F elements
// (MobileNet-v2's first convolution: nine of them, 0.99M cycles each),
// by one regrouping copy of the input.

// spaceToDepth is dense's strided convolution of Lp[B, S..., F] with
// R[K..., F, O] in that form, or nil with nothing emitted when it does
// not fit the flattened grid.
func (x *rewriter) spaceToDepth(g geometry, Lp, R *hlo.Instruction) *hlo.Instruction {
	n := g.n
	strided := false
	for i := 0; i < n; i++ {
		if g.rhsDil[i] != 1 || g.stride[i] < 1 {
			return nil
		}
		strided = strided || g.stride[i] > 1
	}
	if !strided || !FlatGrid {
		return nil
	}
	B, F, O := Lp.Shape.Dims[0], Lp.Shape.Dims[n+1], R.Shape.Dims[n+1]
	s, K2, S2 := g.stride, make([]int64, n), make([]int64, n)
	blocks := int64(1)
	for i := 0; i < n; i++ {
		K2[i] = (g.K[i] + s[i] - 1) / s[i]
		S2[i] = max((Lp.Shape.Dims[1+i]+s[i]-1)/s[i], g.P[i]+K2[i]-1)
		blocks *= s[i]
	}
	g2 := geometry{n: n, K: K2, P: g.P, stride: hlo.Ones(n), rhsDil: hlo.Ones(n), acc: g.acc, flat: true}
	esz := int64(max(hlo.ElemBits(Lp.Shape.Elem)/8, 1))
	pd := append(append([]int64{B + 1}, S2...), blocks*F)
	if !flatGridFits(g2, pd, blocks*F, esz, true) {
		return nil
	}
	// The input: padded to whole blocks (and one more image of zeros for
	// the grid's last windows), then regrouped.
	lo, hi := make([]int64, n+2), make([]int64, n+2)
	hi[0] = 1
	split := []int64{B + 1}
	for i := 0; i < n; i++ {
		hi[1+i] = S2[i]*s[i] - Lp.Shape.Dims[1+i]
		split = append(split, S2[i], s[i])
	}
	split = append(split, F)
	perm := []int64{0}
	for i := 0; i < n; i++ {
		perm = append(perm, int64(1+2*i))
	}
	for i := 0; i < n; i++ {
		perm = append(perm, int64(2+2*i))
	}
	perm = append(perm, int64(2*n+1))
	L2 := x.Reshape(x.Transpose(x.Reshape(x.growPad(Lp, lo, hi), split), perm), pd)
	// The kernel: padded to whole blocks, regrouped the same way.
	rlo, rhi := make([]int64, n+2), make([]int64, n+2)
	rsplit := []int64{}
	for i := 0; i < n; i++ {
		rhi[i] = K2[i]*s[i] - g.K[i]
		rsplit = append(rsplit, K2[i], s[i])
	}
	rsplit = append(rsplit, F, O)
	var rperm []int64
	for i := 0; i < n; i++ {
		rperm = append(rperm, int64(2*i))
	}
	for i := 0; i < n; i++ {
		rperm = append(rperm, int64(2*i+1))
	}
	rperm = append(rperm, int64(2*n), int64(2*n+1))
	R2 := x.Reshape(x.Transpose(x.Reshape(x.padZeros(R, rlo, rhi), rsplit), rperm), append(append([]int64{}, K2...), blocks*F, O))
	return x.flatGrid(g2, L2, R2)
}

// growPad is padZeros of a, except that a pad this expansion has just
// emitted (the convolution's own padding, read by nothing else yet) grows
// by hi instead, so that the input is copied once.
func (x *rewriter) growPad(a *hlo.Instruction, lo, hi []int64) *hlo.Instruction {
	mine := a.Opcode == hlo.OpPad && len(x.Out) > 0 && x.Out[len(x.Out)-1] == a
	if !mine {
		return x.padZeros(a, lo, hi)
	}
	for _, l := range lo {
		if l != 0 {
			return x.padZeros(a, lo, hi)
		}
	}
	pd := hlo.PadDims(a)
	if len(pd) != len(hi) {
		return x.padZeros(a, lo, hi)
	}
	cfg := make([]string, len(pd))
	for i, d := range pd {
		cfg[i] = fmt.Sprintf("%d_%d_%d", d.Lo, d.Hi+hi[i], d.Interior)
		a.Shape.Dims[i] += hi[i]
	}
	for i := range a.Attrs {
		if a.Attrs[i].Key == "padding" {
			a.Attrs[i].Value = strings.Join(cfg, "x")
		}
	}
	return a
}
