package lowering_test

import "testing"

// A constant whose values the text elides ("{...}") is zeros, as the
// evaluator reads it, on the chip too: it was placed in a reused span of
// HBM and read its earlier owner's values (a convolution of an elided
// input: wrong numbers, silently, before --check).
func TestElidedConstantIsZeros(t *testing.T) {
	src := `HloModule elided
ENTRY e {
  k = f32[3,3,2,3] parameter(0)
  x = f32[2,2,2,2] constant({...})
  r = f32[3,3,2,3] reverse(k), dimensions={0,1}
  ROOT c = f32[2,4,4,3] convolution(x, r), window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f
}`
	for _, chip := range []string{"teach16", "tpuv4core"} {
		runChecked(t, chip, src)
	}
}
