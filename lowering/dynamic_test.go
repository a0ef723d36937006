package lowering_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConstantStartIndices: a dynamic slice's constant start indices (a
// scan's zeros for the dims it does not slice) are immediates: the kernel
// loads only the loop counter's, where it loaded all three, each a DMA
// waited on (flash_attention_scan 15,984 -> 14,584 cycles). Values as the
// evaluator's, clamped as XLA clamps them.
func TestConstantStartIndices(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  x = f32[4,64,64] parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  big = s32[] constant(9)
  a = f32[1,64,32] dynamic-slice(x, i, z, big), dynamic_slice_sizes={1,64,32}
  ROOT r = f32[1,64,32] negate(a)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			x, _ := compileRunChecked(t, chip, nil, src)
			asm := x.Compiled.Asm
			k := asm[strings.Index(asm, ": dynamic-slice"):]
			k = k[:strings.Index(k, "barrier")]
			require.Equal(t, 1, strings.Count(k, "dma     smem["), "only the parameter's index is loaded:\n%s", k)
		})
	}
}
