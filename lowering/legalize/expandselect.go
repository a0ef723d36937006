package legalize

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
	"strings"
)

// ExpandSelectAndScatters rewrites every select-and-scatter (the gradient
// of max and min pooling) into ops a vector unit computes, one window
// position at a time, as ExpandReduceWindows does:
//
//   - select: the operand, padded, is read at each window position k as a
//     strided slice shaped like the source (one element per window); a
//     running choice keeps, per window, the element the select computation
//     prefers — the first valid one, replaced by each later one it does
//     not prefer — and its position k. A padded copy of "all valid" marks
//     the positions that lie in the padding, which are never chosen.
//   - scatter: for each k, the source elements whose window chose k are
//     placed back at the operand positions they came from (interior
//     padding undoes the stride) and combined into the output, which
//     starts at the init value, where they land.
//
// The positions are visited in reverse row-major order when scattering: an
// operand element chosen by several overlapping windows then takes their
// source elements in row-major window order, the evaluator's (XLA's
// HloEvaluator's) order, so the bits agree for any scatter computation.
func ExpandSelectAndScatters(m *hlo.Module) error {
	return rewriteEach(m, "select-and-scatter", func(x *rewriter, ops []*hlo.Instruction) error {
		return x.expandSelectAndScatter(ops)
	})
}

func (x *rewriter) expandSelectAndScatter(ops []*hlo.Instruction) error {
	in := x.At
	if len(ops) != 3 || in.Shape == nil || in.Shape.IsTuple {
		return x.Errorf("takes an operand, a source and an init value")
	}
	a, src, init := ops[0], ops[1], ops[2]
	sel, scat := x.M.Callee(in, "select"), x.M.Callee(in, "scatter")
	if sel == nil || scat == nil {
		return x.Errorf("needs select and scatter computations")
	}
	if sel.Root == nil || sel.Root.Shape == nil || sel.Root.Shape.Elem != hlo.Pred {
		return x.Errorf("the select computation %s does not return pred", sel.Name)
	}
	n := len(a.Shape.Dims)
	wv, _ := in.Attr("window")
	w, err := hlo.ParseWindow(wv, n)
	if err != nil {
		return x.Errorf("%v", err)
	}
	for d := 0; d < n; d++ {
		if w.LhsDil[d] != 1 || w.RhsDil[d] != 1 {
			return x.Errorf("a dilated window is not lowered")
		}
	}
	if k := hlo.Prod(w.Size); k > MaxWindowPositions {
		return x.Errorf("a window of %d positions is not lowered (at most %d)", k, MaxWindowPositions)
	}
	S := src.Shape.Dims
	if len(S) != n {
		return x.Errorf("source rank %d, operand rank %d", len(S), n)
	}
	D := a.Shape.Dims
	pdims := make([]int64, n)
	var cfg []string
	padded := false
	for d := 0; d < n; d++ {
		pdims[d] = w.PadLo[d] + D[d] + w.PadHi[d]
		if S[d] != 0 && (S[d]-1)*w.Stride[d]+w.Size[d] > pdims[d] {
			return x.Errorf("the source's %d windows along dimension %d do not fit the padded operand", S[d], d)
		}
		cfg = append(cfg, fmt.Sprintf("%d_%d", w.PadLo[d], w.PadHi[d]))
		padded = padded || w.PadLo[d] != 0 || w.PadHi[d] != 0
	}
	elem := a.Shape.Elem
	out := x.Broadcast(init, D, nil)
	if hlo.Prod(S) == 0 || hlo.Prod(D) == 0 {
		x.Finish(x.Emit("copy", in.Shape.Elem, D, []*hlo.Instruction{out}))
		return nil
	}
	pa, pvalid := a, (*hlo.Instruction)(nil)
	if padded {
		pa = x.Emit("pad", elem, pdims, []*hlo.Instruction{a, x.Constant(elem, "0")}, "padding", strings.Join(cfg, "x"))
		ones := x.Broadcast(x.Constant("pred", "true"), D, nil)
		pvalid = x.Emit("pad", "pred", pdims, []*hlo.Instruction{ones, x.Constant("pred", "false")}, "padding", strings.Join(cfg, "x"))
	}
	ks := hlo.Positions(w.Size)
	// Select: the preferred element of each window and its position.
	var best, idx, has *hlo.Instruction
	for i, k := range ks {
		s := x.Slice(pa, k, S, w.Stride)
		var valid *hlo.Instruction
		if pvalid != nil {
			valid = x.Slice(pvalid, k, S, w.Stride)
		}
		kc := x.Broadcast(x.Constant("s32", strconv.Itoa(i)), S, nil)
		if i == 0 {
			best, idx, has = s, kc, valid
			continue
		}
		keep, err := x.Apply(sel, []*hlo.Instruction{best, s})
		if err != nil {
			return err
		}
		// take: a valid element where no earlier one was, or one the
		// select computation prefers to the one kept.
		take := x.Emit("not", "pred", S, []*hlo.Instruction{keep[0]})
		if has != nil {
			take = x.Binary("or", take, x.Emit("not", "pred", S, []*hlo.Instruction{has}))
		}
		if valid != nil {
			take = x.Binary("and", take, valid)
			has = x.Binary("or", has, valid)
		}
		best = x.Emit("select", elem, S, []*hlo.Instruction{take, s, best})
		idx = x.Emit("select", "s32", S, []*hlo.Instruction{take, kc, idx})
	}
	// Scatter, positions in reverse row-major order (see above).
	zero := x.Constant(src.Shape.Elem, "0")
	for i := len(ks) - 1; i >= 0; i-- {
		k := ks[i]
		chose := x.Emit("compare", "pred", S, []*hlo.Instruction{idx, x.Broadcast(x.Constant("s32", strconv.Itoa(i)), S, nil)},
			"direction", "EQ")
		if has != nil {
			chose = x.Binary("and", chose, has) // a window all padding chooses nothing
		}
		// Back where the window's elements came from: position k of
		// window o is o*stride + k in the padded operand.
		place := make([]string, n)
		for d := 0; d < n; d++ {
			hi := pdims[d] - (k[d] + (S[d]-1)*w.Stride[d] + 1)
			place[d] = fmt.Sprintf("%d_%d_%d", k[d], hi, w.Stride[d]-1)
		}
		cfgPlace := strings.Join(place, "x")
		vals := x.Emit("select", src.Shape.Elem, S, []*hlo.Instruction{chose, src, x.Broadcast(zero, S, nil)})
		vals = x.Emit("pad", src.Shape.Elem, pdims, []*hlo.Instruction{vals, zero}, "padding", cfgPlace)
		hit := x.Emit("pad", "pred", pdims, []*hlo.Instruction{chose, x.Constant("pred", "false")}, "padding", cfgPlace)
		ones := make([]int64, n)
		for d := range ones {
			ones[d] = 1
		}
		vals = x.Slice(vals, w.PadLo, D, ones)
		hit = x.Slice(hit, w.PadLo, D, ones)
		combined, err := x.Apply(scat, []*hlo.Instruction{out, vals})
		if err != nil {
			return err
		}
		out = x.Emit("select", in.Shape.Elem, D, []*hlo.Instruction{hit, combined[0], out})
	}
	x.Finish(out)
	return nil
}
