package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTransposeNarrowColumns: a transpose of few columns ([P, 8] -> [8, P],
// a swapped decode GEMV's result) takes tall tiles, up to 512x512 elements
// (one tile for [4096, 8], not eight), and where the tiles make one column
// the two buffer sets alternate down the rows (an even and an odd count of
// row tiles); the values are the evaluator's with the race detector
// watching.
func TestTransposeNarrowColumns(t *testing.T) {
	for _, tc := range []struct {
		chip   string
		P      int
		xposes int // xpose instructions in the program
	}{
		{"tpuv4core", 4096, 1},
		{"trn1nc", 4096, 1},
		{"tpuv4core", 65536, 2}, // two row tiles of 32768: sets 0 and 1
		{"trn1nc", 98304, 3},    // three: a pair, then one
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.chip, tc.P), func(t *testing.T) {
			src := fmt.Sprintf(`HloModule m
ENTRY e {
  a = bf16[%d,8] parameter(0)
  ROOT t = bf16[8,%d] transpose(a), dimensions={1,0}
}`, tc.P, tc.P)
			x, _ := compileRunChecked(t, tc.chip, nil, src)
			require.Equal(t, tc.xposes, strings.Count(x.Compiled.Asm, "xpose   "), "tiles of %d rows", min(tc.P, 32768))
		})
	}
}
