package hlo

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
