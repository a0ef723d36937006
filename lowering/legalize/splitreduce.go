package legalize

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// SplitReductions rewrites a reduction over dimensions that are not
// consecutive (the batch-norm statistics of an NCHW tensor reduce {0,2,3})
// into a chain of reductions, each over one run of consecutive dimensions,
// innermost run first: reduce(x, {0,2,3}) = reduce(reduce(x, {2,3}), {0}).
// The lowering's reduce kernels read each run as one strided pattern. Only
// reducers that are one associative and commutative op (add, multiply,
// maximum, minimum, and, or) are split; the inner reductions start from the
// op's identity and the last from the original init value. Floating-point
// sums are reassociated, within the documented tolerance.
func SplitReductions(m *hlo.Module) error { return SplitReductionRuns(m, 0) }

// SplitReductionRuns is SplitReductions that also splits a run of
// consecutive reduced dimensions holding more than maxRun elements (0: no
// limit) into shorter runs, innermost first, so that a reduce kernel's row
// fits on-chip memory: reduce(x[32,112,112,96], {1,2,3}) with maxRun
// 16384 becomes reduce(reduce(x, {2,3}), {1}). A single dimension longer
// than maxRun stays whole.
//
// A single reduced dimension longer than maxRun is cut into blocks of at
// most maxRun (a divisor of its length when there is one of at least half
// maxRun: a reshape; else blocks of about equal size, padded with the op's
// identity) and reduced in two steps, each block first: a row of 100,000
// f32 on teach16, more than its SRAM holds, is 25 blocks of 4,000.
func SplitReductionRuns(m *hlo.Module, maxRun int64) error {
	return rewriteEach(m, "reduce", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		op := reducerOp(m, in)
		leave := func() error { // left as it is: re-emitted under a copy of itself
			cp := *in
			x.Out = append(x.Out, &cp)
			return nil
		}
		if len(ops) != 2 || in.Shape == nil || in.Shape.IsTuple {
			return leave()
		}
		ident := identityLiteral(op, ops[0].Shape.Elem)
		if ident == "" {
			return leave()
		}
		cur, reduced := ops[0], reducedDims(in)
		if maxRun >= 2 { // blocks of at least 2: each cut shortens the dimension
			cur, reduced = x.blockLongDims(cur, reduced, ident, maxRun)
		}
		runs := runsOf(reduced)
		if maxRun > 0 {
			runs = shortRuns(runs, cur.Shape.Dims, maxRun)
		}
		if len(runs) < 2 {
			return leave()
		}
		toApply, _ := in.Attr("to_apply")
		for i := len(runs) - 1; i >= 0; i-- {
			init := ops[1]
			if i > 0 {
				init = x.Constant(ops[1].Shape.Elem, ident)
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
			cur = x.Emit("reduce", in.Shape.Elem, dims, []*hlo.Instruction{cur, init}, "dimensions", hlo.IntsText(runs[i]), "to_apply", toApply)
		}
		return nil
	})
}

// reducedDims is a reduce's dimensions, ascending.
func reducedDims(in *hlo.Instruction) []int64 {
	v, _ := in.Attr("dimensions")
	dims, ok := hlo.IntList(v)
	if !ok {
		return nil
	}
	dims = append([]int64{}, dims...)
	sort.Slice(dims, func(i, j int) bool { return dims[i] < dims[j] })
	return dims
}

// blockLongDims cuts every reduced dimension of a longer than maxRun into
// [blocks, maxRun] (padding a with ident to whole blocks), until none is
// longer, and returns the reshaped array and its reduced dimensions.
func (x *rewriter) blockLongDims(a *hlo.Instruction, reduced []int64, ident string, maxRun int64) (*hlo.Instruction, []int64) {
	for changed := true; changed; {
		changed = false
		for i := len(reduced) - 1; i >= 0; i-- {
			d := reduced[i]
			if d < 0 || int(d) >= len(a.Shape.Dims) || a.Shape.Dims[d] <= maxRun {
				continue
			}
			// Blocks of a divisor of n when one is at least half of
			// maxRun (a reshape, no copy), else of about equal size,
			// padded by fewer than one per block.
			n := a.Shape.Dims[d]
			size := int64(0)
			for c := maxRun; c >= max((maxRun+1)/2, 2) && size == 0; c-- {
				if n%c == 0 {
					size = c
				}
			}
			blocks := (n + maxRun - 1) / maxRun
			if size == 0 {
				size = (n + blocks - 1) / blocks
			}
			blocks = (n + size - 1) / size
			if pad := blocks*size - n; pad > 0 {
				cfg := make([]string, len(a.Shape.Dims))
				dims := append([]int64{}, a.Shape.Dims...)
				for k := range cfg {
					cfg[k] = "0_0"
				}
				cfg[d] = fmt.Sprintf("0_%d", pad)
				dims[d] += pad
				a = x.Emit("pad", a.Shape.Elem, dims, []*hlo.Instruction{a, x.Constant(a.Shape.Elem, ident)}, "padding", strings.Join(cfg, "x"))
			}
			dims := append(append(append([]int64{}, a.Shape.Dims[:d]...), blocks, size), a.Shape.Dims[d+1:]...)
			a = x.Reshape(a, dims)
			var next []int64
			for _, r := range reduced {
				switch {
				case r < d:
					next = append(next, r)
				case r == d:
					next = append(next, d, d+1)
				default:
					next = append(next, r+1)
				}
			}
			reduced, changed = next, true
			break
		}
	}
	return a, reduced
}

// runsOf groups ascending dimensions into runs of consecutive ones.
func runsOf(dims []int64) [][]int64 {
	if len(dims) == 0 {
		return nil
	}
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
func reducerOp(m *hlo.Module, in *hlo.Instruction) string {
	name, _ := in.Attr("to_apply")
	return hlo.BinaryCombiner(m.Computation(trimPercent(name)))
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
	float := hlo.IsRealFloat(elem)
	switch {
	case op == hlo.OpAdd:
		return "0"
	case op == hlo.OpMultiply:
		return "1"
	case op == hlo.OpMaximum && float:
		t, _ := hlo.LookupElem(elem)
		lo, _, _ := t.Bounds()
		return lo
	case op == hlo.OpMinimum && float:
		t, _ := hlo.LookupElem(elem)
		_, hi, _ := t.Bounds()
		return hi
	case (op == hlo.OpMaximum || op == hlo.OpMinimum) && !float && elem != hlo.Pred && hlo.ElemBits(elem) > 0 && hlo.ElemBits(elem) <= 64:
		// The type's lowest value is maximum's identity, its highest
		// minimum's.
		bits := hlo.ElemBits(elem)
		lo, hi := fmt.Sprint(-(int64(1) << (bits - 1))), fmt.Sprint(uint64(1)<<(bits-1)-1)
		if hlo.IsUnsigned(elem) {
			lo, hi = "0", fmt.Sprint(^uint64(0)>>(64-bits))
		}
		if op == hlo.OpMaximum {
			return lo
		}
		return hi
	case op == hlo.OpAnd && elem == hlo.Pred:
		return "true"
	case op == hlo.OpOr && elem == hlo.Pred:
		return "false"
	}
	return ""
}
