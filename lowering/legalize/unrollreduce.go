package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
)

// MaxReducePasses is the most passes a reduce kernel makes over the kept
// dimensions that do not collapse into its rows (lowering/reduce.go).
const MaxReducePasses = 4096

// maxUnrolled is the longest reduced dimension UnrollNarrowReductions
// turns into elementwise ops.
const maxUnrolled = 8

// A reduction whose kernel would walk at least minSmallPasses passes of
// at most maxSmallPass elements each is unrolled too: each pass is a
// round trip through HBM of a few bytes (MoE routing's sum over the 2
// chosen experts of [64,2,8]: 64 passes, 9,481 cycles on tpuv4core).
const (
	minSmallPasses = 8
	maxSmallPass   = 4096
)

// UnrollNarrowReductions rewrites a reduction over one short dimension
// that lies between kept ones, whose kernel would walk more than
// MaxReducePasses passes (Llama's grouped-query attention backward sums
// the 2 query heads of each KV head: reduce(bf16[16,1024,8,2,128], {3}))
// or many small ones (below), into elementwise ops over the dimension's slices:
// op(op(init, x[..,0,..]), x[..,1,..]). Each slice is one strided read and
// the ops stream at the vector unit's rate. Only reducers that are one
// associative, commutative op are unrolled; a floating-point sum is
// reassociated, within the documented tolerance.
func UnrollNarrowReductions(m *hlo.Module) error {
	return rewriteEach(m, "reduce", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		leave := func() error {
			cp := *in
			x.Out = append(x.Out, &cp)
			return nil
		}
		op := reducerOp(m, in)
		if len(ops) != 2 || in.Shape == nil || in.Shape.IsTuple || ops[0].Shape == nil || identityLiteral(op, ops[0].Shape.Elem) == "" {
			return leave()
		}
		reduced := reducedDims(in)
		dims := ops[0].Shape.Dims
		if len(reduced) != 1 {
			return leave()
		}
		d := reduced[0]
		n := dims[d]
		outer, inner := int64(1), int64(1)
		for i, k := range dims {
			switch {
			case int64(i) < d:
				outer *= k
			case int64(i) > d:
				inner *= k
			}
		}
		if n < 2 || n > maxUnrolled || inner < 2 || outer <= MaxReducePasses && !(outer >= minSmallPasses && n*inner <= maxSmallPass) {
			return leave()
		}
		acc := x.Broadcast(ops[1], in.Shape.Dims, nil)
		for i := range n {
			s := x.SliceDim(ops[0], int(d), i, 1)
			acc = x.Binary(op, acc, x.Reshape(s, in.Shape.Dims))
		}
		x.Finish(acc)
		return nil
	})
}
