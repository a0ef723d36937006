package lowering_test

import "testing"

// TestGeneralReduceWindowsOnChips: reduce-windows whose reducer is no one
// vector op, of one operand or several together (legalize.ExpandReduceWindows'
// general fold, padding masked out), on both chips against the evaluator.
func TestGeneralReduceWindowsOnChips(t *testing.T) {
	const comps = `HloModule m
argmax {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  x0 = f32[] parameter(2)
  x1 = s32[] parameter(3)
  gt = pred[] compare(x0, a0), direction=GT
  m = f32[] select(gt, x0, a0)
  n = s32[] select(gt, x1, a1)
  ROOT t = (f32[], s32[]) tuple(m, n)
}
decay {
  a = f32[] parameter(0)
  x = f32[] parameter(1)
  h = f32[] constant(0.5)
  d = f32[] multiply(a, h)
  ROOT s = f32[] add(d, x)
}
`
	cases := map[string]string{
		"argmax pooling 3x3 stride 2, padded, both results": comps + `ENTRY e {
  v = f32[2,9,9] parameter(0)
  i = s32[2,9,9] iota(), iota_dimension=2
  lo = f32[] constant(-inf)
  z = s32[] constant(-1)
  ROOT r = (f32[2,5,5], s32[2,5,5]) reduce-window(v, i, lo, z), window={size=1x3x3 stride=1x2x2 pad=0_0x1_1x1_1}, to_apply=argmax
}`,
		"a running decay over 8 positions": comps + `ENTRY e {
  x = f32[3,40] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3,40] reduce-window(x, z), window={size=1x8 pad=0_0x7_0}, to_apply=decay
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}
