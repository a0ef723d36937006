package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTransposeNarrowColumns: a transpose of few columns ([P, 8] -> [8, P],
// a swapped decode GEMV's result) takes tall tiles, as many rows as an
// eighth of the array (at least 8,192 elements: four tiles for [4096, 8],
// where [512, 8] tiles made eight round trips), so that the buffer sets
// (up to four) keep several tiles between load and store; the values are
// the evaluator's with the race detector watching.
func TestTransposeNarrowColumns(t *testing.T) {
	for _, tc := range []struct {
		chip   string
		P      int
		xposes int // xpose instructions in the program
	}{
		{"tpuv4core", 4096, 4},
		{"trn1nc", 4096, 4},
		{"tpuv4core", 65536, 8}, // eight row tiles of 8192
		{"trn1nc", 98304, 8},    // of 12288
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.chip, tc.P), func(t *testing.T) {
			src := fmt.Sprintf(`HloModule m
ENTRY e {
  a = bf16[%d,8] parameter(0)
  ROOT t = bf16[8,%d] transpose(a), dimensions={1,0}
}`, tc.P, tc.P)
			x, _ := compileRunChecked(t, tc.chip, nil, src)
			require.Equal(t, tc.xposes, strings.Count(x.Compiled.Asm, "xpose   "), "tiles of %d rows", max(8192/8, tc.P/8))
		})
	}
}

// TestTransposeNarrowRows: moving a few rows' worth of dim innermost (an
// NCHW image's 3 channels: [B, 3, H*W] -> [B, H*W, 3]) takes wide tiles,
// whole rows of the 3 and as many columns as fit, where [3, 512] tiles
// each paid a round trip for 6 KiB; loaded in pieces over several
// engines, through the packed, the looped and the unrolled walks, with
// the race detector watching (a piece waiting for a token on its own
// engine let an engine running ahead take another piece's: a transpose
// of a piece not yet loaded, or a deadlock).
func TestTransposeNarrowRows(t *testing.T) {
	for _, tc := range []struct {
		name, chip, shape, out, perm string
		most                         int // xpose instructions at most
	}{
		{"packed", "tpuv4core", "f32[64,3,64,64]", "f32[64,64,64,3]", "{0,2,3,1}", 64}, // an xpose a matrix
		{"packed", "trn1nc", "f32[64,3,64,64]", "f32[64,64,64,3]", "{0,2,3,1}", 64},
		{"unrolled", "tpuv4core", "f32[4,3,128,128]", "f32[4,128,128,3]", "{0,2,3,1}", 8},
		{"unrolled", "trn1nc", "f32[4,3,128,128]", "f32[4,128,128,3]", "{0,2,3,1}", 8},
		{"looped columns", "tpuv4core", "f32[2,3,512,512]", "f32[2,512,512,3]", "{0,2,3,1}", 200},
		{"looped columns", "trn1nc", "f32[2,3,512,512]", "f32[2,512,512,3]", "{0,2,3,1}", 200},
	} {
		t.Run(tc.name+"/"+tc.chip, func(t *testing.T) {
			src := fmt.Sprintf(`HloModule m
ENTRY e {
  a = %s parameter(0)
  ROOT t = %s transpose(a), dimensions=%s
}`, tc.shape, tc.out, tc.perm)
			x, _ := compileRunChecked(t, tc.chip, nil, src)
			n := strings.Count(x.Compiled.Asm, "xpose   ")
			require.Positive(t, n)
			require.LessOrEqual(t, n, tc.most)
			if tc.chip == "trn1nc" { // loads in pieces: the sequencer takes their tokens
				require.Contains(t, x.Compiled.Asm, "        wait    s")
			}
		})
	}
}
