package hlo

import "fmt"

// WidenNarrowIndices converts the 8- and 16-bit index arrays of gathers
// and scatters to s32, which holds every one of their values: the lowering
// reads 32- and 64-bit indices.
func WidenNarrowIndices(m *Module) error {
	for _, op := range []string{"gather", "scatter"} {
		if err := rewriteEach(m, op, func(x *rewriter, ops []*Instruction) error {
			in := x.at
			if len(ops) < 2 {
				x.out = append(x.out, in)
				return nil
			}
			k := 1 // gather(operand, indices); scatter(operands..., indices, updates...)
			if op == "scatter" {
				k = len(ops) / 2
			}
			switch ops[k].Shape.Elem {
			case "s8", "u8", "s16", "u16":
				w := x.convert(ops[k], "s32")
				cp := *in
				cp.Operands = append([]*Operand(nil), in.Operands...)
				cp.Operands[k] = &Operand{Pos: in.Operands[k].Pos, Name: w.Name, Shape: w.Shape}
				x.out = append(x.out, &cp)
			default:
				x.out = append(x.out, in)
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
func IndexVectorsLast(m *Module) error {
	for _, op := range []string{"gather", "scatter"} {
		if err := rewriteEach(m, op, func(x *rewriter, ops []*Instruction) error {
			in := x.at
			k := 1
			if op == "scatter" {
				k = len(ops) / 2
			}
			ivd, err := intAttr(in, "index_vector_dim")
			if len(ops) < 2 || err != nil || ops[k].Shape == nil || ops[k].Shape.IsTuple {
				x.out = append(x.out, in)
				return nil
			}
			rank := int64(len(ops[k].Shape.Dims))
			if ivd < 0 || ivd >= rank-1 {
				x.out = append(x.out, in) // last already, or implicit (rank)
				return nil
			}
			var perm []int64
			for d := int64(0); d < rank; d++ {
				if d != ivd {
					perm = append(perm, d)
				}
			}
			perm = append(perm, ivd)
			t := x.transpose(ops[k], perm)
			cp := *in
			cp.Operands = append([]*Operand(nil), in.Operands...)
			cp.Operands[k] = &Operand{Pos: in.Operands[k].Pos, Name: t.Name, Shape: t.Shape}
			cp.Attrs = nil
			for _, a := range in.Attrs {
				if a.Key == "index_vector_dim" {
					a.Value = fmt.Sprint(rank - 1)
				}
				cp.Attrs = append(cp.Attrs, a)
			}
			x.out = append(x.out, &cp)
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}
