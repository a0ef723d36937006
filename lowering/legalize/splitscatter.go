package legalize

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"slices"
	"strings"
)

// SplitVariadicScatters rewrites a scatter of n operands whose combiner
// is separable — result i reads only operand i's current value and update
// i (parameters i and n+i), as assignments and per-operand sums, maxima
// and the like are — into n scatters of one operand each, with the
// combiner's part for each, and a tuple of them. The scatters are
// independent, so this is the same computation. Other variadic scatters
// (a combiner that mixes operands, as an argmax does) are left for the
// lowering to name.
func SplitVariadicScatters(m *hlo.Module) error {
	return rewriteEach(m, "scatter", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		n := (len(ops) - 1) / 2
		name, _ := in.Attr("to_apply")
		body := m.Computation(strings.TrimPrefix(name, "%"))
		if n < 2 || len(ops) != 2*n+1 || body == nil || !in.Shape.IsTuple || len(in.Shape.Tuple) != n ||
			body.Root == nil || body.Root.Opcode != hlo.OpTuple || len(body.Root.Operands) != n {
			x.Out = append(x.Out, in)
			return nil
		}
		parts := make([]*hlo.Computation, n)
		for i := range n {
			if parts[i] = combinerPart(body, i, n, fmt.Sprintf("%s.part%d", body.Name, i), m); parts[i] == nil {
				x.Out = append(x.Out, in)
				return nil
			}
		}
		var outs []*hlo.Instruction
		for i, c := range parts {
			m.Computations = append([]*hlo.Computation{c}, m.Computations...)
			s := x.Emit("scatter", in.Shape.Tuple[i].Elem, in.Shape.Tuple[i].Dims, []*hlo.Instruction{ops[i], ops[n], ops[n+1+i]})
			for _, a := range in.Attrs {
				if a.Key == "to_apply" {
					a.Value = "%" + c.Name
				}
				s.Attrs = append(s.Attrs, a)
			}
			outs = append(outs, s)
		}
		t := x.Emit("tuple", "", nil, outs)
		t.Shape = in.Shape
		return nil
	})
}

// combinerPart is the computation of result i of a variadic combiner of n
// operands, as a combiner of two scalars (operand i's value, update i),
// or nil when result i reads any other parameter.
func combinerPart(body *hlo.Computation, i, n int, name string, m *hlo.Module) *hlo.Computation {
	byName := map[string]*hlo.Instruction{}
	for _, b := range body.Instructions {
		byName[b.Name] = b
	}
	// The instructions result i needs, in order.
	need := map[string]bool{}
	var mark func(name string) bool
	mark = func(name string) bool {
		b := byName[name]
		if b == nil {
			return false
		}
		if need[name] {
			return true
		}
		need[name] = true
		if b.Opcode == hlo.OpParameter {
			return b.ParamNumber == int64(i) || b.ParamNumber == int64(n+i)
		}
		for _, o := range b.Operands {
			if !mark(o.Name) {
				return false
			}
		}
		return true
	}
	if !mark(body.Root.Operands[i].Name) {
		return nil
	}
	for k := 0; m.Computation(name) != nil; k++ {
		name = fmt.Sprintf("%s.%d", name, k)
	}
	c := &hlo.Computation{Pos: body.Pos, Name: name}
	params := 0
	for _, b := range body.Instructions {
		if !need[b.Name] {
			continue
		}
		cp := *b
		cp.IsRoot = false
		cp.Operands = slices.Clone(b.Operands)
		if b.Opcode == hlo.OpParameter {
			cp.ParamNumber = 0
			if b.ParamNumber == int64(n+i) {
				cp.ParamNumber = 1
			}
			params++
		}
		c.Instructions = append(c.Instructions, &cp)
		if b.Name == body.Root.Operands[i].Name {
			c.Root = &cp
		}
	}
	// A combiner takes both scalars, used or not.
	for p := int64(0); p < 2 && params < 2; p++ {
		has := slices.ContainsFunc(c.Instructions, func(b *hlo.Instruction) bool { return b.Opcode == hlo.OpParameter && b.ParamNumber == p })
		if !has {
			elem := byName[body.Root.Operands[i].Name].Shape.Elem
			c.Instructions = append([]*hlo.Instruction{{Pos: body.Pos, Name: fmt.Sprintf("%s.unused%d", name, p), Shape: &hlo.Shape{Elem: elem}, Opcode: "parameter", ParamNumber: p}}, c.Instructions...)
			params++
		}
	}
	c.Root.IsRoot = true
	return c
}
