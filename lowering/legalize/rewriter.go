package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// rewriter is the legalisation passes' rewrite.Rewriter: the methods that
// build a pass's pieces (a window loop, a convolution's taps, a gather's
// normal form) are added to it here.
type rewriter struct{ *rewrite.Rewriter }

// rewriteEach is rewrite.Each with the passes' rewriter.
func rewriteEach(m *hlo.Module, opcode string, expand func(x *rewriter, ops []*hlo.Instruction) error) error {
	return rewrite.Each(m, opcode, func(x *rewrite.Rewriter, ops []*hlo.Instruction) error {
		return expand(&rewriter{x}, ops)
	})
}
