package legalize

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
	"strings"
)

// ExpandConvolutions rewrites every convolution of the module into ops the
// lowering has kernels for — transpose, pad, slice, reshape, dot, multiply,
// add, broadcast, reduce, concatenate, convert — the way a TPU compiler maps
// a convolution onto the matrix unit: as a sum of matrix products, one per
// kernel window position (or one per output position when the window is
// larger than the output, as in weight gradients).
//
// The shapes are canonicalized first: the input to [batch, spatial...,
// feature], the kernel to [spatial..., in, out]; padding and lhs dilation
// become one pad (interior padding is the dilation); strides and rhs
// dilation become strided slices. feature_group_count splits into one
// convolution per group, except depthwise groups (one input feature each),
// which multiply on the vector unit; batch_group_count likewise, with the
// depthwise weight gradient as a multiply and a reduction. Products
// accumulate in f32 (integers in s32) and convert to the result type once.
//
// Every new instruction keeps the convolution's position, so the debug map
// points at it, and is named "conv.op.N"; the last takes the convolution's
// name. The rewrite is checked against the reference evaluator
// (TestExpandConvolutions).
func ExpandConvolutions(m *hlo.Module) error { return ExpandConvolutionsFor(nil)(m) }

// ExpandConvolutionsFor is ExpandConvolutions for a compiler whose plane
// correlation kernel takes the geometries planeFits accepts (nil: every
// one PlaneCorrelationOf describes); the depthwise weight gradients of
// other geometries take the canonical form.
func ExpandConvolutionsFor(planeFits func(PlaneGeometry) bool) func(*hlo.Module) error {
	return func(m *hlo.Module) error {
		return rewriteEach(m, "convolution", func(x *rewriter, ops []*hlo.Instruction) error {
			if len(ops) != 2 || x.At.Shape == nil || x.At.Shape.IsTuple {
				return x.Errorf("a convolution takes two arrays")
			}
			return x.expandConv(ops[0], ops[1], planeFits)
		})
	}
}

// accumulationType is the type products are summed in.
func accumulationType(elem string) string {
	switch {
	case elem == hlo.F64:
		return elem
	case hlo.IsRealFloat(elem):
		return "f32"
	case strings.HasPrefix(elem, "s") || strings.HasPrefix(elem, "u"):
		if elem == hlo.S64 || elem == hlo.U64 {
			return elem
		}
		return "s32"
	}
	return elem
}

// geometry is a canonical convolution: Lp[B, S..., F] (padded and
// dilated) with kernel R[K..., I, O] and output [B, P..., O].
type geometry struct {
	n              int
	K, P           []int64
	stride, rhsDil []int64
	acc            string
	// flat: the convolution runs on the flattened padded grid (flatGrid),
	// its input padded by one more batch image of zeros.
	flat bool
}

