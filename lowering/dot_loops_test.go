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
