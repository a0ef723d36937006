package expand

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
)

// whileLoop emits a while loop over the tuple of init's values and returns
// the loop's final values and the while. cond and body build the condition and the body
// in rewriters of their own, from the loop values (get-tuple-elements of
// the computation's parameter); body returns the next values, one per
// loop value. The computations are named after the replaced instruction
// and what, made unique in the module, and put first in it (the parser's
// order: callees before callers).
func (x *rewriter) whileLoop(what string, init []*hlo.Instruction,
	cond func(b *rewriter, v []*hlo.Instruction) *hlo.Instruction,
	body func(b *rewriter, v []*hlo.Instruction) []*hlo.Instruction) ([]*hlo.Instruction, *hlo.Instruction) {
	state := &hlo.Shape{IsTuple: true}
	for _, v := range init {
		state.Tuple = append(state.Tuple, &hlo.Shape{Elem: v.Shape.Elem, Dims: append([]int64{}, v.Shape.Dims...)})
	}
	base := x.at.Name + "." + what
	for i := 0; x.m.Computation(base+".body") != nil || x.m.Computation(base+".cond") != nil; i++ {
		base = fmt.Sprintf("%s.%s%d", x.at.Name, what, i)
	}
	values := func(b *rewriter) []*hlo.Instruction {
		p := b.emit("parameter", "", nil, nil)
		p.Shape = state
		v := make([]*hlo.Instruction, len(init))
		for i, s := range state.Tuple {
			v[i] = b.emit("get-tuple-element", s.Elem, s.Dims, []*hlo.Instruction{p}, "index", strconv.Itoa(i))
		}
		return v
	}
	sub := func() *rewriter { return &rewriter{m: x.m, at: x.at, taken: map[string]bool{}} }

	c := sub()
	pred := cond(c, values(c))
	if c.out[len(c.out)-1] != pred {
		pred = c.emit("copy", pred.Shape.Elem, pred.Shape.Dims, []*hlo.Instruction{pred})
	}
	pred.IsRoot = true
	b := sub()
	next := body(b, values(b))
	t := b.emit("tuple", "", nil, next)
	t.Shape, t.IsRoot = state, true

	condC := &hlo.Computation{Pos: x.at.Pos, Name: base + ".cond", Instructions: c.out, Root: pred}
	bodyC := &hlo.Computation{Pos: x.at.Pos, Name: base + ".body", Instructions: b.out, Root: t}
	x.m.Computations = append([]*hlo.Computation{condC, bodyC}, x.m.Computations...)
	start := x.emit("tuple", "", nil, init)
	start.Shape = state
	w := x.emit("while", "", nil, []*hlo.Instruction{start}, "condition", "%"+condC.Name, "body", "%"+bodyC.Name)
	w.Shape = state
	out := make([]*hlo.Instruction, len(init))
	for i, s := range state.Tuple {
		out[i] = x.emit("get-tuple-element", s.Elem, s.Dims, []*hlo.Instruction{w}, "index", strconv.Itoa(i))
	}
	return out, w
}

// counted emits a loop whose first value counts from 0 to n (s32),
// the known_trip_count backend config set, with step computing the rest
// of the next values from the count and the rest of the current ones.
func (x *rewriter) counted(what string, n int64, init []*hlo.Instruction,
	step func(b *rewriter, i *hlo.Instruction, v []*hlo.Instruction) []*hlo.Instruction) []*hlo.Instruction {
	zero := x.constant("s32", "0")
	out, w := x.whileLoop(what, append([]*hlo.Instruction{zero}, init...),
		func(b *rewriter, v []*hlo.Instruction) *hlo.Instruction {
			return b.emit("compare", "pred", nil, []*hlo.Instruction{v[0], b.constant("s32", strconv.FormatInt(n, 10))}, "direction", "LT")
		},
		func(b *rewriter, v []*hlo.Instruction) []*hlo.Instruction {
			rest := step(b, v[0], v[1:])
			return append([]*hlo.Instruction{b.binary("add", v[0], b.constant("s32", "1"))}, rest...)
		})
	w.Attrs = append(w.Attrs, hlo.Attr{Pos: x.at.Pos, Key: "backend_config", Value: fmt.Sprintf(`{"known_trip_count":{"n":"%d"}}`, n)})
	return out[1:]
}
