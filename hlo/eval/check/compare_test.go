package check

import (
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/stretchr/testify/require"
)

func TestCompareTolerances(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name       string
		elem       string
		got, want  []float64
		mismatches int
	}{
		{"equal", "f32", []float64{1, 2}, []float64{1, 2}, 0},
		{"a few ulps relative", "f32", []float64{1000.01}, []float64{1000}, 0},
		{"beyond relative", "f32", []float64{1000.1}, []float64{1000}, 1},
		// -4.8897 vs -4.88944: 2.6e-4 off, beyond 2e-5*4.9 (relative) +
		// 2e-5*4.9 (absolute, the output's largest magnitude), but within
		// it when the output's largest element is 40 (absolute 8e-4).
		{"cancellation inside a large output", "f32", []float64{-4.8897, 40}, []float64{-4.88944, 40}, 0},
		{"the same error in a small output", "f32", []float64{-4.8897, 1}, []float64{-4.88944, 1}, 1},
		{"infinities do not scale the bound", "f32", []float64{0.001, inf}, []float64{0, inf}, 1},
		{"NaN meets NaN only", "f32", []float64{nan, 1}, []float64{nan, nan}, 1},
		{"infinity meets the same infinity", "f32", []float64{inf, -inf}, []float64{inf, inf}, 1},
		{"bf16 two ulps", "bf16", []float64{1.03125}, []float64{1}, 0},
		{"integers exact", "s32", []float64{3, 4}, []float64{3, 5}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(&eval.Value{Shape: &hlo.Shape{Elem: tc.elem}, Data: tc.got}, &eval.Value{Shape: &hlo.Shape{Elem: tc.elem}, Data: tc.want})
			require.Equal(t, tc.mismatches, d.Mismatches)
		})
	}
}
