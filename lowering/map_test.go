package lowering_test

import "testing"

// TestMapOnChips: maps (legalize.ExpandMaps) compute their function's scalar
// ops over the arrays, constants and type changes included.
func TestMapOnChips(t *testing.T) {
	src := `f {
  a = bf16[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] convert(a)
  h = f32[] constant(0.5)
  m = f32[] multiply(c, h)
  ROOT r = f32[] maximum(m, b)
}
g {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
ENTRY e {
  p = bf16[5,33] parameter(0)
  q = f32[5,33] parameter(1)
  r = f32[5,33] map(p, q), dimensions={0,1}, to_apply=f
  ROOT s = f32[5,33] map(r), dimensions={0,1}, to_apply=g
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}
