package legalize_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/lowering/legalize"
)

// TestPlaneCorrelations: a depthwise weight gradient over NCHW activations
// becomes one convolution per image plane (which PlaneCorrelationOf
// describes, with the geometry the lowering's kernel reads), a sum over
// the images and a transpose, and evaluates as the original does; forms
// the kernel does not take are expanded whole.
func TestPlaneCorrelations(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		plane      bool
		want       legalize.PlaneGeometry
	}{
		{"3x3 same", convModule("f32[4,3,6,6]", "f32[4,3,6,6]", "f32[3,3,1,3]", "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=3"),
			true, legalize.PlaneGeometry{R: 12, X: [2]int64{6, 6}, Dy: [2]int64{6, 6}, P: [2]int64{3, 3}, PadLo: [2]int64{1, 1}, Dil: [2]int64{1, 1}}},
		{"stride 2 forward", convModule("f32[2,3,8,8]", "f32[2,3,4,4]", "f32[3,3,1,3]", "window={size=4x4 pad=1_0x1_0 rhs_dilate=2x2}, dim_labels=fb01_io01->01bf, batch_group_count=3"),
			true, legalize.PlaneGeometry{R: 6, X: [2]int64{8, 8}, Dy: [2]int64{4, 4}, P: [2]int64{3, 3}, PadLo: [2]int64{1, 1}, Dil: [2]int64{2, 2}}},
		{"5x3 kernel, result kept NCHW-like", convModule("f32[3,5,7,6]", "f32[3,5,7,6]", "f32[1,5,5,3]", "window={size=7x6 pad=2_2x1_1}, dim_labels=fb01_io01->bf01, batch_group_count=5"),
			true, legalize.PlaneGeometry{R: 15, X: [2]int64{7, 6}, Dy: [2]int64{7, 6}, P: [2]int64{5, 3}, PadLo: [2]int64{2, 1}, Dil: [2]int64{1, 1}}},
		{"bf16 keeps the canonical form", convModule("bf16[4,3,6,6]", "bf16[4,3,6,6]", "bf16[3,3,1,3]", "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=3"),
			false, legalize.PlaneGeometry{}},
		{"NHWC keeps the canonical form", convModule("f32[4,6,6,3]", "f32[4,6,6,3]", "f32[3,3,1,3]", "window={size=6x6 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=3"),
			false, legalize.PlaneGeometry{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, again := reparsed(t, tc.name, tc.text, legalize.ExpandConvolutions)
			var convs []*hlo.Instruction
			shapes := map[string]*hlo.Shape{}
			for _, in := range again.Entry.Instructions {
				shapes[in.Name] = in.Shape
				if in.Opcode == hlo.OpConvolution {
					convs = append(convs, in)
				}
			}
			if !tc.plane {
				require.Empty(t, convs, again.String())
				return
			}
			require.Len(t, convs, 1, again.String())
			c := convs[0]
			g, ok := legalize.PlaneCorrelationOf(c, shapes[c.Operands[0].Name], shapes[c.Operands[1].Name])
			require.True(t, ok, c.String())
			require.Equal(t, tc.want, g)
			args, err := eval.RandomArgs(m, 3)
			require.NoError(t, err)
			want, err := (&eval.Evaluator{File: tc.name, M: m}).Run(args)
			require.NoError(t, err)
			got, err := (&eval.Evaluator{File: tc.name, M: again}).Run(args)
			require.NoError(t, err)
			evaltest.RequireClose(t, tc.name, want, got)

			// A kernel that takes no geometry: the canonical form.
			y := m.Clone()
			require.NoError(t, legalize.ExpandConvolutionsFor(func(legalize.PlaneGeometry) bool { return false })(y))
			require.NotContains(t, y.String(), "convolution(")
		})
	}
}
