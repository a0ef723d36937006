package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/lowering"
)

// u32 and 64-bit integer programs — the counters and Threefry RNG that
// PyTorch/XLA's dropout compiles to — checked against the evaluator.
func TestWideIntegers(t *testing.T) {
	cases := map[string]string{
		"lcg seed and threefry round": `ENTRY e {
  seed = s64[] parameter(0)
  x = u32[300,40] parameter(1)
  a = s64[] constant(214013)
  b = s64[] constant(2531011)
  m = s64[] multiply(a, seed)
  s = s64[] add(b, m)
  u = u64[] convert(s)
  k = u64[] constant(32)
  hi = u64[] shift-right-logical(u, k)
  hi32 = u32[] convert(hi)
  lo32 = u32[] convert(u)
  bh = u32[300,40] broadcast(hi32), dimensions={}
  bl = u32[300,40] broadcast(lo32), dimensions={}
  y = u32[300,40] add(x, bh)
  c13 = u32[] constant(13)
  b13 = u32[300,40] broadcast(c13), dimensions={}
  r = u32[300,40] shift-left(y, b13)
  c19 = u32[] constant(19)
  b19 = u32[300,40] broadcast(c19), dimensions={}
  q = u32[300,40] shift-right-logical(y, b19)
  o = u32[300,40] or(r, q)
  z = u32[300,40] xor(o, bl)
  c9 = u32[] constant(9)
  b9 = u32[300,40] broadcast(c9), dimensions={}
  sh = u32[300,40] shift-right-logical(z, b9)
  one = u32[] constant(1065353216)
  bone = u32[300,40] broadcast(one), dimensions={}
  fb = u32[300,40] or(sh, bone)
  f = f32[300,40] bitcast-convert(fb)
  ROOT t = (f32[300,40], u32[300,40], s64[]) tuple(f, z, s)
}`,
		"u64 iota counters": `ENTRY e {
  i2 = u64[48,1,1280] iota(), iota_dimension=2
  i0 = u64[48,1,1280] iota(), iota_dimension=0
  c = u64[] constant(1280)
  bc = u64[48,1,1280] broadcast(c), dimensions={}
  m = u64[48,1,1280] multiply(i0, bc)
  s = u64[48,1,1280] add(i2, m)
  k = u64[] constant(32)
  bk = u64[48,1,1280] broadcast(k), dimensions={}
  h = u64[48,1,1280] shift-right-logical(s, bk)
  lo = u32[48,1,1280] convert(s)
  hi = u32[48,1,1280] convert(h)
  ROOT t = (u32[48,1,1280], u32[48,1,1280]) tuple(lo, hi)
}`,
		"shifts at and past the width, unsigned compare and divide": `ENTRY e {
  x = u32[64] parameter(0)
  n = u32[64] iota(), iota_dimension=0
  l = u32[64] shift-left(x, n)
  r = u32[64] shift-right-logical(x, n)
  sx = s32[64] parameter(1)
  sn = s32[64] iota(), iota_dimension=0
  a = s32[64] shift-right-arithmetic(sx, sn)
  big = u32[] constant(4294967295)
  bb = u32[64] broadcast(big), dimensions={}
  lt = pred[64] compare(x, bb), direction=LT
  d = u32[64] divide(bb, x)
  ROOT t = (u32[64], u32[64], s32[64], pred[64], u32[64]) tuple(l, r, a, lt, d)
}`,
		"s64 arithmetic, reductions and conversions": `add {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT s = s64[] add(a, b)
}
ENTRY e {
  x = s64[128,32] parameter(0)
  y = s64[128,32] parameter(1)
  p = s64[128,32] multiply(x, y)
  mx = s64[128,32] maximum(p, y)
  ng = s64[128,32] negate(mx)
  z = s64[] constant(0)
  r = s64[128] reduce(ng, z), dimensions={1}, to_apply=add
  f = f32[128,32] convert(p)
  n = s32[128,32] convert(p)
  ROOT t = (s64[128], f32[128,32], s32[128,32]) tuple(r, f, n)
}`,
		"s64 and u32 selectors and indices": `b0 {
  p = f32[8] parameter(0)
  ROOT c = f32[8] ceil(p)
}
b1 {
  p = f32[8] parameter(0)
  ROOT f = f32[8] floor(p)
}
ENTRY e {
  x = f32[8] parameter(0)
  i = s64[] parameter(1)
  c = f32[8] conditional(i, x, x), branch_computations={b0, b1}
  big = s64[] constant(8589934592)
  j = s64[] add(i, big)
  d = f32[3] dynamic-slice(c, j), dynamic_slice_sizes={3}
  u = u32[] constant(4294967295)
  e = f32[3] dynamic-slice(c, u), dynamic_slice_sizes={3}
  ROOT t = (f32[3], f32[3]) tuple(d, e)
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// Values past 2^53, which the float64 evaluator cannot hold, checked bit
// for bit against Go's own integer arithmetic.
func TestWideIntegersExact(t *testing.T) {
	src := `ENTRY e {
  a = u64[4] constant({18446744073709551615, 9007199254740993, 4294967296, 1})
  b = u64[4] constant({2, 3, 4294967297, 18446744073709551615})
  s = u64[4] add(a, b)
  m = u64[4] multiply(a, b)
  c = s64[4] constant({-9223372036854775808, 9223372036854775807, -3, 9007199254740993})
  d = s64[4] constant({-1, 2, 9223372036854775807, 7})
  q = s64[4] divide(c, d)
  k = s64[] constant(33)
  bk = s64[4] broadcast(k), dimensions={}
  h = s64[4] shift-right-arithmetic(c, bk)
  ROOT t = (u64[4], u64[4], s64[4], s64[4]) tuple(s, m, q, h)
}`
	a := []uint64{18446744073709551615, 9007199254740993, 4294967296, 1}
	b := []uint64{2, 3, 4294967297, 18446744073709551615}
	c := []int64{-9223372036854775808, 9223372036854775807, -3, 9007199254740993}
	d := []int64{-1, 2, 9223372036854775807, 7}
	var want [4][4]uint64
	for i := range 4 {
		want[0][i] = a[i] + b[i]
		want[1][i] = a[i] * b[i]
		if c[i] == -1<<63 && d[i] == -1 {
			want[2][i] = uint64(c[i]) // XLA: MIN / -1 = MIN
		} else {
			want[2][i] = uint64(c[i] / d[i])
		}
		want[3][i] = uint64(c[i] >> 33)
	}
	for _, chipName := range chips {
		outs, bnds := rawOutputs(t, chipName, src)
		for o, vals := range outs {
			for i, v := range vals {
				require.Equal(t, want[o][i], isa.Bits(bnds[o].DType, v), "%s output %d [%d]", chipName, o, i)
			}
		}
	}
}

// A kernel that cannot fit the chip is a positioned lowering error at its
// HLO op, not an internal error. (Tiles beyond the ISA's rank limit no
// longer arise: every kernel kind merges or walks the extra dimensions;
// TestRankAboveFour.)
func TestKernelLimitsArePositionedErrors(t *testing.T) {
	// (Rows too long for a reduce kernel are cut into blocks now; an
	// argmax over 20M-element rows, reduced as a halving tree, does not fit
	// teach16's HBM, and says so at the reduce.)
	src := `argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(b, a), direction=GT
  m = f32[] select(gt, b, a)
  k = s32[] select(gt, j, i)
  ROOT t = (f32[], s32[]) tuple(m, k)
}
ENTRY e {
  x = f32[3,20000000] parameter(0)
  ix = s32[3,20000000] iota(), iota_dimension=1
  z = f32[] constant(-inf)
  zi = s32[] constant(0)
  ROOT r = (f32[3], s32[3]) reduce(x, ix, z, zi), dimensions={1}, to_apply=argmax
}`
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	chip, err := config.Load("teach16", nil)
	require.NoError(t, err)
	_, err = lowering.Compile("t.hlo", m, chip)
	var le *lowering.Error
	require.ErrorAs(t, err, &le, "%v", err)
	require.Equal(t, 16, le.Pos.Line, "%v", err)
	require.Regexp(t, `cannot lower: its f32\[3,\d+\] \([\d.]+ MiB\) brings the HBM needed to [\d.]+ MiB, beyond the chip's 512.0 MiB`, err.Error())
	require.Contains(t, err.Error(), "; the whole program needs 1.14 GiB at its peak")
}
