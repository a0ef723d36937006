package legalize

import (
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
// little waste, and windows side by side within maxStackedBytes should
// they be copied out.
func flatGridFits(g geometry, pdims []int64, I, esz int64) bool {
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
	return B*S*T*I*esz <= maxStackedBytes
}

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
	for _, k := range hlo.Positions(g.K) {
		var base int64
		for i := 0; i < n; i++ {
			base += k[i] * g.rhsDil[i] * rs[i]
		}
		windows = append(windows, x.SliceDim(X, 0, base, rows))
	}
	T := int64(len(windows))
	lhs, W := x.dotOperands(x.Concatenate(windows, 1), x.Reshape(R, []int64{T * F, O}), g.acc)
	D := x.Emit("dot", g.acc, []int64{rows, O}, []*hlo.Instruction{lhs, W},
		"lhs_contracting_dims", "{1}", "rhs_contracting_dims", "{0}")
	grid := x.Reshape(D, append(append([]int64{B}, S...), O))
	start, one := make([]int64, n+2), make([]int64, n+2)
	for i := range one {
		one[i] = 1
	}
	return x.Slice(grid, start, append(append([]int64{B}, g.P...), O), one)
}
