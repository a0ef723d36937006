package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/lowering"
	"github.com/stretchr/testify/require"
)

// A loop that accumulates rows of x into a running sum with dynamic
// slices, swaps two loop values every iteration (the carry must read both
// before writing either) and counts to n.
const swapLoop = `HloModule loop
cond {
  p = (s32[], f32[6,32], f32[32], f32[32]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(%d)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[6,32], f32[32], f32[32]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[6,32] get-tuple-element(p), index=1
  a = f32[32] get-tuple-element(p), index=2
  b = f32[32] get-tuple-element(p), index=3
  z = s32[] constant(0)
  row = f32[1,32] dynamic-slice(x, i, z), dynamic_slice_sizes={1,32}
  r = f32[32] reshape(row)
  s = f32[32] add(a, r)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[6,32], f32[32], f32[32]) tuple(j, x, b, s)
}
ENTRY e {
  x = f32[6,32] parameter(0)
  a = f32[32] parameter(1)
  b = f32[32] parameter(2)
  z = s32[] constant(0)
  t = (s32[], f32[6,32], f32[32], f32[32]) tuple(z, x, a, b)
  w = (s32[], f32[6,32], f32[32], f32[32]) while(t), condition=cond, body=body, backend_config={"known_trip_count":{"n":"%d"}}
  a2 = f32[32] get-tuple-element(w), index=2
  b2 = f32[32] get-tuple-element(w), index=3
  ROOT r = (f32[32], f32[32]) tuple(a2, b2)
}
`

// TestWhileLoops: loops run their body once per iteration (zero times when
// the condition is false at once; the index clamps past the last row).
func TestWhileLoops(t *testing.T) {
	for _, n := range []int{0, 1, 5, 9} {
		for _, chip := range chips {
			t.Run(fmt.Sprintf("%d iterations/%s", n, chip), func(t *testing.T) {
				r := runChecked(t, chip, fmt.Sprintf(swapLoop, n, n))
				for _, k := range r.Kernels {
					switch {
					case strings.HasPrefix(k.Name, "w/body/"), k.Name == "w/loop-carry", k.Name == "w/loop-carry-save":
						require.EqualValues(t, n, k.Runs, k.Name)
					case strings.HasPrefix(k.Name, "w/cond/"):
						require.EqualValues(t, n+1, k.Runs, k.Name)
					}
				}
			})
		}
	}
}

func TestConditionals(t *testing.T) {
	indexed := `HloModule c
neg {
  p = f32[40] parameter(0)
  ROOT n = f32[40] negate(p)
}
dbl {
  p = f32[40] parameter(0)
  ROOT d = f32[40] add(p, p)
}
fl {
  p = (f32[40], f32[40]) parameter(0)
  a = f32[40] get-tuple-element(p), index=0
  b = f32[40] get-tuple-element(p), index=1
  ROOT m = f32[40] multiply(a, b)
}
ENTRY e {
  x = f32[40] parameter(0)
  y = f32[40] parameter(1)
  i = s32[] constant(%d)
  t = (f32[40], f32[40]) tuple(x, y)
  ROOT c = f32[40] conditional(i, x, y, t), branch_computations={neg, dbl, fl}
}
`
	for _, i := range []int{0, 1, 2, 7, -1} {
		for _, chip := range chips {
			t.Run(fmt.Sprintf("index %d/%s", i, chip), func(t *testing.T) { runChecked(t, chip, fmt.Sprintf(indexed, i)) })
		}
	}
	for _, k := range []string{"true", "false"} {
		src := fmt.Sprintf(`HloModule c
yes {
  p = (f32[8,8], f32[8,8]) parameter(0)
  a = f32[8,8] get-tuple-element(p), index=0
  b = f32[8,8] get-tuple-element(p), index=1
  s = f32[8,8] subtract(a, b)
  ROOT t = (f32[8,8], f32[8,8]) tuple(b, s)
}
no {
  ROOT p = (f32[8,8], f32[8,8]) parameter(0)
}
ENTRY e {
  x = f32[8,8] parameter(0)
  y = f32[8,8] parameter(1)
  k = pred[] constant(%s)
  t = (f32[8,8], f32[8,8]) tuple(x, y)
  ROOT c = (f32[8,8], f32[8,8]) conditional(k, t, t), true_computation=yes, false_computation=no
}
`, k)
		for _, chip := range chips {
			t.Run("pred "+k+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// TestDynamicSlicesOfHugeArrays: beyond a register's reach the leading
// index selects one of a table of DMAs (reach lowered here to 512 bytes so
// that a small array takes that path).
func TestDynamicSlicesOfHugeArrays(t *testing.T) {
	defer lowering.SetRegisterReach(512)()
	for _, at := range [][2]int{{0, 0}, {3, 5}, {-4, 2}, {9, 99}} {
		src := fmt.Sprintf(`ENTRY e {
  x = f32[10,2,24] parameter(0)
  u = f32[1,2,16] parameter(1)
  i = s32[] constant(%d)
  j = s32[] constant(%d)
  z = s32[] constant(0)
  s = f32[1,2,16] dynamic-slice(x, i, z, j), dynamic_slice_sizes={1,2,16}
  v = f32[10,2,24] dynamic-update-slice(x, u, i, z, j)
  ROOT r = (f32[1,2,16], f32[10,2,24]) tuple(s, v)
}`, at[0], at[1])
		for _, chip := range chips {
			t.Run(fmt.Sprintf("at %v/%s", at, chip), func(t *testing.T) {
				require.Contains(t, compileFor(t, chip, src).Asm, "_case1:")
				runChecked(t, chip, src)
			})
		}
	}
}

// TestDynamicSlices: start indices clamp so the window stays inside.
func TestDynamicSlices(t *testing.T) {
	for _, at := range [][2]int{{0, 0}, {3, 5}, {-4, 2}, {9, 99}} {
		src := fmt.Sprintf(`ENTRY e {
  x = f32[10,24] parameter(0)
  u = f32[4,16] parameter(1)
  i = s32[] constant(%d)
  j = s32[] constant(%d)
  s = f32[4,16] dynamic-slice(x, i, j), dynamic_slice_sizes={4,16}
  v = f32[10,24] dynamic-update-slice(x, u, i, j)
  ROOT r = (f32[4,16], f32[10,24]) tuple(s, v)
}`, at[0], at[1])
		for _, chip := range chips {
			t.Run(fmt.Sprintf("at %v/%s", at, chip), func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}
