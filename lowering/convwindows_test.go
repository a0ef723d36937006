package lowering_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/stretchr/testify/require"
)

// TestConvolutionWindowsInPlace: a stride-one convolution runs as one dot
// kernel over its windows, read in place from the padded input
// (legalize's flatGrid, dotwindows.go): values as the evaluator's, no
// race, and no kernel that copies the windows out (an im2col nine times
// the input's size) or sums one product per kernel position.
func TestConvolutionWindowsInPlace(t *testing.T) {
	cases := []struct{ name, src string }{
		// Three runs of windows (one per kernel row), K tiles of 96.
		{"nhwc 3x3", convSrc("f32[4,16,16,32]", "f32[3,3,32,32]", "f32[4,16,16,32]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f")},
		// Runs of 192 columns: K tiles of 96, two a run.
		{"nhwc 3x3 64 features", convSrc("f32[2,10,10,64]", "f32[3,3,64,24]", "f32[2,10,10,24]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f")},
		// A dilated causal 1-D convolution: taps apart, a run each.
		{"dilated causal 1-d", convSrc("f32[2,64,16]", "f32[3,16,32]", "f32[2,64,32]", "window={size=3 pad=4_0 rhs_dilate=2}, dim_labels=b0f_0io->b0f")},
		// Weight gradients as JAX emits them for NHWC: the windows are
		// the rhs, along the output's columns.
		{"nhwc weight gradient", convSrc("f32[4,16,16,32]", "f32[4,16,16,32]", "f32[3,3,32,32]", "window={size=16x16 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf")},
		{"1-d weight gradient", convSrc("f32[2,40,16]", "f32[2,36,24]", "f32[5,16,24]", "window={size=36}, dim_labels=f0b_i0o->0bf")},
		{"bf16 valid", convSrc("bf16[2,16,16,32]", "bf16[3,3,32,48]", "bf16[2,14,14,48]", "window={size=3x3}, dim_labels=b01f_01io->b01f")},
	}
	for _, c := range cases {
		for _, chip := range chips {
			t.Run(c.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, c.src)
				m, err := hlo.Parse("t.hlo", c.src)
				require.NoError(t, err)
				var most int64 // the largest operand or result
				for _, in := range m.Entry.Instructions {
					most = max(most, in.Shape.Bytes())
				}
				dots := 0
				for _, k := range x.Compiled.Kernels {
					switch k.Kind {
					case "output":
						dots++
					case "copy":
						// Pads and the result's transpose: no windows
						// copied out (an im2col moves taps x the input).
						require.LessOrEqual(t, k.Bytes, 3*most, "kernel %s copies", k.Name)
					}
				}
				require.Equal(t, 1, dots, "one dot kernel for every kernel position")
			})
		}
	}
}

// TestNCHWPointwiseConvolution: a 1x1 convolution in NCHW (and its input
// gradient, weights 01oi) is one batched dot of the weights, read in
// place for every image, with the input's channels: no transpose into
// NHWC and back (legalize's nchwPointwise, fusion's OperandBroadcast).
func TestNCHWPointwiseConvolution(t *testing.T) {
	cases := map[string]string{
		"forward":        convSrc("f32[4,16,12,12]", "f32[24,16,1,1]", "f32[4,24,12,12]", "window={size=1x1}, dim_labels=bf01_oi01->bf01"),
		"input gradient": convSrc("f32[4,24,12,12]", "f32[1,1,16,24]", "f32[4,16,12,12]", "window={size=1x1}, dim_labels=bf01_01oi->bf01"),
		"bf16":           convSrc("bf16[3,32,7,7]", "bf16[48,32,1,1]", "bf16[3,48,7,7]", "window={size=1x1}, dim_labels=bf01_oi01->bf01"),
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, src)
				var kinds []string
				for _, k := range x.Compiled.Kernels {
					kinds = append(kinds, k.Kind)
				}
				require.NotContains(t, kinds, "copy", "no transpose: %v", kinds)
				require.Contains(t, kinds, "output")
			})
		}
	}
}

// TestStridedConvolutionSpaceToDepth: a strided convolution is regrouped
// by space-to-depth into a stride-one one on the flattened grid (legalize
// spaceToDepth): one dot kernel, no strided slice per kernel position.
func TestStridedConvolutionSpaceToDepth(t *testing.T) {
	cases := map[string]string{
		"nhwc 3x3 stride 2":       convSrc("f32[2,16,16,32]", "f32[3,3,32,48]", "f32[2,8,8,48]", "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
		"nchw stem 3 features":    convSrc("f32[2,3,32,32]", "f32[16,3,3,3]", "f32[2,16,16,16]", "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"),
		"1-d stride 3 asymmetric": convSrc("f32[3,30,8]", "f32[4,8,5]", "f32[3,10,5]", "window={size=4 stride=3 pad=2_0}, dim_labels=b0f_0io->b0f"),
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, src)
				dots := 0
				for _, k := range x.Compiled.Kernels {
					if k.Kind == "output" {
						dots++
					}
				}
				require.Equal(t, 1, dots, "one dot for every kernel position")
			})
		}
	}
}
