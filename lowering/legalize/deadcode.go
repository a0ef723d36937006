package legalize

import (
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// RemoveDeadCode drops the instructions no result depends on, as XLA's
// HloDCE does before a TPU compiles a module: a dump taken before XLA's
// passes (torch_xla's, for one) still holds values the program computes
// and never reads, such as the gradient of a training step's input images
// (MobileNet-v2's: a transposed convolution over 462 MB, 17M cycles of a
// 184M-cycle step, read by nothing). Kept whatever reads them:
// parameters, instructions with effects (feeds, transfers, collectives,
// random numbers, tokens, custom-calls), control predecessors of what is
// kept, and calls of computations holding any of those.
func RemoveDeadCode(m *hlo.Module) error {
	effects := map[*hlo.Computation]bool{}
	var hasEffects func(c *hlo.Computation, seen map[*hlo.Computation]bool) bool
	hasEffects = func(c *hlo.Computation, seen map[*hlo.Computation]bool) bool {
		if v, ok := effects[c]; ok {
			return v
		}
		if seen[c] {
			return false // a cycle, which the verifier refuses
		}
		seen[c] = true
		v := false
		for _, in := range c.Instructions {
			if keptForEffect(m, in, func(callee *hlo.Computation) bool { return hasEffects(callee, seen) }) {
				v = true
				break
			}
		}
		effects[c] = v
		return v
	}
	calledHasEffects := func(callee *hlo.Computation) bool { return hasEffects(callee, map[*hlo.Computation]bool{}) }
	for _, c := range m.Computations {
		if c.Root == nil {
			continue
		}
		live := map[string]bool{c.Root.Name: true}
		for i := len(c.Instructions) - 1; i >= 0; i-- {
			in := c.Instructions[i]
			if !live[in.Name] && in.Opcode != hlo.OpParameter && !keptForEffect(m, in, calledHasEffects) {
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
		kept := c.Instructions[:0]
		for _, in := range c.Instructions {
			if live[in.Name] {
				kept = append(kept, in)
			}
		}
		c.Instructions = kept
	}
	return nil
}

// keptForEffect: in has an effect, so it stays whether or not anything
// reads it (parameters stay too, as the computation's signature).
func keptForEffect(m *hlo.Module, in *hlo.Instruction, calleeHasEffects func(*hlo.Computation) bool) bool {
	switch in.Opcode {
	case hlo.OpInfeed, hlo.OpOutfeed, hlo.OpSend, hlo.OpSendDone, hlo.OpRecv, hlo.OpRecvDone,
		hlo.OpCustomCall, hlo.OpRng, hlo.OpRngGetAndUpdateState, hlo.OpAfterAll, hlo.OpAddDependency,
		hlo.OpAllReduce, hlo.OpAllGather, hlo.OpAllToAll, hlo.OpReduceScatter, hlo.OpCollectivePermute,
		hlo.OpAllReduceStart, hlo.OpAllReduceDone, hlo.OpAllGatherStart, hlo.OpAllGatherDone,
		hlo.OpCollectivePermuteStart, hlo.OpCollectivePermuteDone:
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
