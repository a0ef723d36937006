package lowering_test

import (
	"fmt"
	"testing"
)

// TestSelectAndScatterOnChips: the gradients of max and min pooling
// (legalize.ExpandSelectAndScatters) on both chips against the evaluator:
// non-overlapping and overlapping windows, padding, NHWC and NCHW, float
// and integer types.
func TestSelectAndScatterOnChips(t *testing.T) {
	comps := func(elem, dir string) string {
		return fmt.Sprintf(`sel {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=%[2]s
}
add {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT r = %[1]s[] add(a, b)
}
`, elem, dir)
	}
	cases := map[string]string{
		"max pool 2x2 stride 2 gradient, NHWC": comps("f32", "GE") + `ENTRY e {
  x = f32[2,8,8,5] parameter(0)
  g = f32[2,4,4,5] parameter(1)
  z = f32[] constant(0)
  ROOT o = f32[2,8,8,5] select-and-scatter(x, g, z), window={size=1x2x2x1 stride=1x2x2x1}, select=sel, scatter=add
}`,
		"max pool 3x3 stride 2 padded, overlapping, NCHW": comps("f32", "GE") + `ENTRY e {
  x = f32[1,3,9,9] parameter(0)
  g = f32[1,3,5,5] parameter(1)
  z = f32[] constant(0)
  ROOT o = f32[1,3,9,9] select-and-scatter(x, g, z), window={size=1x1x3x3 stride=1x1x2x2 pad=0_0x0_0x1_1x1_1}, select=sel, scatter=add
}`,
		"min pool bf16": comps("bf16", "LE") + `ENTRY e {
  x = bf16[6,10] parameter(0)
  g = bf16[3,5] parameter(1)
  z = bf16[] constant(0)
  ROOT o = bf16[6,10] select-and-scatter(x, g, z), window={size=2x2 stride=2x2}, select=sel, scatter=add
}`,
		"s32, stride 1": comps("s32", "GT") + `ENTRY e {
  x = s32[7,6] parameter(0)
  g = s32[6,4] parameter(1)
  z = s32[] constant(3)
  ROOT o = s32[7,6] select-and-scatter(x, g, z), window={size=2x3 stride=1x1}, select=sel, scatter=add
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, "HloModule m\n"+src) })
		}
	}
}
