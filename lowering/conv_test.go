package lowering_test

import (
	"fmt"
	"testing"
)

// TestConvolutionKernels: convolutions expand into transposes, pads,
// slices, dots and vector multiply-adds (legalize.ExpandConvolutions) that run
// on both chips and match the evaluator.
func TestConvolutionKernels(t *testing.T) {
	cases := map[string]string{
		"nhwc 3x3 with bias and relu": `ENTRY e {
  x = f32[2,12,12,8] parameter(0)
  w = f32[3,3,8,16] parameter(1)
  b = f32[16] parameter(2)
  c = f32[2,12,12,16] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,12,12,16] broadcast(b), dimensions={3}
  a = f32[2,12,12,16] add(c, bb)
  z = f32[] constant(0)
  zb = f32[2,12,12,16] broadcast(z), dimensions={}
  ROOT r = f32[2,12,12,16] maximum(a, zb)
}`,
		"nchw 1x1":                  convSrc("f32[2,24,10,10]", "f32[40,24,1,1]", "f32[2,40,10,10]", "window={size=1x1}, dim_labels=bf01_oi01->bf01"),
		"nchw stride 2":             convSrc("f32[2,3,17,17]", "f32[8,3,3,3]", "f32[2,8,9,9]", "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"),
		"depthwise stride 2":        convSrc("f32[2,24,12,12]", "f32[24,1,3,3]", "f32[2,24,6,6]", "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=24"),
		"depthwise input gradient":  convSrc("f32[2,6,5,5]", "f32[3,3,6,1]", "f32[2,6,10,10]", "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=bf01_01oi->bf01, feature_group_count=6"),
		"weight gradient":           convSrc("f32[4,6,9,9]", "f32[4,10,9,9]", "f32[3,3,6,10]", "window={size=9x9 pad=1_1x1_1}, dim_labels=fb01_io01->01bf"),
		"depthwise weight gradient": convSrc("f32[4,6,8,8]", "f32[4,6,8,8]", "f32[3,3,1,6]", "window={size=8x8 pad=1_1x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=6"),
		"bf16 nhwc into f32":        convSrc("bf16[1,9,9,32]", "bf16[3,3,32,48]", "f32[1,7,7,48]", "window={size=3x3}, dim_labels=b01f_01io->b01f"),
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// convSrc is a module of one convolution of parameters a and b.
func convSrc(lhs, rhs, out, attrs string) string {
	return fmt.Sprintf("ENTRY e {\n  a = %s parameter(0)\n  b = %s parameter(1)\n  ROOT c = %s convolution(a, b), %s\n}\n", lhs, rhs, out, attrs)
}
