package lowering

import (
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
)

// steering marks the program's instructions that implement an HLO
// instruction whose value control flow can read (analysis.Steering): the
// slice a timing-only run computes from its first run (core.Options.Seed)
// rather than finding it link by link. An instruction's origin names what
// it implements: the kernel's HLO instruction, the instruction inside a
// fusion (a loop kernel's loads name the fused parameter they fill), or a
// path "fusion/piece" or "loop/state-copy" under a kernel's name; names
// have slashes of their own where calls were inlined ("call/inner"). The
// instruction is seeded when a prefix of that path names an instruction
// in the slice.
//
// Control flow's own instructions (a loop's or conditional's copies of
// its whole state, a call, a tuple) are left to the search: seeding them
// would compute every array the state carries, where the search finds the
// one element control flow reads.
func (c *compiler) steering(fm *hlo.Module) []bool {
	slice := analysis.Steering(fm)
	names := map[string]bool{}
	for in := range slice {
		switch in.Opcode {
		case hlo.OpTuple, hlo.OpGetTupleElement, hlo.OpWhile, hlo.OpConditional,
			hlo.OpCall, hlo.OpOptimizationBarrier, hlo.OpOptBarrier, hlo.OpConstant:
			continue
		case hlo.OpCopy:
			if in.Shape != nil && in.Shape.IsTuple {
				continue
			}
		}
		names[in.Name] = true
	}
	if len(names) == 0 {
		return nil
	}
	p := c.res.Program
	seed := make([]bool, len(p.Code))
	any := false
	for pc, d := range p.Debug {
		// Names have slashes of their own (a call inlined as
		// "call/inner"): try every prefix of the path.
		for end := 0; end < len(d.Origin); {
			i := strings.IndexByte(d.Origin[end+1:], '/')
			if i < 0 {
				end = len(d.Origin)
			} else {
				end += 1 + i
			}
			if names[d.Origin[:end]] {
				seed[pc], any = true, true
				break
			}
		}
	}
	if !any {
		return nil
	}
	return seed
}
