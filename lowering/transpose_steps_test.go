package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTransposeTwoSteps: permutations that are not one batched 2-D
// transpose but move the innermost dimension ([A, M, C] -> [C, M, A], a
// convolution weight gradient's f01b -> b01f; a 4-D reversal) go through
// SRAM in two or three passes with temporaries between them, and batches of small
// matrices pack several to a tile; the values are the evaluator's with the
// race detector watching, and the HBM traffic is near the passes'
// (twice the array each), where the strided DMA moved an element a burst.
func TestTransposeTwoSteps(t *testing.T) {
	for _, tc := range []struct {
		chip, in, out, perm string
		passes              int // the barriers (one ends the kernel)
		maxCycles           int64
	}{
		{"tpuv4core", "f32[4,16,16,32]", "f32[32,16,16,4]", "3,1,2,0", 2, 6000},
		{"tpuv4core", "bf16[8,64,2,128]", "bf16[128,2,64,8]", "3,2,1,0", 3, 0}, // a reversal of four: three passes
		{"trn1nc", "f32[4,16,16,32]", "f32[32,16,16,4]", "3,1,2,0", 2, 0},
		{"teach16", "f32[6,10,12]", "f32[12,10,6]", "2,1,0", 2, 0},
		// A batched transpose of small matrices: one pass, packed.
		{"tpuv4core", "f32[64,4,256]", "f32[64,256,4]", "0,2,1", 1, 3000},
	} {
		t.Run(tc.chip+"/"+tc.in+"/"+tc.perm, func(t *testing.T) {
			src := fmt.Sprintf(`HloModule m
ENTRY e {
  a = %s parameter(0)
  ROOT t = %s transpose(a), dimensions={%s}
}`, tc.in, tc.out, tc.perm)
			x, r := compileRunChecked(t, tc.chip, nil, src)
			require.Equal(t, tc.passes, strings.Count(x.Compiled.Asm, "        barrier\n"), "passes")
			require.Contains(t, x.Compiled.Asm, "xpose   ")
			if tc.maxCycles > 0 {
				require.Less(t, r.Report.Cycles, tc.maxCycles)
			}
		})
	}
}

// TestLongCopyDims: a layout-keeping transpose of a 64 MiB array (MaxText
// Mixtral's expert tokens after their all-to-all) moves as one contiguous
// run of 32M elements, more than a tile's dimension holds: the DMA's run
// is cut in two dimensions, and the program assembles.
func TestLongCopyDims(t *testing.T) {
	c := compileFor(t, "tpuv4core", `HloModule m
ENTRY e {
  a = bf16[8,1,1024,4096]{3,2,1,0} parameter(0)
  ROOT t = bf16[1,8,1024,4096]{3,2,0,1} transpose(a), dimensions={1,0,2,3}
}`)
	require.Contains(t, c.Asm, ":bf16[2,16777216]{16777216,1}, hbm[t_a+0]:bf16[2,16777216]{16777216,1}")
}
