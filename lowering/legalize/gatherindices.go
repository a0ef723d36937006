package legalize

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"slices"
	"strings"
)

// WidenNarrowIndices converts the 8- and 16-bit index arrays of gathers
// and scatters to s32, which holds every one of their values: the lowering
// reads 32- and 64-bit indices.
func WidenNarrowIndices(m *hlo.Module) error {
	for _, op := range []string{"gather", "scatter"} {
		if err := rewriteEach(m, op, func(x *rewriter, ops []*hlo.Instruction) error {
			in := x.At
			if len(ops) < 2 {
				x.Out = append(x.Out, in)
				return nil
			}
			k := 1 // gather(operand, indices); scatter(operands..., indices, updates...)
			if op == hlo.OpScatter {
				k = len(ops) / 2
			}
			switch ops[k].Shape.Elem {
			case hlo.S8, hlo.U8, hlo.S16, hlo.U16:
				w := x.Convert(ops[k], "s32")
				cp := *in
				cp.Operands = append([]*hlo.Operand(nil), in.Operands...)
				cp.Operands[k] = &hlo.Operand{Pos: in.Operands[k].Pos, Name: w.Name, Shape: w.Shape}
				x.Out = append(x.Out, &cp)
			default:
				x.Out = append(x.Out, in)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// IndexVectorsLast transposes the index arrays of gathers and scatters
// whose index vectors lie along an inner dimension, so that the vectors
// are the last dimension (index_vector_dim = rank - 1): the batch dims
// then keep their order and make one row-major run, which the lowering
// walks. The gather's output and the scatter's updates are unchanged.
func IndexVectorsLast(m *hlo.Module) error {
	for _, op := range []string{"gather", "scatter"} {
		if err := rewriteEach(m, op, func(x *rewriter, ops []*hlo.Instruction) error {
			in := x.At
			k := 1
			if op == hlo.OpScatter {
				k = len(ops) / 2
			}
			ivd, err := hlo.IntAttr(in, "index_vector_dim")
			if len(ops) < 2 || err != nil || ops[k].Shape == nil || ops[k].Shape.IsTuple {
				x.Out = append(x.Out, in)
				return nil
			}
			rank := int64(len(ops[k].Shape.Dims))
			if ivd < 0 || ivd >= rank-1 {
				x.Out = append(x.Out, in) // last already, or implicit (rank)
				return nil
			}
			var perm []int64
			for d := int64(0); d < rank; d++ {
				if d != ivd {
					perm = append(perm, d)
				}
			}
			perm = append(perm, ivd)
			t := x.Transpose(ops[k], perm)
			cp := *in
			cp.Operands = append([]*hlo.Operand(nil), in.Operands...)
			cp.Operands[k] = &hlo.Operand{Pos: in.Operands[k].Pos, Name: t.Name, Shape: t.Shape}
			cp.Attrs = nil
			for _, a := range in.Attrs {
				switch a.Key {
				case "index_vector_dim":
					a.Value = fmt.Sprint(rank - 1)
				case "start_indices_batching_dims", "scatter_indices_batching_dims":
					// The indices' dims after the index vector move down one.
					if dims, ok := hlo.IntList(a.Value); ok {
						for i, d := range dims {
							if d > ivd {
								dims[i] = d - 1
							}
						}
						a.Value = hlo.IntsText(dims)
					}
				}
				cp.Attrs = append(cp.Attrs, a)
			}
			x.Out = append(x.Out, &cp)
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// TrivialGathersScatters rewrites the gathers and scatters whose index
// arrays select nothing to choose: a scatter without updates (no
// elements) is its operand, copied; a gather of index vectors of no
// entries (start_index_map={}) takes every window at the origin, so it is
// the operand's window, broadcast over the batch dims.
func TrivialGathersScatters(m *hlo.Module) error {
	if err := rewriteEach(m, "scatter", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		n := len(ops) / 2
		if len(ops) < 3 || len(ops)%2 != 1 || ops[len(ops)-1].Shape == nil || ops[len(ops)-1].Shape.Elems() != 0 {
			x.Out = append(x.Out, in)
			return nil
		}
		var outs []*hlo.Instruction
		for _, o := range ops[:n] {
			outs = append(outs, x.Emit("copy", o.Shape.Elem, o.Shape.Dims, []*hlo.Instruction{o}))
		}
		x.FinishAll(outs)
		return nil
	}); err != nil {
		return err
	}
	return rewriteEach(m, "gather", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		sim, _ := in.Attr("start_index_map")
		if len(ops) != 2 || in.Shape == nil || in.Shape.IsTuple || strings.TrimSpace(strings.Trim(sim, "{}")) != "" {
			x.Out = append(x.Out, in)
			return nil
		}
		sizes, err1 := hlo.ListAttr(in, "slice_sizes")
		offsets, err2 := hlo.ListAttr(in, "offset_dims")
		collapsed, _ := hlo.OptList(in, "collapsed_slice_dims")
		op := ops[0]
		if err1 != nil || err2 != nil || len(sizes) != len(op.Shape.Dims) {
			return x.Errorf("slice_sizes %v for an operand of rank %d", sizes, len(op.Shape.Dims))
		}
		ones := make([]int64, len(sizes))
		for i := range ones {
			ones[i] = 1
		}
		w := x.Slice(op, make([]int64, len(sizes)), sizes, ones)
		var kept []int64
		for d, n := range sizes {
			if !slices.Contains(collapsed, int64(d)) {
				kept = append(kept, n)
			}
		}
		w = x.Reshape(w, kept)
		if len(offsets) != len(kept) {
			return x.Errorf("offset_dims %v for a window of rank %d", offsets, len(kept))
		}
		x.Finish(x.Emit("broadcast", in.Shape.Elem, in.Shape.Dims, []*hlo.Instruction{w}, "dimensions", hlo.IntsText(offsets)))
		return nil
	})
}
