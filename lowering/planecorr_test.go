package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/lowering"
)

// TestPlaneCorrelation: a depthwise convolution's weight gradient over
// NCHW activations runs as the plane-correlation kernel (planecorr.go):
// values as the evaluator's, with no race, whether the walk has a steady
// loop, a partial last tile or fewer tiles than its lookahead, on chips
// with vector registers (dy in registers or not) and without, and on two
// cores.
func TestPlaneCorrelation(t *testing.T) {
	cases := []struct{ name, lhs, rhs, out, attrs string }{
		{"3x3 same, a steady loop", "f32[8,16,12,12]", "f32[8,16,12,12]", "f32[3,3,1,16]",
			"window={size=12x12 pad=1_1x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=16"},
		{"stride 2 forward, a partial last tile", "f32[3,7,10,10]", "f32[3,7,5,5]", "f32[3,3,1,7]",
			"window={size=5x5 pad=1_0x1_0 rhs_dilate=2x2}, dim_labels=fb01_io01->01bf, batch_group_count=7"},
		{"two planes", "f32[1,2,9,9]", "f32[1,2,9,9]", "f32[3,3,1,2]",
			"window={size=9x9 pad=1_1x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=2"},
		{"5x3 kernel, asymmetric padding", "f32[2,5,7,6]", "f32[2,5,7,6]", "f32[5,3,1,5]",
			"window={size=7x6 pad=2_2x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=5"},
	}
	for _, c := range cases {
		for _, chip := range []string{"teach16", "tpuv4core", "trn1nc", "tpuv4"} {
			t.Run(c.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, convSrc(c.lhs, c.rhs, c.out, c.attrs))
				require.Contains(t, x.Compiled.Asm, "kernel positions", "the plane-correlation kernel")
			})
		}
	}
}

// TestPlaneCorrelationBeyondReach: arrays a scalar register cannot walk
// from their base keep the canonical form (the kernel's walk is one
// segment), with the same values.
func TestPlaneCorrelationBeyondReach(t *testing.T) {
	defer lowering.SetRegisterReach(16 << 10)()
	src := convSrc("f32[8,16,12,12]", "f32[8,16,12,12]", "f32[3,3,1,16]",
		"window={size=12x12 pad=1_1x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=16")
	x, _ := compileRunChecked(t, "tpuv4core", nil, src)
	require.NotContains(t, x.Compiled.Asm, "kernel positions")
}
