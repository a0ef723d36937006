package lowering_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/stretchr/testify/require"
)

// TestRowBlockLoopSegments: a dot whose output is beyond what a register
// offset reaches runs its row blocks as several loops, each as long as the
// offsets reach (a [262144x16x6144] dot, 6 GiB of output, was 104,459
// instructions unrolled, now 1,661): with the reach lowered to a few row
// blocks, the segments compute the evaluator's numbers on both chips.
func TestRowBlockLoopSegments(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  a = bf16[65536,16] parameter(0)
  b = bf16[16,64] parameter(1)
  ROOT d = f32[65536,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	for chip, reach := range map[string]int64{"teach16": 1 << 20, "tpuv4core": 4 << 20} {
		defer lowering.SetRegisterReach(reach)()
		r := runChecked(t, chip, src)
		require.NotNil(t, r)
		m, err := hlo.Parse("t.hlo", src)
		require.NoError(t, err)
		c, err := config.Load(chip, nil)
		require.NoError(t, err)
		x, err := lowering.Compile("t.hlo", m, c)
		require.NoError(t, err)
		require.GreaterOrEqual(t, strings.Count(x.Asm, "_mloop:"), 2, "%s: several row-block loops", chip)
	}
}

// TestColumnLoopStoreWaits: the epilogue a column-group loop's first group
// emits is, in the first iteration, that of the group before the loop (the
// second of its row block, or one after a partial group) and in later ones
// that of a full group: its wait for the stores out of its buffers must
// count a full group's in every iteration. Counting the first iteration's
// let the second row block's epilogues overwrite buffers still being
// stored (BERT's LM head, [2048x16]x[16x30522], 5% off); the race
// detector runChecked runs with sees it for 12,000 columns.
func TestColumnLoopStoreWaits(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  a = f32[2048,16] parameter(0)
  b = f32[16,12000] parameter(1)
  ROOT d = f32[2048,12000] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	x, _ := compileRunChecked(t, "tpuv4core", nil, src)
	require.Contains(t, x.Compiled.Asm, "_nloop:", "the column groups run as a loop")
}
