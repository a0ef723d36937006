package legalize

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
)

// The weight gradient of a depthwise convolution over NCHW activations
// (PyTorch's, as torch_xla lowers it: lhs the input x[B,C,H,W] read as
// "fb01", rhs the output gradient dy[B,C,H',W'] as "io01",
// batch_group_count = C) is, per channel c and kernel position p,
//
//	out[p, c] = sum over images b and positions q of xpad[b, c, p + q*d] * dy[b, c, q]
//
// a correlation of each image plane of x with the same plane of dy. The
// canonical form transposed both operands to [C, H, W, B], padded x, and
// summed each kernel position's products over the whole batch in a
// kernel of its own: nine passes over both arrays for a 3x3 kernel, 23
// times the bytes the convolution reads (MobileNet-v2: a third of its
// step). A TPU's convolution reads each plane once.
//
// Here the convolution becomes one per plane, B*C groups of one image
// each: convolution(x as [1, B*C, H, W], dy as [1, B*C, H', W']) with
// batch_group_count = B*C gives out[0, b*C+c, p], the sum over one
// plane; the lowering's plane-correlation kernel (lowering/planecorr.go)
// loads each plane of x into a zero-bordered buffer and each of dy once,
// and takes every kernel position's products and row sums on the vector
// unit. A reduction over the images and a small transpose to the
// result's dims follow. The same arithmetic, summed per plane first.

// PlaneCorrelation enables nchwDepthwiseFilterGradient: the compiler's
// lowering has its kernel. A variable so that tests can compare.
var PlaneCorrelation = true

// MaxPlaneTaps bounds the kernel positions a plane correlation takes
// (each a multiply and a row sum per plane).
const MaxPlaneTaps = 64

// PlaneGeometry is a plane correlation's: R planes (B*C); x's planes
// [H, W], dy's [H', W']; the kernel positions P; x's padding before each
// spatial dim; the rhs dilation (the forward convolution's stride).
type PlaneGeometry struct {
	R          int64
	X, Dy, P   [2]int64
	PadLo, Dil [2]int64
}

// PlaneCorrelationOf reports whether convolution in (of operands shaped
// lhs and rhs) is one plane correlation as nchwDepthwiseFilterGradient
// emits it, and its geometry: the forms the lowering's kernel takes.
func PlaneCorrelationOf(in *hlo.Instruction, lhs, rhs *hlo.Shape) (PlaneGeometry, bool) {
	var g PlaneGeometry
	if in.Opcode != hlo.OpConvolution || in.Shape == nil || in.Shape.IsTuple || lhs == nil || rhs == nil || lhs.IsTuple || rhs.IsTuple {
		return g, false
	}
	if hlo.AttrOr(in, "dim_labels", "") != "fb01_io01->bf01" || hlo.AttrIntOr(in, "feature_group_count", 1) != 1 {
		return g, false
	}
	if in.Shape.Elem != hlo.F32 || lhs.Elem != hlo.F32 || rhs.Elem != hlo.F32 {
		return g, false
	}
	if len(lhs.Dims) != 4 || len(rhs.Dims) != 4 || len(in.Shape.Dims) != 4 || lhs.Dims[0] != 1 || rhs.Dims[0] != 1 || in.Shape.Dims[0] != 1 {
		return g, false
	}
	g.R = lhs.Dims[1]
	if g.R < 1 || rhs.Dims[1] != g.R || in.Shape.Dims[1] != g.R || hlo.AttrIntOr(in, "batch_group_count", 1) != g.R {
		return g, false
	}
	w, err := hlo.ParseWindow(hlo.AttrOr(in, "window", ""), 2)
	if err != nil {
		return g, false
	}
	for i := range 2 {
		g.X[i], g.Dy[i], g.P[i] = lhs.Dims[2+i], rhs.Dims[2+i], in.Shape.Dims[2+i]
		g.PadLo[i], g.Dil[i] = w.PadLo[i], w.RhsDil[i]
		if w.Size[i] != g.Dy[i] || w.Stride[i] != 1 || w.LhsDil[i] != 1 || w.RhsDil[i] < 1 || w.PadLo[i] < 0 || w.PadHi[i] < 0 ||
			i < len(w.RhsRev) && w.RhsRev[i] || g.Dy[i] < 1 || g.P[i] < 1 {
			return g, false
		}
		// The last position's window ends inside the padded plane.
		if g.P[i]-1+(g.Dy[i]-1)*g.Dil[i] >= g.X[i]+w.PadLo[i]+w.PadHi[i] {
			return g, false
		}
	}
	if g.P[0]*g.P[1] > MaxPlaneTaps {
		return g, false
	}
	return g, true
}

