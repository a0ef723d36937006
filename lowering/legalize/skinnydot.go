package legalize

import (
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// SwapSkinnyDots rewrites a dot of few rows through a wide weight, x[M,K] .
// W (W as [K,N] or, for x . W^T, [N,K]), with M at most skinny and N at
// least wide, as the transpose of W^T . x^T: the weight-stationary array
// then holds x^T's tiles (loaded once per K tile) and streams W's N rows,
// where it would load each of W's tiles for M rows of work and wait on the
// load (a load starts only once the current tile's swap has passed the
// array: about 2K + C cycles a tile, far more than M). XLA's TPU backend
// likewise keeps the small operand stationary. The new dot's lhs is W
// (read transposed when W is [K,N], through the cross-lane unit), its
// rhs x (loaded transposed onto the array: free); the result [N,M] is
// transposed back, a small array. Operand precisions swap with the
// operands.
//
// Batched dots of one row swap the same way (attention's scores for one
// query, q . K^T, per batch and head; the transpose back is a reshape);
// of more rows they do not, as their transposes back would be batches of
// thin tiles, each waiting on its loads (a decode step's four query heads
// per key head: 4 MB took 290 us a layer on tpuv5p). So does a product whose large operand is
// the lhs with its contracting dimension not innermost and whose small one
// (N at most skinny) has it innermost (attention's P . V for one query,
// V's [S, D] contracted over S): the lhs would go through the cross-lane
// unit, where as the rhs it loads onto the array in any layout, and the
// small operand streams as it lies. Where M or N is 1 the transpose back
// is a reshape.
func SwapSkinnyDots(m *hlo.Module, skinny, wide int64) error {
	return rewriteEach(m, "dot", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		keep := func() error { x.Out = append(x.Out, in); return nil }
		if len(ops) != 2 || in.Shape.IsTuple {
			return keep()
		}
		lb, lc, rb, rc, err := hlo.DotDims(in)
		if err != nil || len(lb) != len(rb) || len(lc) != 1 || len(rc) != 1 {
			return keep()
		}
		lf, rf := freeDims(ops[0], lb, lc), freeDims(ops[1], rb, rc)
		if len(lb)+len(lf)+len(rf) != len(in.Shape.Dims) {
			return keep()
		}
		M, N := sizesProd(ops[0], lf), sizesProd(ops[1], rf)
		lhsMinor := lc[0] == int64(len(ops[0].Shape.Dims)-1)
		rhsMinor := rc[0] == int64(len(ops[1].Shape.Dims)-1)
		skinnyWide := M <= skinny && N >= wide && N >= 8*M && lhsMinor && (M == 1 || len(lb) == 0)
		matrixVector := !lhsMinor && rhsMinor && N <= skinny && N < M
		if !skinnyWide && !matrixVector {
			return keep()
		}
		var attrs []string
		for _, a := range in.Attrs {
			switch a.Key {
			case "lhs_contracting_dims", "rhs_contracting_dims", "lhs_batch_dims", "rhs_batch_dims":
			case "operand_precision":
				if p := strings.Split(strings.Trim(a.Value, "{}"), ","); len(p) == 2 {
					attrs = append(attrs, a.Key, "{"+strings.TrimSpace(p[1])+","+strings.TrimSpace(p[0])+"}")
				}
			default:
				attrs = append(attrs, a.Key, a.Value)
			}
		}
		attrs = append(attrs, "lhs_contracting_dims", hlo.IntsText(rc), "rhs_contracting_dims", hlo.IntsText(lc))
		if len(lb) > 0 {
			attrs = append(attrs, "lhs_batch_dims", hlo.IntsText(rb), "rhs_batch_dims", hlo.IntsText(lb))
		}
		nb := len(lb)
		dims := append([]int64{}, in.Shape.Dims[:nb]...)
		dims = append(dims, in.Shape.Dims[nb+len(lf):]...)
		dims = append(dims, in.Shape.Dims[nb:nb+len(lf)]...)
		t := x.Emit("dot", in.Shape.Elem, dims, []*hlo.Instruction{ops[1], ops[0]}, attrs...)
		if M == 1 || N == 1 {
			x.Reshape(t, in.Shape.Dims)
			return nil
		}
		// out[batch, lhs free, rhs free] = t[batch, rhs free, lhs free].
		perm := make([]int64, 0, len(dims))
		for i := range nb {
			perm = append(perm, int64(i))
		}
		for j := range lf {
			perm = append(perm, int64(nb+len(rf)+j))
		}
		for k := range rf {
			perm = append(perm, int64(nb+k))
		}
		x.Transpose(t, perm)
		return nil
	})
}

// freeDims are the dims of a dot operand that are neither batch nor
// contracting, in order.
func freeDims(op *hlo.Instruction, batch, contracting []int64) []int64 {
	var out []int64
	for d := range op.Shape.Dims {
		if !slices.Contains(batch, int64(d)) && !slices.Contains(contracting, int64(d)) {
			out = append(out, int64(d))
		}
	}
	return out
}

func sizesProd(op *hlo.Instruction, dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= op.Shape.Dims[d]
	}
	return n
}
