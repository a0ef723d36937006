package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDepthwiseInLayout: depthwise convolutions whose features are not
// the result's minor dim run in their own layout, without transposes
// (legalize's depthwiseInLayout), their windows read from one load of
// their hull (windowhull.go) whatever the stride, dilation, padding and
// kernel size: values as the evaluator's on both chips, with no race.
func TestDepthwiseInLayout(t *testing.T) {
	cases := []struct{ name, lhs, rhs, out, attrs string }{
		{"3x3 stride (2,1) asymmetric padding", "f32[2,8,15,13]", "f32[8,1,3,3]", "f32[2,8,8,13]",
			"window={size=3x3 stride=2x1 pad=1_2x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=8"},
		{"5x5 stride 2", "f32[3,6,17,17]", "f32[6,1,5,5]", "f32[3,6,8,8]",
			"window={size=5x5 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=6"},
		{"3x3 rhs dilation 2", "f32[2,5,12,12]", "f32[5,1,3,3]", "f32[2,5,12,12]",
			"window={size=3x3 pad=2_2x2_2 rhs_dilate=2x2}, dim_labels=bf01_oi01->bf01, feature_group_count=5"},
		{"reversed kernel (an input gradient's)", "f32[2,7,10,10]", "f32[3,3,7,1]", "f32[2,7,10,10]",
			"window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1}, dim_labels=bf01_01oi->bf01, feature_group_count=7"},
		{"1-d, features first", "f32[4,9,40]", "f32[9,1,7]", "f32[4,9,40]",
			"window={size=7 pad=3_3}, dim_labels=bf0_oi0->bf0, feature_group_count=9"},
		{"no padding, 1x3", "f32[2,4,6,20]", "f32[4,1,1,3]", "f32[2,4,6,18]",
			"window={size=1x3}, dim_labels=bf01_oi01->bf01, feature_group_count=4"},
		{"bf16 3x3 stride 2", "bf16[2,16,14,14]", "bf16[16,1,3,3]", "bf16[2,16,7,7]",
			"window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=16"},
	}
	for _, c := range cases {
		for _, chip := range chips {
			t.Run(c.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, convSrc(c.lhs, c.rhs, c.out, c.attrs))
				require.NotContains(t, x.Compiled.Asm, "transpose", "no transpose in or out")
			})
		}
	}
}
