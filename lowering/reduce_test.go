package lowering_test

import (
	"fmt"
	"testing"
)

const reducers = `HloModule r
add {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT s = %[1]s[] add(a, b)
}
max {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT s = %[1]s[] maximum(a, b)
}
`

// TestReduceKernels: reductions over the last, first, middle and several
// dimensions, with fused producers, broadcasts and computed init values,
// each checked against the evaluator on both chips.
func TestReduceKernels(t *testing.T) {
	cases := []struct{ name, elem, entry string }{
		{"rows", "f32", `
  x = f32[300,200] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[300] reduce(x, z), dimensions={1}, to_apply=add`},
		{"columns", "f32", `
  x = f32[300,200] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[200] reduce(x, z), dimensions={0}, to_apply=add`},
		{"middle dimension (passes over the first)", "f32", `
  x = f32[5,77,33] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[5,33] reduce(x, z), dimensions={1}, to_apply=add`},
		{"middle dimension, max", "f32", `
  x = f32[3,40,9,6] parameter(0)
  z = f32[] constant(-inf)
  ROOT r = f32[3,9,6] reduce(x, z), dimensions={1}, to_apply=max`},
		{"leading two dimensions", "f32", `
  x = f32[6,7,130] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[130] reduce(x, z), dimensions={0,1}, to_apply=add`},
		{"computed init value", "f32", `
  x = f32[8,2048] parameter(0)
  i = f32[] parameter(1)
  r = f32[8] reduce(x, i), dimensions={1}, to_apply=add
  ROOT l = f32[8] multiply(r, r)`},
		{"computed init value, columns, max", "f32", `
  x = f32[64,48] parameter(0)
  i = f32[] parameter(1)
  ROOT r = f32[48] reduce(x, i), dimensions={0}, to_apply=max`},
		{"fused producers and a broadcast row", "f32", `
  x = f32[128,96] parameter(0)
  b = f32[96] parameter(1)
  bb = f32[128,96] broadcast(b), dimensions={1}
  s = f32[128,96] subtract(x, bb)
  e = f32[128,96] exponential(s)
  z = f32[] constant(0)
  ROOT r = f32[96] reduce(e, z), dimensions={0}, to_apply=add`},
		{"first and last dimensions (split by the fusion pass)", "f32", `
  x = f32[4,5,6] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[5] reduce(x, z), dimensions={0,2}, to_apply=add`},
		{"integer columns", "s32", `
  x = s32[100,10] parameter(0)
  z = s32[] constant(0)
  ROOT r = s32[10] reduce(x, z), dimensions={0}, to_apply=add`},
	}
	for _, tc := range cases {
		src := fmt.Sprintf(reducers, tc.elem) + "ENTRY e {" + tc.entry + "\n}\n"
		for _, chip := range chips {
			t.Run(tc.name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// TestLongRowReductions: rows longer than a reduce kernel holds (4,096
// f32 elements on teach16) are cut into blocks and reduced in two steps
// (legalize.SplitReductionRuns): a divisor of the length when there is one, else
// padded with the reducer's identity (a prime length); on both chips
// against the evaluator.
func TestLongRowReductions(t *testing.T) {
	for _, src := range []string{`HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3,100000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3] reduce(x, z), dimensions={1}, to_apply=add
}`, `HloModule m
max {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] maximum(a, b)
}
ENTRY e {
  x = bf16[2,100003] parameter(0)
  z = bf16[] constant(-inf)
  ROOT r = bf16[2] reduce(x, z), dimensions={1}, to_apply=max
}`, `HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[50021,2] parameter(0)
  z = s32[] constant(7)
  ROOT r = s32[2] reduce(x, z), dimensions={0}, to_apply=add
}`} {
		for _, chip := range chips {
			runChecked(t, chip, src)
		}
	}
}
