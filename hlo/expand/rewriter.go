package expand

import (
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// rewriter is the expansions' rewrite.Rewriter: the methods that build
// one expansion's pieces (an erf polynomial, a complex product, a
// triangular-solve block) are added to it here.
type rewriter struct{ *rewrite.Rewriter }

// rewriteEach is rewrite.Each with the expansions' rewriter.
func rewriteEach(m *hlo.Module, opcode string, expand func(x *rewriter, ops []*hlo.Instruction) error) error {
	return rewrite.Each(m, opcode, func(x *rewrite.Rewriter, ops []*hlo.Instruction) error {
		return expand(&rewriter{x}, ops)
	})
}
