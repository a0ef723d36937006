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
