package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
)

// A depthwise convolution with one output feature per group is, per
// kernel position, a multiply of the shifted input by that position's
// weights broadcast along the feature dim, and a sum over positions: no
// dim is contracted, so no layout is canonical. Computed in the output's
// own dim order, a convolution whose features are not its minor dim
// (PyTorch's NCHW) reads its input and writes its result as they lie,
// where the canonical form transposed the input to NHWC and the result
// back, two copies as large as the activation around a kernel that moved
// it once (MobileNet-v2's 3x3 depthwise convolutions: transposes, a
// padded NHWC copy and tap sums over windows of 32-96 features a row).
// Each position's window is the padded input shifted within its rows;
// the loop kernel loads the rows once for all nine (lowering's
// shareWindows).

// depthwiseInLayout expands the depthwise convolution x is at in its
// output's dim order, or returns false with nothing emitted.
func (x *rewriter) depthwiseInLayout(lhs, rhs *hlo.Instruction, d hlo.ConvDims, w hlo.Window, acc string, G int64) bool {
	in := x.At
	n := len(d.LhsSpatial)
	if n == 0 || d.OutFeature == n+1 || len(lhs.Shape.Dims) != n+2 || len(rhs.Shape.Dims) != n+2 || len(in.Shape.Dims) != n+2 {
		return false // a channels-last result runs on the flattened grid
	}
	F, I, O := lhs.Shape.Dims[d.LhsFeature], rhs.Shape.Dims[d.RhsIn], rhs.Shape.Dims[d.RhsOut]
	if F != G || I != 1 || O != G || in.Shape.Dims[d.OutFeature] != G || lhs.Shape.Dims[d.LhsBatch] != in.Shape.Dims[d.OutBatch] {
		return false
	}
	// perm[j]: the input dim that output dim j reads.
	perm := make([]int64, n+2)
	perm[d.OutBatch], perm[d.OutFeature] = int64(d.LhsBatch), int64(d.LhsFeature)
	K := make([]int64, n)
	for i := range n {
		perm[d.OutSpatial[i]] = int64(d.LhsSpatial[i])
		K[i] = rhs.Shape.Dims[d.RhsSpatial[i]]
		// An lhs dilation (a strided convolution's input gradient) would
		// be interior padding of the minor dims, the input's elements
		// landing apart, a DMA run each: such a convolution keeps the
		// canonical layout, its features innermost.
		if w.LhsDil[i] != 1 || w.PadLo[i] < 0 || w.PadHi[i] < 0 || K[i] < 1 {
			return false
		}
	}
	if hlo.Prod(K) > MaxUnrolledTaps {
		return false
	}
	Lo := x.Transpose(lhs, perm)
	lo, hi := make([]int64, n+2), make([]int64, n+2)
	for i := range n {
		j := d.OutSpatial[i]
		lo[j], hi[j] = w.PadLo[i], w.PadHi[i]
		span := (K[i]-1)*w.RhsDil[i] + 1
		padded := Lo.Shape.Dims[j] + lo[j] + hi[j]
		if padded < span || (padded-span)/w.Stride[i]+1 != in.Shape.Dims[j] {
			return false
		}
	}
	Lp := Lo
	if anyPositive(lo) || anyPositive(hi) {
		Lp = x.padZeros(Lo, lo, hi)
	}
	ones := hlo.Ones(n + 2)
	var sum *hlo.Instruction
	for _, k := range hlo.Positions(K) {
		start, count, stride := make([]int64, n+2), append([]int64{}, in.Shape.Dims...), append([]int64{}, ones...)
		wstart, wcount := make([]int64, n+2), append([]int64{}, rhs.Shape.Dims...)
		for i := range n {
			j := d.OutSpatial[i]
			start[j], stride[j] = k[i]*w.RhsDil[i], w.Stride[i]
			kk := k[i]
			if i < len(w.RhsRev) && w.RhsRev[i] {
				kk = K[i] - 1 - k[i]
			}
			wstart[d.RhsSpatial[i]], wcount[d.RhsSpatial[i]] = kk, 1
		}
		// The weights are broadcast before they are converted: a loop
		// kernel broadcasts what it loads, not what it computes.
		X := x.Convert(x.Slice(Lp, start, count, stride), acc)
		W := x.Reshape(x.Slice(rhs, wstart, wcount, ones), []int64{O})
		Wb := x.Convert(x.Broadcast(W, in.Shape.Dims, []int64{int64(d.OutFeature)}), acc)
		sum = x.Binary("add", sum, x.Binary("multiply", X, Wb))
	}
	x.Finish(x.Convert(sum, in.Shape.Elem))
	return true
}
