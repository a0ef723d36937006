package legalize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// MaxWindowPositions bounds the windows that expand into straight-line
// code, one slice and one elementwise op per position: a reduce-window's
// (beyond it a single-op reducer runs as a loop, windowLoop, any other is
// an error) and a select-and-scatter's. A variable so that tests can send
// small windows through the loop.
var MaxWindowPositions int64 = 256

// ExpandReduceWindows rewrites every single-operand reduce-window whose
// reducer is one elementwise op (add, multiply, maximum, minimum, and, or)
// into what a vector unit computes: the operand padded with the reducer's
// identity (base dilation as interior padding), one
// strided slice per window position (window dilation in its start,
// window stride in its step), folded into the broadcast init value in
// row-major window order — the evaluator's order, so the bits agree.
// Pooling, cumulative sums over short windows and shifted-window masks
// become loop kernels this way.
func ExpandReduceWindows(m *hlo.Module) error {
	return rewriteEach(m, "reduce-window", func(x *rewriter, ops []*hlo.Instruction) error {
		return x.expandReduceWindow(ops)
	})
}

func (x *rewriter) expandReduceWindow(ops []*hlo.Instruction) error {
	in := x.At
	if len(ops) < 2 || len(ops)%2 != 0 || in.Shape == nil {
		return x.Errorf("takes operands and as many init values")
	}
	a, init := ops[0], ops[1]
	name, _ := in.Attr("to_apply")
	c := x.M.Computation(strings.TrimPrefix(name, "%"))
	if c == nil {
		return x.Errorf("no reducer computation %s", name)
	}
	op := ""
	if len(ops) == 2 && len(c.Instructions) == 3 && c.Root != nil && len(c.Root.Operands) == 2 {
		switch c.Root.Opcode {
		case hlo.OpAdd, hlo.OpMultiply, hlo.OpMaximum, hlo.OpMinimum, hlo.OpAnd, hlo.OpOr:
			op = c.Root.Opcode
		}
	}
	n := len(a.Shape.Dims)
	wv, _ := in.Attr("window")
	w, err := hlo.ParseWindow(wv, n)
	if err != nil {
		return x.Errorf("%v", err)
	}
	// A long cumulative window (cumsum, cumlogsumexp) is a prefix scan.
	if d, reverse, ok := scanDim(w, a.Shape.Dims); ok && hlo.Prod(w.Size) > MaxWindowPositions {
		k := len(ops) / 2
		var elems []string
		for _, o := range ops[:k] {
			elems = append(elems, o.Shape.Elem)
		}
		if op != "" || associative(x.M, c, elems) {
			r, err := x.scanWindow(op, c, ops[:k], ops[k:], d, reverse)
			if err != nil {
				return err
			}
			if k == 1 {
				x.Finish(r[0])
				return nil
			}
			if !in.Shape.IsTuple || len(in.Shape.Tuple) != k {
				return x.Errorf("a reduce-window of %d operands returns a tuple of %d arrays", k, k)
			}
			t := x.Emit("tuple", "", nil, r)
			t.Shape = &hlo.Shape{IsTuple: true, Tuple: in.Shape.Tuple}
			return nil
		}
		if op == "" {
			return x.Errorf("a cumulative window of %d positions folded by %s is not lowered: %s is not associative (a prefix scan would regroup it), and a window that long is not unrolled (at most %d)", hlo.Prod(w.Size), c.Name, c.Name, MaxWindowPositions)
		}
	}
	if op == "" {
		if k := hlo.Prod(w.Size); k > MaxWindowPositions {
			return x.Errorf("a window of %d positions folded by %s is not lowered (at most %d; one elementwise add, multiply, maximum, minimum, and or or runs any window as a loop, and any associative reducer a cumulative window as a scan)", k, c.Name, MaxWindowPositions)
		}
		return x.generalReduceWindow(ops, c, w)
	}
	// The operand padded with init: low and high padding, base dilation.
	padded := a
	var cfg []string
	pdims := make([]int64, n)
	changed := false
	for d := 0; d < n; d++ {
		interior := w.LhsDil[d] - 1
		pdims[d] = w.PadLo[d] + w.PadHi[d] + a.Shape.Dims[d] + max(a.Shape.Dims[d]-1, 0)*interior
		cfg = append(cfg, fmt.Sprintf("%d_%d_%d", w.PadLo[d], w.PadHi[d], interior))
		changed = changed || w.PadLo[d] != 0 || w.PadHi[d] != 0 || interior != 0
	}
	if changed {
		// Padding folds in as the reducer's identity: positions outside
		// the operand take no part, as in the evaluator (XLA's
		// HloEvaluator), whatever the init value.
		lit, ok := identity(op, a.Shape.Elem)
		if !ok {
			return x.Errorf("no identity of %s for %s padding", op, a.Shape.Elem)
		}
		id := x.Constant(a.Shape.Elem, lit)
		padded = x.Emit("pad", a.Shape.Elem, pdims, []*hlo.Instruction{a, id}, "padding", strings.Join(cfg, "x"))
	}
	out := in.Shape.Dims
	acc := x.Broadcast(init, out, nil)
	if len(out) == 0 {
		acc = init
	}
	switch {
	case hlo.Prod(out) == 0:
		x.Emit("copy", in.Shape.Elem, out, []*hlo.Instruction{acc}) // no windows
		return nil
	case hlo.Prod(w.Size) > MaxWindowPositions:
		x.Finish(x.windowLoop(op, padded, acc, w, out))
		return nil
	}
	for _, k := range hlo.Positions(w.Size) {
		start := make([]int64, n)
		for d := range start {
			start[d] = k[d] * w.RhsDil[d]
		}
		s := x.Slice(padded, start, out, w.Stride)
		acc = x.Emit(op, in.Shape.Elem, out, []*hlo.Instruction{acc, s})
	}
	if acc == init || acc.Opcode == hlo.OpBroadcast {
		acc = x.Emit("copy", in.Shape.Elem, out, []*hlo.Instruction{acc}) // an empty window: the init value
	}
	return nil
}

