package hlo

import "sort"

// SplitReductions rewrites a reduction over dimensions that are not
// consecutive (the batch-norm statistics of an NCHW tensor reduce {0,2,3})
// into a chain of reductions, each over one run of consecutive dimensions,
// innermost run first: reduce(x, {0,2,3}) = reduce(reduce(x, {2,3}), {0}).
// The lowering's reduce kernels read each run as one strided pattern. Only
// reducers that are one associative and commutative op (add, multiply,
// maximum, minimum, and, or) are split; the inner reductions start from the
// op's identity and the last from the original init value. Floating-point
// sums are reassociated, within the documented tolerance.
func SplitReductions(m *Module) error { return SplitReductionRuns(m, 0) }

// SplitReductionRuns is SplitReductions that also splits a run of
// consecutive reduced dimensions holding more than maxRun elements (0: no
// limit) into shorter runs, innermost first, so that a reduce kernel's row
// fits on-chip memory: reduce(x[32,112,112,96], {1,2,3}) with maxRun
// 16384 becomes reduce(reduce(x, {2,3}), {1}). A single dimension longer
// than maxRun stays whole.
func SplitReductionRuns(m *Module, maxRun int64) error {
	return rewriteEach(m, "reduce", func(x *rewriter, ops []*Instruction) error {
		in := x.at
		runs := reducedRuns(in)
		if maxRun > 0 && len(ops) == 2 {
			runs = shortRuns(runs, ops[0].Shape.Dims, maxRun)
		}
		op := reducerOp(m, in)
		ident := identityLiteral(op, ops[0].Shape.Elem)
		if len(ops) != 2 || in.Shape == nil || in.Shape.IsTuple || len(runs) < 2 || ident == "" {
			// Left as it is: re-emit it under a copy of itself.
			cp := *in
			x.out = append(x.out, &cp)
			return nil
		}
		cur := ops[0]
		toApply, _ := in.Attr("to_apply")
		for i := len(runs) - 1; i >= 0; i-- {
			init := ops[1]
			if i > 0 {
				init = x.constant(ops[1].Shape.Elem, ident)
			}
			drop := map[int64]bool{}
			for _, d := range runs[i] {
				drop[d] = true
			}
			var dims []int64
			for d, n := range cur.Shape.Dims {
				if !drop[int64(d)] {
					dims = append(dims, n)
				}
			}
			cur = x.emit("reduce", in.Shape.Elem, dims, []*Instruction{cur, init}, "dimensions", intsText(runs[i]), "to_apply", toApply)
		}
		return nil
	})
}

// reducedRuns groups a reduce's dimensions into runs of consecutive ones.
func reducedRuns(in *Instruction) [][]int64 {
	v, _ := in.Attr("dimensions")
	dims, ok := IntList(v)
	if !ok || len(dims) == 0 {
		return nil
	}
	dims = append([]int64{}, dims...)
	sort.Slice(dims, func(i, j int) bool { return dims[i] < dims[j] })
	runs := [][]int64{{dims[0]}}
	for _, d := range dims[1:] {
		last := runs[len(runs)-1]
		if d == last[len(last)-1]+1 {
			runs[len(runs)-1] = append(last, d)
		} else {
			runs = append(runs, []int64{d})
		}
	}
	return runs
}

// shortRuns splits each run whose dimensions hold more than maxRun
// elements into runs of at most maxRun, taking dimensions from the
// innermost.
func shortRuns(runs [][]int64, dims []int64, maxRun int64) [][]int64 {
	var out [][]int64
	for _, r := range runs {
		var split [][]int64 // innermost first
		var cur []int64
		n := int64(1)
		for i := len(r) - 1; i >= 0; i-- {
			d := r[i]
			if d < 0 || int(d) >= len(dims) {
				return runs
			}
			if len(cur) > 0 && n*dims[d] > maxRun {
				split = append(split, cur)
				cur, n = nil, 1
			}
			cur = append([]int64{d}, cur...)
			n *= dims[d]
		}
		split = append(split, cur)
		for i := len(split) - 1; i >= 0; i-- {
			out = append(out, split[i])
		}
	}
	return out
}

// reducerOp is the opcode of a reducer that applies one binary op to its
// two parameters, or "".
func reducerOp(m *Module, in *Instruction) string {
	name, _ := in.Attr("to_apply")
	c := m.Computation(trimPercent(name))
	if c == nil || c.Root == nil || len(c.Root.Operands) != 2 {
		return ""
	}
	params := 0
	for _, b := range c.Instructions {
		if b.Opcode == "parameter" {
			params++
		}
	}
	if params != 2 || len(c.Instructions) != 3 || c.Root.Operands[0].Name == c.Root.Operands[1].Name {
		return ""
	}
	return c.Root.Opcode
}

func trimPercent(s string) string {
	if len(s) > 0 && s[0] == '%' {
		return s[1:]
	}
	return s
}

// identityLiteral is op's identity element for elem, or "" if there is
// none the rewrite uses.
func identityLiteral(op, elem string) string {
	float := isFloatElem(elem)
	switch {
	case op == "add":
		return "0"
	case op == "multiply":
		return "1"
	case op == "maximum" && float:
		lo, _ := floatBounds(elem)
		return lo
	case op == "minimum" && float:
		_, hi := floatBounds(elem)
		return hi
	case op == "maximum" && elem == "s32":
		return "-2147483648"
	case op == "minimum" && elem == "s32":
		return "2147483647"
	case op == "and" && elem == "pred":
		return "true"
	case op == "or" && elem == "pred":
		return "false"
	}
	return ""
}