// nchwDepthwiseFilterGradient rewrites the convolution x is at into plane
// correlations (above), or returns false with nothing emitted.
func (x *rewriter) nchwDepthwiseFilterGradient(lhs, rhs *hlo.Instruction, d hlo.ConvDims, w hlo.Window, fits func(PlaneGeometry) bool) bool {
	in := x.At
	n := len(d.LhsSpatial)
	if !PlaneCorrelation || n != 2 || d.LhsFeature != 0 || d.LhsBatch != 1 || d.RhsIn != 0 || d.RhsOut != 1 {
		return false
	}
	if in.Shape.Elem != hlo.F32 || lhs.Shape.Elem != hlo.F32 || rhs.Shape.Elem != hlo.F32 {
		return false
	}
	B, C := lhs.Shape.Dims[0], lhs.Shape.Dims[1]
	if C < 2 || hlo.AttrIntOr(in, "batch_group_count", 1) != C || hlo.AttrIntOr(in, "feature_group_count", 1) != 1 ||
		rhs.Shape.Dims[0] != B || rhs.Shape.Dims[1] != C {
		return false
	}
	for i := range n {
		if d.LhsSpatial[i] != 2+i || d.RhsSpatial[i] != 2+i {
			return false
		}
	}
	// The result: batch 1, features C, the kernel positions.
	operm := make([]int64, n+2)
	operm[d.OutBatch], operm[d.OutFeature] = 0, int64(n+1)
	for i, j := range d.OutSpatial {
		operm[j] = int64(1 + i)
	}
	var P [2]int64
	for i, j := range d.OutSpatial {
		P[i] = in.Shape.Dims[j]
	}
	got := []int64{1, P[0], P[1], C}
	for j, p := range operm {
		if got[p] != in.Shape.Dims[j] {
			return false
		}
	}
	win := fmt.Sprintf("size=%dx%d pad=%d_%dx%d_%d rhs_dilate=%dx%d", rhs.Shape.Dims[2], rhs.Shape.Dims[3],
		w.PadLo[0], w.PadHi[0], w.PadLo[1], w.PadHi[1], w.RhsDil[0], w.RhsDil[1])
	// Check the per-plane form before emitting anything.
	probe := &hlo.Instruction{Opcode: hlo.OpConvolution, Shape: &hlo.Shape{Elem: hlo.F32, Dims: []int64{1, B * C, P[0], P[1]}},
		Attrs: []hlo.Attr{{Key: "window", Value: "{" + win + "}"}, {Key: "dim_labels", Value: "fb01_io01->bf01"},
			{Key: "batch_group_count", Value: fmt.Sprint(B * C)}}}
	xs := &hlo.Shape{Elem: hlo.F32, Dims: []int64{1, B * C, lhs.Shape.Dims[2], lhs.Shape.Dims[3]}}
	ys := &hlo.Shape{Elem: hlo.F32, Dims: []int64{1, B * C, rhs.Shape.Dims[2], rhs.Shape.Dims[3]}}
	if pg, ok := PlaneCorrelationOf(probe, xs, ys); !ok || fits != nil && !fits(pg) {
		return false
	}
	X := x.Reshape(lhs, xs.Dims)
	Y := x.Reshape(rhs, ys.Dims)
	planes := x.Emit(hlo.OpConvolution, hlo.F32, probe.Shape.Dims, []*hlo.Instruction{X, Y},
		"window", "{"+win+"}", "dim_labels", "fb01_io01->bf01", "batch_group_count", fmt.Sprint(B*C))
	perImage := x.Reshape(planes, []int64{B, C, P[0] * P[1]})
	sum := x.ReduceSum(perImage, []int64{0}) // [C, P]
	res := x.Transpose(x.Reshape(x.Transpose(sum, []int64{1, 0}), got), operm)
	x.Finish(res)
	return true
}
