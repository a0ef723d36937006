package legalize

import "github.com/pulse-sim/pulse/hlo"

// SqueezeTransposes rewrites transposes of rank above 4 whose size-1
// dimensions hide a lower-rank permutation (PyTorch/XLA's convolution
// backward reshapes depthwise weights through f32[3,3,1,960,1]): the
// operand is reshaped without its size-1 dimensions, the rest is permuted
// (often not at all) and reshaped back. Reshapes are free views; Pulse
// tiles have at most 4 dimensions.
func SqueezeTransposes(m *hlo.Module) error {
	return rewriteEach(m, "transpose", func(x *rewriter, ops []*hlo.Instruction) error {
		in, a := x.At, ops[0]
		perm, ok := hlo.IntList(hlo.AttrOr(in, "dimensions", ""))
		if !ok || len(perm) != len(a.Shape.Dims) || len(perm) <= 4 {
			x.Emit("transpose", in.Shape.Elem, in.Shape.Dims, ops, "dimensions", hlo.AttrOr(in, "dimensions", ""))
			return nil
		}
		index := map[int64]int64{} // operand dim -> its place among the kept ones
		var kept []int64
		for d, n := range a.Shape.Dims {
			if n != 1 {
				index[int64(d)] = int64(len(kept))
				kept = append(kept, n)
			}
		}
		var q []int64
		for _, p := range perm {
			if p < 0 || int(p) >= len(a.Shape.Dims) {
				return x.Errorf("transpose dimension %d out of range", p)
			}
			if a.Shape.Dims[p] != 1 {
				q = append(q, index[p])
			}
		}
		if len(kept) == len(perm) {
			x.Emit("transpose", in.Shape.Elem, in.Shape.Dims, ops, "dimensions", hlo.AttrOr(in, "dimensions", ""))
			return nil
		}
		t := x.Transpose(x.Reshape(a, kept), q)
		x.Emit("reshape", in.Shape.Elem, in.Shape.Dims, []*hlo.Instruction{t})
		return nil
	})
}