// identity is the literal of op's identity element in elem.
func identity(op, elem string) (string, bool) {
	t, _ := hlo.LookupElem(elem)
	float := t.Kind == hlo.KindFloat
	lo, hi, ok := t.Bounds()
	if !ok || t.IsInteger() && t.Bits < 4 { // s1, s2, u1, u2 windows are not lowered
		return "", false
	}
	switch op {
	case hlo.OpAdd, hlo.OpOr:
		if elem == hlo.Pred {
			return "false", true
		}
		return "0", true
	case hlo.OpMultiply:
		if elem == hlo.Pred {
			return "true", true
		}
		return "1", true
	case hlo.OpMaximum:
		return lo, true
	case hlo.OpMinimum:
		return hi, true
	case hlo.OpAnd:
		if elem == hlo.Pred {
			return "true", true
		}
		if strings.HasPrefix(elem, "u") {
			return hi, true
		}
		return "-1", !float
	}
	return "", false
}

// generalReduceWindow folds windows with any reducer, of one operand or
// several together (a variadic reduce-window: a min with its companion,
// an argmax): at each window position, in row-major order, the reducer
// applied elementwise to the accumulators and the operands' strided
// slices, its results kept only where the position lies in the operand
// (a padded "valid" mask, base dilation included): padding takes no part,
// as in the evaluator, since a general reducer has no identity.
func (x *rewriter) generalReduceWindow(ops []*hlo.Instruction, c *hlo.Computation, w hlo.Window) error {
	in := x.At
	k := len(ops) / 2
	operands, inits := ops[:k], ops[k:]
	outShapes := []*hlo.Shape{in.Shape}
	if k > 1 {
		if !in.Shape.IsTuple || len(in.Shape.Tuple) != k {
			return x.Errorf("a reduce-window of %d operands returns a tuple of %d arrays", k, k)
		}
		outShapes = in.Shape.Tuple
	} else if in.Shape.IsTuple {
		return x.Errorf("a reduce-window of one operand returns an array")
	}
	out := outShapes[0].Dims
	n := len(operands[0].Shape.Dims)
	var cfg []string
	pdims := make([]int64, n)
	changed := false
	for d := 0; d < n; d++ {
		dim := operands[0].Shape.Dims[d]
		interior := w.LhsDil[d] - 1
		pdims[d] = w.PadLo[d] + w.PadHi[d] + dim + max(dim-1, 0)*interior
		cfg = append(cfg, fmt.Sprintf("%d_%d_%d", w.PadLo[d], w.PadHi[d], interior))
		changed = changed || w.PadLo[d] != 0 || w.PadHi[d] != 0 || interior != 0
	}
	padded := slices.Clone(operands)
	var valid *hlo.Instruction
	if changed {
		for i, a := range operands {
			padded[i] = x.Emit("pad", a.Shape.Elem, pdims, []*hlo.Instruction{a, x.Constant(a.Shape.Elem, "0")}, "padding", strings.Join(cfg, "x"))
		}
		ones := x.Broadcast(x.Constant("pred", "true"), operands[0].Shape.Dims, nil)
		valid = x.Emit("pad", "pred", pdims, []*hlo.Instruction{ones, x.Constant("pred", "false")}, "padding", strings.Join(cfg, "x"))
	}
	acc := make([]*hlo.Instruction, k)
	for i, init := range inits {
		acc[i] = x.Broadcast(init, out, nil)
	}
	for _, p := range hlo.Positions(w.Size) {
		start := make([]int64, n)
		for d := range start {
			start[d] = p[d] * w.RhsDil[d]
		}
		args := slices.Clone(acc)
		for _, a := range padded {
			args = append(args, x.Slice(a, start, out, w.Stride))
		}
		r, err := x.Apply(c, args)
		if err != nil {
			return err
		}
		if len(r) != k {
			return x.Errorf("the reducer %s returns %d values for %d operands", c.Name, len(r), k)
		}
		var v *hlo.Instruction
		if valid != nil {
			v = x.Slice(valid, start, out, w.Stride)
		}
		for i := range acc {
			if v == nil {
				acc[i] = r[i]
				continue
			}
			acc[i] = x.Emit("select", outShapes[i].Elem, out, []*hlo.Instruction{v, r[i], acc[i]})
		}
	}
	if k == 1 {
		x.Finish(acc[0])
		return nil
	}
	t := x.Emit("tuple", "", nil, acc)
	t.Shape = &hlo.Shape{IsTuple: true, Tuple: outShapes}
	return nil
}
