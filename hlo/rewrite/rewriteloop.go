package rewrite

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
)

// WhileLoop emits a while loop over the tuple of init's values and returns
// the loop's final values and the while. cond and body build the condition and the body
// in rewriters of their own, from the loop values (get-tuple-elements of
// the computation's parameter); body returns the next values, one per
// loop value. The computations are named after the replaced instruction
// and what, made unique in the module, and put first in it (the parser's
// order: callees before callers).
func (x *Rewriter) WhileLoop(what string, init []*hlo.Instruction,
	cond func(b *Rewriter, v []*hlo.Instruction) *hlo.Instruction,
	body func(b *Rewriter, v []*hlo.Instruction) []*hlo.Instruction) ([]*hlo.Instruction, *hlo.Instruction) {
	state := &hlo.Shape{IsTuple: true}
	for _, v := range init {
		state.Tuple = append(state.Tuple, &hlo.Shape{Elem: v.Shape.Elem, Dims: append([]int64{}, v.Shape.Dims...)})
	}
	base := x.At.Name + "." + what
	for i := 0; x.M.Computation(base+".body") != nil || x.M.Computation(base+".cond") != nil; i++ {
		base = fmt.Sprintf("%s.%s%d", x.At.Name, what, i)
	}
	values := func(b *Rewriter) []*hlo.Instruction {
		p := b.Emit("parameter", "", nil, nil)
		p.Shape = state
		v := make([]*hlo.Instruction, len(init))
		for i, s := range state.Tuple {
			v[i] = b.Emit("get-tuple-element", s.Elem, s.Dims, []*hlo.Instruction{p}, "index", strconv.Itoa(i))
		}
		return v
	}
	sub := func() *Rewriter { return &Rewriter{M: x.M, At: x.At, Taken: map[string]bool{}} }

	c := sub()
	pred := cond(c, values(c))
	if c.Out[len(c.Out)-1] != pred {
		pred = c.Emit("copy", pred.Shape.Elem, pred.Shape.Dims, []*hlo.Instruction{pred})
	}
	pred.IsRoot = true
	b := sub()
	next := body(b, values(b))
	t := b.Emit("tuple", "", nil, next)
	t.Shape, t.IsRoot = state, true

	condC := &hlo.Computation{Pos: x.At.Pos, Name: base + ".cond", Instructions: c.Out, Root: pred}
	bodyC := &hlo.Computation{Pos: x.At.Pos, Name: base + ".body", Instructions: b.Out, Root: t}
	x.M.Computations = append([]*hlo.Computation{condC, bodyC}, x.M.Computations...)
	start := x.Emit("tuple", "", nil, init)
	start.Shape = state
	w := x.Emit("while", "", nil, []*hlo.Instruction{start}, "condition", "%"+condC.Name, "body", "%"+bodyC.Name)
	w.Shape = state
	out := make([]*hlo.Instruction, len(init))
	for i, s := range state.Tuple {
		out[i] = x.Emit("get-tuple-element", s.Elem, s.Dims, []*hlo.Instruction{w}, "index", strconv.Itoa(i))
	}
	return out, w
}

// Counted emits a loop whose first value counts from 0 to n (s32),
// the known_trip_count backend config set, with step computing the rest
// of the next values from the count and the rest of the current ones.
func (x *Rewriter) Counted(what string, n int64, init []*hlo.Instruction,
	step func(b *Rewriter, i *hlo.Instruction, v []*hlo.Instruction) []*hlo.Instruction) []*hlo.Instruction {
	zero := x.Constant("s32", "0")
	out, w := x.WhileLoop(what, append([]*hlo.Instruction{zero}, init...),
		func(b *Rewriter, v []*hlo.Instruction) *hlo.Instruction {
			return b.Emit("compare", "pred", nil, []*hlo.Instruction{v[0], b.Constant("s32", strconv.FormatInt(n, 10))}, "direction", "LT")
		},
		func(b *Rewriter, v []*hlo.Instruction) []*hlo.Instruction {
			rest := step(b, v[0], v[1:])
			return append([]*hlo.Instruction{b.Binary("add", v[0], b.Constant("s32", "1"))}, rest...)
		})
	w.Attrs = append(w.Attrs, hlo.Attr{Pos: x.At.Pos, Key: "backend_config", Value: fmt.Sprintf(`{"known_trip_count":{"n":"%d"}}`, n)})
	return out[1:]
}
