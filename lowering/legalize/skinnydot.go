package legalize

import (
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
// operands. Batched dots and other layouts are left alone.
func SwapSkinnyDots(m *hlo.Module, skinny, wide int64) error {
	return rewriteEach(m, "dot", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		keep := func() error { x.Out = append(x.Out, in); return nil }
		if len(ops) != 2 || in.Shape.IsTuple || len(ops[0].Shape.Dims) != 2 || len(ops[1].Shape.Dims) != 2 {
			return keep()
		}
		lb, lc, rb, rc, err := hlo.DotDims(in)
		if err != nil || len(lb) != 0 || len(rb) != 0 || len(lc) != 1 || len(rc) != 1 || lc[0] != 1 {
			return keep()
		}
		M, N := ops[0].Shape.Dims[0], ops[1].Shape.Dims[1-rc[0]]
		if M > skinny || N < wide || N < 8*M {
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
		attrs = append(attrs, "lhs_contracting_dims", hlo.IntsText([]int64{rc[0]}), "rhs_contracting_dims", "{1}")
		t := x.Emit("dot", in.Shape.Elem, []int64{N, M}, []*hlo.Instruction{ops[1], ops[0]}, attrs...)
		x.Transpose(t, []int64{1, 0})
		return nil
	})
}
