package rewrite

import (
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// ForwardTupleElements makes every get-tuple-element of the tuple
// instructions named in tuples (every tuple when nil) read the element
// itself, and drops what is then read by nothing and computes nothing with
// effects (tuples, get-tuple-elements, broadcasts, constants, iotas), as
// XLA's tuple simplifier and DCE do. The lowering places a tuple's
// elements for as long as the tuple lives: an expanded library call's
// tuple (a fused attention's 514 MiB cuDNN workspace of zeros, which no
// instruction reads) would otherwise hold every element in HBM.
func ForwardTupleElements(m *hlo.Module, tuples map[string]bool) {
	for _, c := range m.Computations {
		byName := make(map[string]*hlo.Instruction, len(c.Instructions))
		changed := false
		for _, in := range c.Instructions {
			for _, o := range in.Operands {
				if e := tupleElement(byName[o.Name], byName, tuples); e != nil {
					o.Name = e.Name
					changed = true
				}
			}
			byName[in.Name] = in
		}
		if changed {
			dropDeadPure(c)
		}
	}
}

// tupleElement is the element gte reads when gte is a get-tuple-element
// of a tuple instruction (through nested ones); nil otherwise.
func tupleElement(gte *hlo.Instruction, byName map[string]*hlo.Instruction, tuples map[string]bool) *hlo.Instruction {
	var found *hlo.Instruction
	for gte != nil && gte.Opcode == hlo.OpGetTupleElement && len(gte.Operands) == 1 {
		t := byName[gte.Operands[0].Name]
		i := hlo.AttrIntOr(gte, "index", -1)
		if t == nil || t.Opcode != hlo.OpTuple || tuples != nil && !tuples[t.Name] || i < 0 || int(i) >= len(t.Operands) {
			break
		}
		e := byName[t.Operands[i].Name]
		if e == nil || !hlo.SameShape(e.Shape, gte.Shape) {
			break
		}
		found, gte = e, e
	}
	return found
}

// dropDeadPure removes, until none is left, the tuples, get-tuple-
// elements, broadcasts, constants and iotas that nothing reads.
func dropDeadPure(c *hlo.Computation) {
	for {
		used := map[string]bool{}
		for _, in := range c.Instructions {
			for _, o := range in.Operands {
				used[o.Name] = true
			}
		}
		n := len(c.Instructions)
		c.Instructions = slices.DeleteFunc(c.Instructions, func(in *hlo.Instruction) bool {
			switch in.Opcode {
			case hlo.OpTuple, hlo.OpGetTupleElement, hlo.OpBroadcast, hlo.OpConstant, hlo.OpIota:
				return !used[in.Name] && !in.IsRoot && c.Root != in
			}
			return false
		})
		if len(c.Instructions) == n {
			return
		}
	}
}
