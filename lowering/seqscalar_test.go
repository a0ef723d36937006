package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSequencerScalars: integer scalars a loop fusion computes and
// broadcasts (Threefry's rotation amounts from an unstacked key, 32 - r;
// a mask's bound) are computed by the sequencer inside the loop kernel,
// which is then the fusion's only kernel; a float scalar, and a scalar
// whose slice the fusion also reads as an array, keep their own kernels.
// The values are the evaluator's, races watched.
func TestSequencerScalars(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		kernels   int
	}{
		{"a rotation", `HloModule m
ENTRY e {
  k = u32[4] parameter(0)
  x = u32[8,128] parameter(1)
  s = u32[1] slice(k), slice={[1:2]}
  r = u32[] reshape(s)
  c = u32[] constant(32)
  d = u32[] subtract(c, r)
  b1 = u32[8,128] broadcast(r), dimensions={}
  b2 = u32[8,128] broadcast(d), dimensions={}
  l = u32[8,128] shift-left(x, b1)
  rr = u32[8,128] shift-right-logical(x, b2)
  ROOT o = u32[8,128] or(l, rr)
}`, 1},
		{"a mask's bound", `HloModule m
ENTRY e {
  p = s32[] parameter(0)
  x = f32[4,64] parameter(1)
  k = s32[] constant(32)
  a = s32[] add(p, k)
  z = s32[] constant(0)
  neg = pred[] compare(a, z), direction=LT
  n = s32[] constant(64)
  w = s32[] add(a, n)
  i = s32[] select(neg, w, a)
  io = s32[4,64] iota(), iota_dimension=1
  ib = s32[4,64] broadcast(i), dimensions={}
  m = pred[4,64] compare(io, ib), direction=LE
  f = f32[] constant(-1e9)
  fb = f32[4,64] broadcast(f), dimensions={}
  ROOT o = f32[4,64] select(m, x, fb)
}`, 1},
		{"a parameter broadcast as it is and computed from", `HloModule m
ENTRY e {
  p = u32[] parameter(0)
  x = u32[8,128] parameter(1)
  k = u32[] constant(7)
  q = u32[] add(p, k)
  pb = u32[8,128] broadcast(p), dimensions={}
  qb = u32[8,128] broadcast(q), dimensions={}
  a = u32[8,128] add(x, pb)
  ROOT o = u32[8,128] xor(a, qb)
}`, 1},
		{"a float scalar", `HloModule m
ENTRY e {
  p = f32[] parameter(0)
  x = f32[4,64] parameter(1)
  h = f32[] constant(0.5)
  q = f32[] multiply(p, h)
  qb = f32[4,64] broadcast(q), dimensions={}
  ROOT o = f32[4,64] add(x, qb)
}`, 2},
	} {
		for _, chip := range []string{"teach16", "tpuv4core", "trn1nc", "tpuv4"} {
			t.Run(tc.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, tc.src)
				require.Len(t, x.Compiled.Kernels, tc.kernels)
			})
		}
	}
}