func (x *rewriter) expandConv(lhs, rhs *hlo.Instruction, planeFits func(PlaneGeometry) bool) error {
	in := x.At
	labels, ok := in.Attr("dim_labels")
	if !ok {
		return x.Errorf("no dim_labels")
	}
	d, err := hlo.ParseDimLabels(labels)
	if err != nil {
		return x.Errorf("%v", err)
	}
	n := len(d.LhsSpatial)
	wv, _ := in.Attr("window")
	w, err := hlo.ParseWindow(wv, n)
	if err != nil {
		return x.Errorf("%v", err)
	}
	G, Gb := hlo.AttrIntOr(in, "feature_group_count", 1), hlo.AttrIntOr(in, "batch_group_count", 1)
	if G < 1 || Gb < 1 || (G > 1 && Gb > 1) {
		return x.Errorf("feature_group_count %d with batch_group_count %d", G, Gb)
	}
	if len(lhs.Shape.Dims) != n+2 || len(rhs.Shape.Dims) != n+2 || len(in.Shape.Dims) != n+2 {
		return x.Errorf("operand ranks do not match dim_labels %s", labels)
	}
	for i := 0; i < n; i++ {
		if w.Stride[i] < 1 || w.LhsDil[i] < 1 || w.RhsDil[i] < 1 {
			return x.Errorf("window strides and dilations must be positive")
		}
	}
	g := geometry{n: n, stride: w.Stride, rhsDil: w.RhsDil, acc: accumulationType(in.Shape.Elem)}
	if G == 1 && Gb == 1 && (x.flatWeightGradient(lhs, rhs, d, w, g.acc) || x.nchwPointwise(lhs, rhs, d, w, g.acc) ||
		x.nchwPointwiseGradient(lhs, rhs, d, w, g.acc)) {
		return nil
	}
	if G == 1 && Gb > 1 && x.nchwDepthwiseFilterGradient(lhs, rhs, d, w, planeFits) {
		return nil
	}
	if G > 1 && Gb == 1 && FlatGrid && x.depthwiseInLayout(lhs, rhs, d, w, g.acc, G) {
		return nil
	}

	// Canonical operands.
	lperm := append(append([]int64{int64(d.LhsBatch)}, ints64(d.LhsSpatial)...), int64(d.LhsFeature))
	L := x.Transpose(lhs, lperm)
	R := x.Transpose(rhs, append(ints64(d.RhsSpatial), int64(d.RhsIn), int64(d.RhsOut)))
	var rev []int64
	for i, r := range w.RhsRev {
		if r {
			rev = append(rev, int64(i))
		}
	}
	if len(rev) > 0 {
		R = x.Emit("reverse", R.Shape.Elem, R.Shape.Dims, []*hlo.Instruction{R}, "dimensions", hlo.IntsText(rev))
	}
	Lp := L
	needPad := false
	cfg := make([]string, n+2)
	cfg[0], cfg[n+1] = "0_0", "0_0"
	pdims := append([]int64{}, L.Shape.Dims...)
	for i := 0; i < n; i++ {
		s := L.Shape.Dims[1+i]
		dil := int64(0)
		if s > 0 {
			dil = (s-1)*w.LhsDil[i] + 1
		}
		pdims[1+i] = dil + w.PadLo[i] + w.PadHi[i]
		if pdims[1+i] < 0 {
			pdims[1+i] = 0
		}
		cfg[1+i] = fmt.Sprintf("%d_%d_%d", w.PadLo[i], w.PadHi[i], w.LhsDil[i]-1)
		needPad = needPad || w.PadLo[i] != 0 || w.PadHi[i] != 0 || w.LhsDil[i] != 1
	}
	B, F := L.Shape.Dims[0], L.Shape.Dims[n+1]
	g.K = append([]int64{}, R.Shape.Dims[:n]...)
	I, O := R.Shape.Dims[n], R.Shape.Dims[n+1]
	g.P = make([]int64, n)
	for i := 0; i < n; i++ {
		span := (g.K[i]-1)*w.RhsDil[i] + 1
		if pdims[1+i] >= span && g.K[i] > 0 {
			g.P[i] = (pdims[1+i]-span)/w.Stride[i] + 1
		}
	}
	subPixel := G == 1 && Gb == 1 && subPixelFits(g, w, L.Shape.Dims[1:n+1])
	// A depthwise convolution on the flattened grid is worth it only where
	// its result is read as it is: the slice of the grid's output positions
	// then fuses into its consumers, where a transpose back to the output's
	// layout (NCHW) would copy it out first (MobileNet-v2's 56x56 ones:
	// 3.33M cycles as tap sums over 4-D windows, 3.50M on the grid).
	nhwcOut := d.OutBatch == 0 && d.OutFeature == n+1
	for i, j := range d.OutSpatial {
		nhwcOut = nhwcOut && j == 1+i
	}
	depthwiseOne := G > 1 && I == 1 && O == G && nhwcOut // one output feature a group
	if (G == 1 || depthwiseOne) && Gb == 1 && !subPixel && flatGridFits(g, pdims, I, int64(max(hlo.ElemBits(L.Shape.Elem)/8, 1)), G == 1) {
		g.flat = true
		cfg[0] = "0_1"
		pdims[0]++
		needPad = true
	}
	if needPad && !subPixel {
		zero := x.Constant(L.Shape.Elem, "0")
		Lp = x.Emit("pad", L.Shape.Elem, pdims, []*hlo.Instruction{L, zero}, "padding", strings.Join(cfg, "x"))
	}
	// The canonical result [B', P..., O] and its permutation to the output.
	operm := make([]int64, n+2)
	operm[d.OutBatch], operm[d.OutFeature] = 0, int64(n+1)
	for i, j := range d.OutSpatial {
		operm[j] = int64(1 + i)
	}
	want := make([]int64, n+2)
	for j, p := range operm {
		want[p] = in.Shape.Dims[j]
	}
	got := append(append([]int64{B / Gb}, g.P...), O)
	if F != I*G || B%Gb != 0 || O%(G*Gb) != 0 || !hlo.EqualDims(got, want) {
		return x.Errorf("shapes do not agree with dim_labels %s, the window and the group counts", labels)
	}

	var res *hlo.Instruction
	switch {
	case subPixel && hlo.Prod(got) > 0 && I > 0:
		res = x.subPixel(g, w, L, R)
	case hlo.Prod(got) == 0 || I == 0:
		zero := x.Constant(g.acc, "0")
		res = x.Broadcast(zero, got, nil)
	case G > 1 && I == 1:
		res = x.depthwise(g, Lp, R, G)
	case G > 1:
		var parts []*hlo.Instruction
		for k := int64(0); k < G; k++ {
			Lg := x.SliceDim(Lp, n+1, k*I, I)
			Rg := x.SliceDim(R, n+1, k*(O/G), O/G)
			parts = append(parts, x.dense(g, Lg, Rg))
			if x.N > rewrite.MaxExpandedOps {
				return x.Errorf("%d feature groups expand into more than %d ops", G, rewrite.MaxExpandedOps)
			}
		}
		res = x.Concatenate(parts, n+1)
	case Gb > 1 && B == Gb && O == Gb:
		res = x.depthwiseBatchGroups(g, Lp, R)
	case Gb > 1:
		var parts []*hlo.Instruction
		for k := int64(0); k < Gb; k++ {
			Lg := x.SliceDim(Lp, 0, k*(B/Gb), B/Gb)
			Rg := x.SliceDim(R, n+1, k*(O/Gb), O/Gb)
			parts = append(parts, x.dense(g, Lg, Rg))
			if x.N > rewrite.MaxExpandedOps {
				return x.Errorf("%d batch groups expand into more than %d ops", Gb, rewrite.MaxExpandedOps)
			}
		}
		res = x.Concatenate(parts, n+1)
	default:
		res = x.dense(g, Lp, R)
	}
	if x.N > rewrite.MaxExpandedOps {
		return x.Errorf("expands into more than %d ops", rewrite.MaxExpandedOps)
	}
	res = x.Convert(res, in.Shape.Elem)
	res = x.Transpose(res, operm)
	if len(x.Out) == 0 || x.Out[len(x.Out)-1] != res {
		// The result is an operand as it is (a 1x1 convolution of ones is
		// not, but keep the name): copy it under the convolution's name.
		x.Emit("copy", res.Shape.Elem, res.Shape.Dims, []*hlo.Instruction{res})
	}
	return nil
}

