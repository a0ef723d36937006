package hlo

import "strings"

// RemoveDead drops from every computation of m the instructions no result
// depends on, as XLA's HloDCE does, and returns the names removed. Kept
// whatever reads them: parameters, instructions with an effect (feeds,
// transfers, collectives, random numbers, tokens, custom-calls, async
// pairs, calls of computations holding one) unless droppable says the
// effect is the caller's own to drop (a partitioner's collectives), and
// the control predecessors of what is kept.
func RemoveDead(m *Module, droppable func(*Instruction) bool) map[string]bool {
	effects := map[*Computation]bool{}
	var hasEffects func(c *Computation, seen map[*Computation]bool) bool
	hasEffects = func(c *Computation, seen map[*Computation]bool) bool {
		if v, ok := effects[c]; ok {
			return v
		}
		if seen[c] {
			return false // a cycle, which the verifier refuses
		}
		seen[c] = true
		v := false
		for _, in := range c.Instructions {
			if hasEffect(m, in, func(callee *Computation) bool { return hasEffects(callee, seen) }) {
				v = true
				break
			}
		}
		effects[c] = v
		return v
	}
	calledHasEffects := func(callee *Computation) bool { return hasEffects(callee, map[*Computation]bool{}) }
	kept := func(in *Instruction) bool {
		return in.Opcode == OpParameter ||
			hasEffect(m, in, calledHasEffects) && (droppable == nil || !droppable(in))
	}
	removed := map[string]bool{}
	for _, c := range m.Computations {
		if c.Root == nil {
			continue
		}
		live := map[string]bool{c.Root.Name: true}
		for i := len(c.Instructions) - 1; i >= 0; i-- {
			in := c.Instructions[i]
			if !live[in.Name] && !kept(in) {
				continue
			}
			live[in.Name] = true
			for _, o := range in.Operands {
				live[o.Name] = true
			}
			if v, ok := in.Attr("control-predecessors"); ok {
				for _, n := range strings.Split(strings.Trim(v, "{}"), ",") {
					live[strings.TrimPrefix(strings.TrimSpace(n), "%")] = true
				}
			}
		}
		out := c.Instructions[:0]
		for _, in := range c.Instructions {
			if live[in.Name] {
				out = append(out, in)
			} else {
				removed[in.Name] = true
			}
		}
		c.Instructions = out
	}
	return removed
}

// hasEffect: in does something besides computing its value, so it stays
// whether or not anything reads it.
func hasEffect(m *Module, in *Instruction, calleeHasEffects func(*Computation) bool) bool {
	switch in.Opcode {
	case OpInfeed, OpOutfeed, OpSend, OpSendDone, OpRecv, OpRecvDone,
		OpCustomCall, OpRng, OpRngGetAndUpdateState, OpAfterAll, OpAddDependency,
		OpAllReduce, OpAllGather, OpAllToAll, OpReduceScatter, OpCollectivePermute,
		OpAllReduceStart, OpAllReduceDone, OpAllGatherStart, OpAllGatherDone,
		OpCollectivePermuteStart, OpCollectivePermuteDone:
		return true
	}
	if strings.HasSuffix(in.Opcode, "-start") || strings.HasSuffix(in.Opcode, "-done") {
		return true // async pairs: the start's work is the done's
	}
	for _, callee := range m.CalledBy(in) {
		if calleeHasEffects(callee) {
			return true
		}
	}
	return false
}
