package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"strings"
)

// InlineCalls replaces every call instruction of every computation (and
// of the computations it inlines) by the called computation's
// instructions: parameters become the call's operands, the callee's root
// takes the call's name, and the other instructions are renamed
// "call/name" so that names stay unique. Positions are kept, so errors and
// debug maps still point at the callee's source lines.
func InlineCalls(m *hlo.Module) {
	// Every computation, not only the entry: a while body or a branch
	// calls too (a scanned layer is a call inside a while body). Callees
	// go first, so that every callee is already free of calls when its
	// callers take its instructions: one level of inlining each, however
	// deep the nesting (a depth cap had left calls beyond 64 levels in
	// place, which the compiler then could not lower).
	for _, comp := range m.CalleesFirst(nil) {
		if !hasCall(comp) {
			continue
		}
		comp.Instructions = inline(m, comp.Instructions)
		for _, in := range comp.Instructions {
			if in.IsRoot {
				comp.Root = in
			}
		}
	}
}

func hasCall(comp *hlo.Computation) bool {
	for _, in := range comp.Instructions {
		if in.Opcode == hlo.OpCall {
			return true
		}
	}
	return false
}

func inline(m *hlo.Module, body []*hlo.Instruction) []*hlo.Instruction {
	var out []*hlo.Instruction
	for _, in := range body {
		var callee *hlo.Computation
		if in.Opcode == hlo.OpCall {
			name, _ := in.Attr("to_apply")
			callee = m.Computation(strings.TrimPrefix(name, "%"))
		}
		if callee == nil || hasCall(callee) {
			// Not a call, or one into a cycle (callees come first
			// otherwise): left as it is.
			out = append(out, in)
			continue
		}
		rename := map[string]string{}
		var inlined []*hlo.Instruction
		for _, b := range callee.Instructions {
			if b.Opcode == hlo.OpParameter {
				if int(b.ParamNumber) < len(in.Operands) {
					rename[b.Name] = in.Operands[b.ParamNumber].Name
				}
				continue
			}
			cp := *b
			cp.Attrs = append([]hlo.Attr{}, b.Attrs...)
			cp.IsRoot = false
			if b == callee.Root {
				cp.Name = in.Name
				cp.IsRoot = in.IsRoot
			} else {
				cp.Name = in.Name + "/" + b.Name
			}
			rename[b.Name] = cp.Name
			cp.Operands = make([]*hlo.Operand, len(b.Operands))
			for i, o := range b.Operands {
				co := *o
				if n, ok := rename[o.Name]; ok {
					co.Name = n
				}
				cp.Operands[i] = &co
			}
			inlined = append(inlined, &cp)
		}
		if callee.Root != nil && callee.Root.Opcode == hlo.OpParameter {
			// The callee returns a parameter: the call is that operand.
			inlined = append(inlined, &hlo.Instruction{Pos: in.Pos, Name: in.Name, IsRoot: in.IsRoot, Shape: in.Shape,
				Opcode: "copy", Operands: []*hlo.Operand{{Pos: in.Pos, Name: rename[callee.Root.Name]}}})
		}
		out = append(out, inlined...)
	}
	return out
}
