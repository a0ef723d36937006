package lowering_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScatterInSRAM: a combining scatter whose operand and updates fit
// SRAM combines there (one load of each, a vector op a window, one store);
// one whose operand does not (teach16's 256 KiB) reads, combines and
// writes each window through HBM. Repeated indices combine in index order
// and out-of-range windows are skipped either way; the values are the
// evaluator's with the race detector watching.
func TestScatterInSRAM(t *testing.T) {
	src := `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  c = f32[1000,64] parameter(0)
  i = s32[128,1] parameter(1)
  u = f32[128,64] parameter(2)
  ROOT s = f32[1000,64] scatter(c, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}`
	for _, tc := range []struct {
		chip      string
		inSRAM    bool
		maxCycles int64
	}{
		{"tpuv4core", true, 4000}, // through HBM: 41,000
		{"trn1nc", true, 0},
		{"teach16", false, 0}, // 256 KB of operand, 256 KiB of SRAM
	} {
		t.Run(tc.chip, func(t *testing.T) {
			x, r := compileRunChecked(t, tc.chip, nil, src)
			require.Equal(t, tc.inSRAM, strings.Contains(x.Compiled.Asm, "vadd    sram[r3+"), "combined in SRAM")
			if tc.maxCycles > 0 {
				require.Less(t, r.Report.Cycles, tc.maxCycles)
			}
		})
	}
}
