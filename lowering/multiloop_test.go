package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMultiOutputLoopKernels: a loop fusion with extra results (values
// read outside it, hlo/fusion/multioutput.go) is one kernel that stores
// each result per tile, also when its rows are walked in passes, and
// gives the evaluator's bits on both chips; so does XLA's own
// multi-output fusion, whose results differ in shape (lowered as a
// kernel per result over its producers).
func TestMultiOutputLoopKernels(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		kernels int // on each chip
	}{
		{"threefry rounds", `HloModule r
ENTRY e {
  x = u32[64,300] parameter(0)
  y = u32[64,300] parameter(1)
  r13 = u32[] constant(13)
  r19 = u32[] constant(19)
  b13 = u32[64,300] broadcast(r13), dimensions={}
  b19 = u32[64,300] broadcast(r19), dimensions={}
  a1 = u32[64,300] add(x, y)
  l1 = u32[64,300] shift-left(y, b13)
  h1 = u32[64,300] shift-right-logical(y, b19)
  o1 = u32[64,300] or(l1, h1)
  y1 = u32[64,300] xor(a1, o1)
  a2 = u32[64,300] add(a1, y1)
  ROOT t = (u32[64,300], u32[64,300]) tuple(a2, y1)
}`, 1},
		{"adam moments and update", `HloModule adam
ENTRY e {
  w = f32[96,130] parameter(0)
  g = f32[96,130] parameter(1)
  m = f32[96,130] parameter(2)
  b1 = f32[] constant(0.9)
  b1b = f32[96,130] broadcast(b1), dimensions={}
  c1 = f32[] constant(0.1)
  c1b = f32[96,130] broadcast(c1), dimensions={}
  mm = f32[96,130] multiply(m, b1b)
  gg = f32[96,130] multiply(g, c1b)
  m2 = f32[96,130] add(mm, gg)
  lr = f32[] constant(0.01)
  lrb = f32[96,130] broadcast(lr), dimensions={}
  step = f32[96,130] multiply(m2, lrb)
  w2 = f32[96,130] subtract(w, step)
  ROOT t = (f32[96,130], f32[96,130]) tuple(w2, m2)
}`, 1},
		{"strided halves, in passes", `HloModule h
ENTRY e {
  x = f32[3,64] parameter(0)
  lo = f32[3,32] slice(x), slice={[0:3], [0:64:2]}
  hi = f32[3,32] slice(x), slice={[0:3], [1:64:2]}
  gt = pred[3,32] compare(hi, lo), direction=GT
  m = f32[3,32] select(gt, hi, lo)
  n = f32[3,32] negate(m)
  ROOT t = (f32[3,32], f32[3,32]) tuple(n, m)
}`, 1},
		{"results of two shapes", `HloModule s
f {
  a = f32[8,16] parameter(0)
  e = f32[8,16] exponential(a)
  s = f32[8,16] slice(e), slice={[0:8], [0:16]}
  r = f32[16,8] transpose(e), dimensions={1,0}
  ROOT t = (f32[8,16], f32[16,8]) tuple(s, r)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  ROOT y = (f32[8,16], f32[16,8]) fusion(x), kind=kLoop, calls=f
}`, 4}, // per result: the exponential the slice or transpose reads, then the result
	}
	for _, tc := range cases {
		for _, chip := range chips {
			t.Run(tc.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, tc.src)
				require.Empty(t, x.Unfused)
				require.Len(t, x.Kernels, tc.kernels, "%v", x.Kernels)
			})
		}
	}
}
