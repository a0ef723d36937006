package partition

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// flatten is the entry computation with its calls inlined (XLA's
// partitioner runs after CallInliner): a call's callee instructions,
// renamed call.in.name, its parameters replaced by the call's operands, its
// root taking the call's name. A call of a shard_map body stays: the body
// runs as written on each device's shard.
func flatten(m *hlo.Module) []*hlo.Instruction { return flattenComp(m, m.Entry) }

// flattenComp is flatten for any computation (a while loop's body).
func flattenComp(m *hlo.Module, comp *hlo.Computation) []*hlo.Instruction {
	manual := map[string]bool{}
	taken := map[string]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			taken[in.Name] = true
		}
	}
	unique := func(n string) string {
		for k := 1; taken[n]; k++ {
			n = fmt.Sprintf("%s.%d", strings.TrimSuffix(n, fmt.Sprintf(".%d", k-1)), k)
		}
		taken[n] = true
		return n
	}
	var out []*hlo.Instruction
	// rename maps a callee's names to the flattened ones (empty for the
	// entry, whose names stay).
	var walk func(body []*hlo.Instruction, rename map[string]string, inCallee bool)
	walk = func(body []*hlo.Instruction, rename map[string]string, inCallee bool) {
		for _, in := range body {
			c := *in
			c.IsRoot = false
			name := in.Name
			if inCallee {
				name = rename[in.Name]
			}
			c.Name = name
			c.Operands = make([]*hlo.Operand, len(in.Operands))
			for i, o := range in.Operands {
				n := o.Name
				if r, ok := rename[n]; ok {
					n = r
				}
				c.Operands[i] = &hlo.Operand{Pos: o.Pos, Name: n}
			}
			if inCallee && in.Opcode == hlo.OpParameter {
				// bound by the caller: rename[in.Name] was set
				continue
			}
			target, _ := in.Attr("custom_call_target")
			if strings.Contains(target, "GlobalToLocalShape") || strings.Contains(target, "SPMDFullToShardShape") {
				manual[name] = true
			}
			if in.Opcode == "get-tuple-element" && manual[c.Operands[0].Name] {
				manual[name] = true
			}
			if in.Opcode == hlo.OpCall && !anyOperand(c.Operands, manual) {
				callee := m.Computation(strings.TrimPrefix(attr(in, "to_apply"), "%"))
				if callee != nil {
					inner := map[string]string{}
					for _, x := range callee.Instructions {
						if x.Opcode == hlo.OpParameter && int(x.ParamNumber) < len(c.Operands) {
							inner[x.Name] = c.Operands[x.ParamNumber].Name
						} else if x.IsRoot || x == callee.Root {
							inner[x.Name] = name
						} else {
							inner[x.Name] = unique(name + ".in." + x.Name)
						}
					}
					walk(callee.Instructions, inner, true)
					continue
				}
			}
			out = append(out, &c)
		}
	}
	walk(comp.Instructions, map[string]string{}, false)
	return out
}

func anyOperand(ops []*hlo.Operand, set map[string]bool) bool {
	for _, o := range ops {
		if set[o.Name] {
			return true
		}
	}
	return false
}

func attr(in *hlo.Instruction, key string) string {
	v, _ := in.Attr(key)
	return v
}
