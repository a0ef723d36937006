package expand

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// XLA prints an op run asynchronously in a short form: "negate-start",
// "call-start", "custom-call-start", "fusion-start", "slice-start" (and
// their "-update" and "-done") stand for async-start, async-update and
// async-done around a computation that applies the op to its parameters;
// the -start returns ((operands), result, context...). The collectives and
// copy, which have -start and -done ops of their own, are not this form.

// ExpandShortAsync rewrites the short async forms into async-start (calls=
// a new computation applying the op to its parameters), async-update and
// async-done, as XLA's parser does.
func ExpandShortAsync(m *hlo.Module) error {
	var added []*hlo.Computation
	for _, c := range m.Computations {
		for i, in := range c.Instructions {
			base, part, ok := hlo.ShortAsync(in.Opcode)
			if !ok {
				continue
			}
			cp := *in
			c.Instructions[i] = &cp
			if c.Root == in {
				c.Root = &cp
			}
			if part != "start" {
				if len(in.Operands) != 1 {
					return &rewrite.ExpandError{Pos: in.Pos, Name: in.Name, Opcode: in.Opcode, Reason: "takes the " + base + "-start result"}
				}
				cp.Opcode = "async-" + part
				continue
			}
			inner, ok := hlo.ShortAsyncInner(in, base)
			if !ok || !in.Shape.Tuple[0].IsTuple || len(in.Shape.Tuple[0].Tuple) != len(in.Operands) {
				return &rewrite.ExpandError{Pos: in.Pos, Name: in.Name, Opcode: in.Opcode, Reason: "should return ((operands), result, context...)"}
			}
			name := in.Name + ".wrapped"
			for k := 0; m.Computation(name) != nil; k++ {
				name = fmt.Sprintf("%s.wrapped%d", in.Name, k)
			}
			w := &hlo.Computation{Pos: in.Pos, Name: name}
			inner.Operands = nil
			for k, s := range in.Shape.Tuple[0].Tuple {
				p := &hlo.Instruction{Pos: in.Pos, Name: fmt.Sprintf("%s.p%d", name, k), Shape: s, Opcode: "parameter", ParamNumber: int64(k)}
				w.Instructions = append(w.Instructions, p)
				inner.Operands = append(inner.Operands, &hlo.Operand{Pos: in.Pos, Name: p.Name, Shape: s})
			}
			inner.Name = name + ".op"
			w.Instructions = append(w.Instructions, inner)
			w.Root = inner
			added = append(added, w)
			cp.Opcode = "async-start"
			cp.Attrs = []hlo.Attr{{Pos: in.Pos, Key: "calls", Value: "%" + name}}
		}
	}
	m.Computations = append(added, m.Computations...)
	return nil
}
