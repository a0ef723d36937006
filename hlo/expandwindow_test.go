package hlo

import "testing"

// TestExpandReduceWindows: pooling, padded and dilated windows and short
// cumulative sums expand into pads, slices and elementwise folds that
// evaluate as the evaluator's reduce-window does.
func TestExpandReduceWindows(t *testing.T) {
	const reducers = `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
`
	cases := map[string]string{
		"max pool 3x3 stride 2, padded": reducers + `ENTRY e {
  x = f32[2,9,9,4] parameter(0)
  i = f32[] constant(-inf)
  ROOT r = f32[2,5,5,4] reduce-window(x, i), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
}`,
		"average-pool sum 2x2": reducers + `ENTRY e {
  x = f32[3,8,6] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3,4,3] reduce-window(x, z), window={size=1x2x2 stride=1x2x2}, to_apply=add
}`,
		"shifted window with one-sided padding (the corpus's)": reducers + `ENTRY e {
  x = f32[5,30,31] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[5,30,31] reduce-window(x, z), window={size=1x2x3 pad=0_0x0_1x1_1}, to_apply=add
}`,
		"window dilation and base dilation": reducers + `ENTRY e {
  x = f32[10,7] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[10,11] reduce-window(x, z), window={size=2x3 pad=0_1x1_1 rhs_dilate=1x2 lhs_dilate=1x2}, to_apply=add
}`,
		"cumulative sum over 4": reducers + `ENTRY e {
  x = f32[16] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[16] reduce-window(x, z), window={size=4 pad=3_0}, to_apply=add
}`,
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) { checkExpanded(t, name, text, ExpandReduceWindows) })
	}
}