func ints64(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// windowSlice is Lp's slice at kernel position k (its output positions) or
// at output position p (its kernel window).
func (x *rewriter) windowSlice(g geometry, Lp *hlo.Instruction, pos []int64, perKernel bool) *hlo.Instruction {
	r := g.n + 2
	start, count, stride := make([]int64, r), append([]int64{}, Lp.Shape.Dims...), make([]int64, r)
	stride[0], stride[r-1] = 1, 1
	for i := 0; i < g.n; i++ {
		if perKernel {
			start[1+i], count[1+i], stride[1+i] = pos[i]*g.rhsDil[i], g.P[i], g.stride[i]
		} else {
			start[1+i], count[1+i], stride[1+i] = pos[i]*g.stride[i], g.K[i], g.rhsDil[i]
		}
	}
	return x.Slice(Lp, start, count, stride)
}

// kernelAt is R[k] as [I, O].
func (x *rewriter) kernelAt(g geometry, R *hlo.Instruction, k []int64) *hlo.Instruction {
	r := g.n + 2
	start, count, one := make([]int64, r), append([]int64{}, R.Shape.Dims...), make([]int64, r)
	for i := range one {
		one[i] = 1
	}
	for i := 0; i < g.n; i++ {
		start[i], count[i] = k[i], 1
	}
	s := x.Slice(R, start, count, one)
	return x.Reshape(s, R.Shape.Dims[g.n:])
}

// dotOperands converts operands of different types to the accumulation
// type (the MXU multiplies one type).
func (x *rewriter) dotOperands(a, b *hlo.Instruction, acc string) (*hlo.Instruction, *hlo.Instruction) {
	if a.Shape.Elem != b.Shape.Elem {
		return x.Convert(a, acc), x.Convert(b, acc)
	}
	return a, b
}

// dense is an ungrouped convolution: Lp[B, S..., F] * R[K..., F, O] ->
// [B, P..., O] in the accumulation type, as a sum of dots over kernel
// positions or a stack of dots over output positions, whichever is fewer;
// a loop over the kernel positions when both are many.
func (x *rewriter) dense(g geometry, Lp, R *hlo.Instruction) *hlo.Instruction {
	if g.flat {
		return x.flatGrid(g, Lp, R)
	}
	if r := x.spaceToDepth(g, Lp, R); r != nil {
		return r
	}
	n := g.n
	B, O := Lp.Shape.Dims[0], R.Shape.Dims[n+1]
	dims := append(append([]int64{B}, g.P...), O)
	term := func(b *rewriter, X, W *hlo.Instruction) *hlo.Instruction {
		X, W = b.dotOperands(X, W, g.acc)
		return b.Emit("dot", g.acc, dims, []*hlo.Instruction{X, W},
			"lhs_contracting_dims", hlo.IntsText([]int64{int64(n + 1)}), "rhs_contracting_dims", "{0}")
	}
	if min(hlo.Prod(g.K), hlo.Prod(g.P)) > MaxUnrolledTaps {
		return x.tapLoop(g, Lp, R, dims, term)
	}
	if hlo.Prod(g.K) <= hlo.Prod(g.P) {
		var sum *hlo.Instruction
		for _, k := range hlo.Positions(g.K) {
			sum = x.Binary("add", sum, term(x, x.windowSlice(g, Lp, k, true), x.kernelAt(g, R, k)))
		}
		return sum
	}
	if rows := B * hlo.Prod(g.P); B < stackedRowsBelow && hlo.Prod(g.P) > 1 &&
		rows*hlo.Prod(g.K)*Lp.Shape.Dims[n+1]*int64(max(hlo.ElemBits(Lp.Shape.Elem)/8, 1)) <= maxStackedBytes {
		return x.stackedPositions(g, Lp, R)
	}
	var pieces []*hlo.Instruction
	for _, p := range hlo.Positions(g.P) {
		X, W := x.dotOperands(x.windowSlice(g, Lp, p, false), R, g.acc)
		D := x.Emit("dot", g.acc, []int64{B, O}, []*hlo.Instruction{X, W},
			"lhs_contracting_dims", hlo.IntsText(hlo.Iota64(1, n+2)), "rhs_contracting_dims", hlo.IntsText(hlo.Iota64(0, n+1)))
		pieces = append(pieces, x.Reshape(D, append(append([]int64{B}, hlo.Ones(n)...), O)))
	}
	return x.stack(g, pieces, 1)
}

// A weight gradient's convolution has few output positions (the kernel's
// 3x3) and windows as large as the input (its dot per position contracts
// batch x spatial, 1,024 in a ResNet block's): a dot per position gives
// the matrix unit B rows each, a weight tile loaded for a short stream
// (32 rows of [32x1024]x[1024x32]: 3,410 cycles against a 455-cycle roof,
// nine times). With B under stackedRowsBelow rows and the windows
// together at most maxStackedBytes, the windows are stacked into the rows
// of one dot instead, as im2col stacks them: [P x B, window] x [window, O].
const (
	stackedRowsBelow = 128
	maxStackedBytes  = 8 << 20
)

// stackedPositions is dense's stack of dots over output positions as one
// dot: the windows at every position concatenated along the batch dim,
// one product with R, the rows put back as [B, P..., O].
func (x *rewriter) stackedPositions(g geometry, Lp, R *hlo.Instruction) *hlo.Instruction {
	n := g.n
	B, O := Lp.Shape.Dims[0], R.Shape.Dims[n+1]
	var windows []*hlo.Instruction
	for _, p := range hlo.Positions(g.P) {
		windows = append(windows, x.windowSlice(g, Lp, p, false))
	}
	X, W := x.dotOperands(x.Concatenate(windows, 0), R, g.acc)
	npos := hlo.Prod(g.P)
	D := x.Emit("dot", g.acc, []int64{npos * B, O}, []*hlo.Instruction{X, W},
		"lhs_contracting_dims", hlo.IntsText(hlo.Iota64(1, n+2)), "rhs_contracting_dims", hlo.IntsText(hlo.Iota64(0, n+1)))
	// Rows are position-major: [P..., B, O], then B first.
	pd := append(append(append([]int64{}, g.P...), B), O)
	perm := append([]int64{int64(n)}, hlo.Iota64(0, n)...)
	perm = append(perm, int64(n+1))
	return x.Transpose(x.Reshape(D, pd), perm)
}

// stack concatenates pieces listed row-major over the output positions
// P along the spatial dimensions, which start at dimension first.
func (x *rewriter) stack(g geometry, pieces []*hlo.Instruction, first int) *hlo.Instruction {
	for i := g.n - 1; i >= 0; i-- {
		var next []*hlo.Instruction
		for j := 0; j < len(pieces); j += int(g.P[i]) {
			next = append(next, x.Concatenate(pieces[j:j+int(g.P[i])], first+i))
		}
		pieces = next
	}
	return pieces[0]
}

// depthwise is a feature-grouped convolution with one input feature per
// group: out[b, p, g*Og+m] = sum_k Lp[b, p*s+k*d, g] * R[k, 0, g*Og+m], a
// multiply-add per kernel position on the vector unit.
func (x *rewriter) depthwise(g geometry, Lp, R *hlo.Instruction, G int64) *hlo.Instruction {
	if g.flat {
		return x.flatDepthwise(g, Lp, R)
	}
	n := g.n
	B, O := Lp.Shape.Dims[0], R.Shape.Dims[n+1]
	Og := O / G
	out := append(append([]int64{B}, g.P...), O)
	term := func(b *rewriter, X, W *hlo.Instruction) *hlo.Instruction {
		X = b.Convert(X, g.acc)
		W = b.Convert(b.Reshape(W, []int64{O}), g.acc)
		if Og == 1 {
			return b.Binary("multiply", X, b.Broadcast(W, out, []int64{int64(n + 1)}))
		}
		wide := append(append([]int64{B}, g.P...), G, Og)
		Xb := b.Broadcast(X, wide, hlo.Iota64(0, n+2))
		Wb := b.Broadcast(b.Reshape(W, []int64{G, Og}), wide, []int64{int64(n + 1), int64(n + 2)})
		return b.Reshape(b.Binary("multiply", Xb, Wb), out)
	}
	if hlo.Prod(g.K) > MaxUnrolledTaps {
		return x.tapLoop(g, Lp, R, out, term)
	}
	var sum *hlo.Instruction
	for _, k := range hlo.Positions(g.K) {
		sum = x.Binary("add", sum, term(x, x.windowSlice(g, Lp, k, true), x.kernelAt(g, R, k)))
	}
	return sum
}

// depthwiseBatchGroups is the weight gradient of a depthwise convolution:
// batch_group_count = batch = output features = G, so
// out[0, p, g] = sum_k sum_f Lp[g, p*s+k*d, f] * R[k, f, g]: multiplies and
// a reduction over the window and the features.
func (x *rewriter) depthwiseBatchGroups(g geometry, Lp, R *hlo.Instruction) *hlo.Instruction {
	n := g.n
	G := Lp.Shape.Dims[0]
	if hlo.Prod(g.P) <= hlo.Prod(g.K) && hlo.Prod(g.P) <= MaxUnrolledTaps {
		// Per output position: the whole window at once.
		Rt := x.Convert(x.Transpose(R, append(append([]int64{int64(n + 1)}, hlo.Iota64(0, n)...), int64(n))), g.acc)
		var pieces []*hlo.Instruction
		for _, p := range hlo.Positions(g.P) {
			X := x.Convert(x.windowSlice(g, Lp, p, false), g.acc)
			r := x.ReduceSum(x.Binary("multiply", X, Rt), hlo.Iota64(1, n+2))
			pieces = append(pieces, x.Reshape(r, append(append([]int64{1}, hlo.Ones(n)...), G)))
		}
		return x.stack(g, pieces, 1)
	}
	// Per kernel position: every output position at once.
	wide := append(append([]int64{G}, g.P...), Lp.Shape.Dims[n+1])
	term := func(b *rewriter, X, W *hlo.Instruction) *hlo.Instruction {
		X = b.Convert(X, g.acc)
		W = b.Convert(b.Transpose(W, []int64{1, 0}), g.acc) // [G, F]
		prodK := b.Binary("multiply", X, b.Broadcast(W, wide, []int64{0, int64(n + 1)}))
		return b.ReduceSum(prodK, []int64{int64(n + 1)})
	}
	var sum *hlo.Instruction
	if hlo.Prod(g.K) > MaxUnrolledTaps {
		sum = x.tapLoop(g, Lp, R, append([]int64{G}, g.P...), term)
	} else {
		for _, k := range hlo.Positions(g.K) {
			sum = x.Binary("add", sum, term(x, x.windowSlice(g, Lp, k, true), x.kernelAt(g, R, k)))
		}
	}
	// [G, P...] -> [1, P..., G]
	t := x.Transpose(sum, append(hlo.Iota64(1, n+1), 0))
	return x.Reshape(t, append(append([]int64{1}, g.P...), G))
}
