package eval

import "github.com/pulse-sim/pulse/hlo"

// selectAndScatter is XLA's select-and-scatter (the gradient of max
// pooling): for each window of the operand (one per source element), the
// select computation picks one element — the first, replaced by each later
// element it does not prefer — and the scatter computation adds the source
// element into the output at that position. The output starts at the init
// value; padding positions are never selected.
func (e *Evaluator) selectAndScatter(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) != 3 {
		return nil, e.Fail(in, "takes an operand, a source and an init value")
	}
	src, source, init := ops[0], ops[1], ops[2]
	n := len(src.Shape.Dims)
	wv, _ := in.Attr("window")
	w, err := hlo.ParseWindow(wv, n)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	sel, err := e.Callee(in, "select")
	if err != nil {
		return nil, err
	}
	sc, err := e.Callee(in, "scatter")
	if err != nil {
		return nil, err
	}
	if len(source.Shape.Dims) != n {
		return nil, e.Fail(in, "source rank %d, operand rank %d", len(source.Shape.Dims), n)
	}
	// The common selectors are compare GE (max pooling) and LE (min).
	dir := ""
	if r := sel.Root; r != nil && r.Opcode == hlo.OpCompare && len(sel.Instructions) == 3 {
		if p0, ok := paramNumber(sel, r.Operands[0].Name); ok && p0 == 0 {
			if p1, ok := paramNumber(sel, r.Operands[1].Name); ok && p1 == 1 {
				dir, _ = r.Attr("direction")
			}
		}
	}
	fast := e.Reducer(sc)
	out := &Value{Shape: in.Shape, Data: make([]float64, len(src.Data))}
	for i := range out.Data {
		out.Data[i] = init.Data[0]
	}
	wsz := int64(1)
	for _, k := range w.Size {
		wsz *= k
	}
	oi := make([]int64, n)
	ki := make([]int64, n)
	si := make([]int64, n)
	elem := src.Shape.Elem
	for o := range source.Data {
		hlo.Unflatten(int64(o), source.Shape.Dims, oi)
		best := int64(-1)
		var bv float64
		for k := int64(0); k < wsz; k++ {
			hlo.Unflatten(k, w.Size, ki)
			ok := true
			for d := 0; d < n; d++ {
				p := oi[d]*w.Stride[d] - w.PadLo[d] + ki[d]
				if p < 0 || p >= src.Shape.Dims[d] {
					ok = false
					break
				}
				si[d] = p
			}
			if !ok {
				continue
			}
			j := hlo.Flat(si, src.Shape.Dims)
			x := src.Data[j]
			if best < 0 {
				best, bv = j, x
				continue
			}
			var keep bool
			p, q := bv, x
			if hlo.IsWide(elem) { // carried as bits: compare as integers
				p, q = float64(cmpWide(elem, bv, x)), 0
			}
			switch dir {
			case "GE":
				keep = p >= q
			case "GT":
				keep = p > q
			case "LE":
				keep = p <= q
			case "LT":
				keep = p < q
			default:
				v, err := e.Call(sel, []*Value{Scalar(elem, bv), Scalar(elem, x)})
				if err != nil {
					return nil, err
				}
				keep = v.Data[0] != 0
			}
			if !keep {
				best, bv = j, x
			}
		}
		if best < 0 {
			continue // the window lies entirely in padding
		}
		if fast != "" {
			out.Data[best] = ApplyFast(fast, in.Shape.Elem, out.Data[best], source.Data[o], false)
			continue
		}
		v, err := e.Call(sc, []*Value{Scalar(in.Shape.Elem, out.Data[best]), Scalar(source.Shape.Elem, source.Data[o])})
		if err != nil {
			return nil, err
		}
		out.Data[best] = v.Data[0]
	}
	return out, nil
}

// paramNumber returns the parameter number of the named instruction of c.
func paramNumber(c *hlo.Computation, name string) (int64, bool) {
	for _, in := range c.Instructions {
		if in.Name == name {
			return in.ParamNumber, in.Opcode == hlo.OpParameter
		}
	}
	return 0, false
}
