package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
)

// Elementwise ops with no vector instruction (sine, cosine, is-finite,
// log-plus-one) are instruction sequences; they must agree with the
// evaluator (float64 math rounded once) far inside the f32 tolerance:
// maxAbs is the bound each output's worst element must meet.
func TestExpandedElementwise(t *testing.T) {
	cases := []struct {
		name   string
		src    string
		maxAbs []float64
	}{
		{"sine and cosine over +-3000 radians, f32 and bf16", `ENTRY e {
  x = f32[96,256] parameter(0)
  i = f32[96,256] iota(), iota_dimension=1
  j = f32[96,256] iota(), iota_dimension=0
  k = f32[] constant(0.1234567)
  bk = f32[96,256] broadcast(k), dimensions={}
  ij = f32[96,256] multiply(i, j)
  w = f32[96,256] multiply(ij, bk)
  big = f32[96,256] add(w, x)
  s = f32[96,256] sine(big)
  c = f32[96,256] cosine(big)
  sx = f32[96,256] sine(x)
  h = bf16[96,256] convert(big)
  hs = bf16[96,256] sine(h)
  hc = bf16[96,256] cosine(h)
  ROOT t = (f32[96,256], f32[96,256], f32[96,256], bf16[96,256], bf16[96,256]) tuple(s, c, sx, hs, hc)
}`, []float64{1e-6, 1e-6, 3e-7, 1.0 / 128, 1.0 / 128}},
		{"sine and cosine within two ulps, near their zeros too (x in [-12, 12])", `ENTRY e {
  x = f32[64,256] parameter(0)
  k = f32[] constant(12)
  bk = f32[64,256] broadcast(k), dimensions={}
  y = f32[64,256] multiply(x, bk)
  s = f32[64,256] sine(y)
  c = f32[64,256] cosine(y)
  ROOT t = (f32[64,256], f32[64,256]) tuple(s, c)
}`, []float64{0, 0}},
		{"expm1, cosh, sinh, cbrt, round-half-away, atanh, asinh, acosh within two ulps on [-6, 6]", `ENTRY e {
  x = f32[32,128] parameter(0)
  k = f32[] constant(6)
  bk = f32[32,128] broadcast(k), dimensions={}
  y = f32[32,128] multiply(x, bk)
  a = f32[32,128] exponential-minus-one(y)
  b = f32[32,128] cosh(y)
  c = f32[32,128] sinh(y)
  d = f32[32,128] cbrt(y)
  r = f32[32,128] round-nearest-afz(y)
  t = f32[32,128] atanh(x)
  s = f32[32,128] asinh(y)
  one = f32[] constant(1)
  b1 = f32[32,128] broadcast(one), dimensions={}
  ay = f32[32,128] abs(y)
  ac = f32[32,128] add(ay, b1)
  h = f32[32,128] acosh(ac)
  ROOT tt = (f32[32,128], f32[32,128], f32[32,128], f32[32,128], f32[32,128], f32[32,128], f32[32,128], f32[32,128]) tuple(a, b, c, d, r, t, s, h)
}`, []float64{0, 0, 0, 0, 0, 0, 0, 0}},
		{"8- and 16-bit integer arithmetic wraps as XLA's does", `ENTRY e {
  a = s8[12] constant({127, -128, 100, -100, 5, -1, 64, 0, 3, -128, 127, 7})
  b = s8[12] constant({1, -1, 100, 100, 2, 7, 2, 0, 9, 127, -128, 3})
  ua = u8[6] constant({255, 0, 200, 17, 128, 1})
  ub = u8[6] constant({1, 1, 200, 0, 9, 255})
  add = s8[12] add(a, b)
  sub = s8[12] subtract(a, b)
  mul = s8[12] multiply(a, b)
  div = s8[12] divide(a, b)
  neg = s8[12] negate(a)
  ab = s8[12] abs(a)
  shl = s8[12] shift-left(a, b)
  sra = s8[12] shift-right-arithmetic(a, b)
  uadd = u8[6] add(ua, ub)
  usub = u8[6] subtract(ua, ub)
  umul = u8[6] multiply(ua, ub)
  udiv = u8[6] divide(ua, ub)
  ushr = u8[6] shift-right-logical(ua, ub)
  ha = s16[5] constant({32767, -32768, 300, -300, 7})
  hb = s16[5] constant({1, -1, 300, 200, 20})
  hadd = s16[5] add(ha, hb)
  hmul = s16[5] multiply(ha, hb)
  hshl = s16[5] shift-left(ha, hb)
  va = u16[4] constant({65535, 0, 300, 40000})
  vb = u16[4] constant({1, 1, 300, 3})
  vadd = u16[4] add(va, vb)
  vsub = u16[4] subtract(va, vb)
  vmul = u16[4] multiply(va, vb)
  p = f32[] parameter(0)
  ROOT t = (s8[12], s8[12], s8[12], s8[12], s8[12], s8[12], s8[12], s8[12], u8[6], u8[6], u8[6], u8[6], u8[6], s16[5], s16[5], s16[5], u16[4], u16[4], u16[4]) tuple(add, sub, mul, div, neg, ab, shl, sra, uadd, usub, umul, udiv, ushr, hadd, hmul, hshl, vadd, vsub, vmul)
}`, []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"narrowing integer converts wrap, unsigned arithmetic shifts fill with the top bit, as XLA's do", `ENTRY e {
  x = s32[8] constant({1000, -1000, 127, 128, -129, 65535, -32769, 2147483647})
  a = s8[8] convert(x)
  b = u8[8] convert(x)
  c = s16[8] convert(x)
  d = u16[8] convert(x)
  e = s8[8] convert(d)
  f = u8[8] convert(c)
  ua = u8[6] constant({255, 128, 127, 200, 1, 170})
  ub = u8[6] constant({1, 3, 3, 8, 0, 200})
  sa = u8[6] shift-right-arithmetic(ua, ub)
  va = u16[3] constant({65535, 32768, 1000})
  vb = u16[3] constant({4, 20, 2})
  sv = u16[3] shift-right-arithmetic(va, vb)
  p = f32[] parameter(0)
  ROOT t = (s8[8], u8[8], s16[8], u16[8], s8[8], u8[8], u8[6], u16[3]) tuple(a, b, c, d, e, f, sa, sv)
}`, []float64{0, 0, 0, 0, 0, 0, 0, 0}},
		{"integer remainder, popcnt, and reduce-precision to a format that holds the type", `ENTRY e {
  a = s32[8] constant({7, -7, 7, -7, 0, -2147483648, 5, 13})
  b = s32[8] constant({3, 3, -3, -3, 5, -1, 0, 13})
  r = s32[8] remainder(a, b)
  c = s8[4] constant({-128, 127, -7, 100})
  d = s8[4] constant({-1, 0, 3, -7})
  r8 = s8[4] remainder(c, d)
  p32 = u32[4] constant({0, 4294967295, 2863311530, 1})
  pc32 = u32[4] popcnt(p32)
  p8 = s8[4] constant({-1, 0, -128, 85})
  pc8 = s8[4] popcnt(p8)
  p16 = u16[3] constant({65535, 256, 21845})
  pc16 = u16[3] popcnt(p16)
  f = f32[4] constant({1.1, -3e38, 1e-40, nan})
  rp = f32[4] reduce-precision(f), exponent_bits=11, mantissa_bits=52
  x = f32[] parameter(0)
  ROOT t = (s32[8], s8[4], u32[4], s8[4], u16[3], f32[4]) tuple(r, r8, pc32, pc8, pc16, rp)
}`, []float64{0, 0, 0, 0, 0, 0}},
		{"lgamma on (-10, 20) and at its poles, ones, twos and infinities", `ENTRY e {
  x = f32[32,128] parameter(0)
  k = f32[] constant(15)
  bk = f32[32,128] broadcast(k), dimensions={}
  c5 = f32[] constant(5)
  b5 = f32[32,128] broadcast(c5), dimensions={}
  y0 = f32[32,128] multiply(x, bk)
  y = f32[32,128] add(y0, b5)
  l = f32[32,128] lgamma(y)
  sp = f32[12] constant({0, -1, -2, 1, 2, 0.5, -0.5, inf, -inf, nan, 1e-6, 30})
  ls = f32[12] lgamma(sp)
  ROOT tt = (f32[32,128], f32[12]) tuple(l, ls)
}`, []float64{2e-5, 1e-5}},
		{"digamma on (-10, 20), at its poles and infinities", `ENTRY e {
  x = f32[32,128] parameter(0)
  k = f32[] constant(15)
  bk = f32[32,128] broadcast(k), dimensions={}
  c5 = f32[] constant(5)
  b5 = f32[32,128] broadcast(c5), dimensions={}
  y0 = f32[32,128] multiply(x, bk)
  y = f32[32,128] add(y0, b5)
  d = f32[32,128] digamma(y)
  sp = f32[11] constant({0, -1, -2, 1, 2, 0.5, -0.5, inf, -inf, nan, 1.4616321})
  ds = f32[11] digamma(sp)
  ROOT tt = (f32[32,128], f32[11]) tuple(d, ds)
}`, []float64{3e-5, 2e-6}},
		{"tan, asin and acos", `ENTRY e {
  x = f32[32,128] parameter(0)
  k = f32[] constant(1.5)
  bk = f32[32,128] broadcast(k), dimensions={}
  y = f32[32,128] multiply(x, bk)
  t = f32[32,128] tan(y)
  s = f32[32,128] asin(x)
  c = f32[32,128] acos(x)
  sp = f32[9] constant({0, -0, 1, -1, 1.5, -1.5, inf, nan, 0.9999999})
  ss = f32[9] asin(sp)
  cs = f32[9] acos(sp)
  ts = f32[9] tan(sp)
  ROOT tt = (f32[32,128], f32[32,128], f32[32,128], f32[9], f32[9], f32[9]) tuple(t, s, c, ss, cs, ts)
}`, []float64{0, 0, 0, 0, 0, 0}},
		{"the same on zeros, infinities, NaN, tiny and huge values and halves", `ENTRY e {
  x = f32[24] constant({0, -0, inf, -inf, nan, 1e-30, -1e-30, 1e30, -1e30, 88.5, 89.3, -89.3, 0.5, -0.5, 2.5, -2.5, 8388609, 1, -1, 0.999, 5000, 1e-8, 3, 27})
  p = f32[] parameter(0)
  a = f32[24] exponential-minus-one(x)
  b = f32[24] cosh(x)
  c = f32[24] sinh(x)
  d = f32[24] cbrt(x)
  r = f32[24] round-nearest-afz(x)
  t = f32[24] atanh(x)
  s = f32[24] asinh(x)
  h = f32[24] acosh(x)
  ROOT tt = (f32[24], f32[24], f32[24], f32[24], f32[24], f32[24], f32[24], f32[24]) tuple(a, b, c, d, r, t, s, h)
}`, []float64{0, 0, 0, 0, 0, 0, 0, 0}},
		{"rotary embedding: cosine and sine of positions times frequencies, fused with multiplies", `ENTRY e {
  q = f32[64,128] parameter(0)
  p = f32[64,128] iota(), iota_dimension=0
  f = f32[128] parameter(1)
  bf = f32[64,128] broadcast(f), dimensions={1}
  a = f32[64,128] multiply(p, bf)
  c = f32[64,128] cosine(a)
  s = f32[64,128] sine(a)
  qc = f32[64,128] multiply(q, c)
  qs = f32[64,128] multiply(q, s)
  ROOT r = f32[64,128] add(qc, qs)
}`, []float64{2e-6}},
		{"is-finite of infinities, NaN and finite values", `ENTRY e {
  x = f32[8] constant({1, -inf, inf, nan, 0, -3.5e38, 1e-45, -0})
  h = bf16[8] convert(x)
  a = pred[8] is-finite(x)
  b = pred[8] is-finite(h)
  y = f32[300,64] parameter(0)
  c = pred[300,64] is-finite(y)
  ROOT t = (pred[8], pred[8], pred[300,64]) tuple(a, b, c)
}`, []float64{0, 0, 0}},
		{"log-plus-one of tiny, ordinary and special values", `ENTRY e {
  x = f32[12] constant({1e-30, -1e-9, 3e-8, 1e-4, -0.5, 0, -0, 1, 1e30, -1, inf, -2})
  a = f32[12] log-plus-one(x)
  y = f32[300,64] parameter(0)
  b = f32[300,64] log-plus-one(y)
  ROOT t = (f32[12], f32[300,64]) tuple(a, b)
}`, []float64{0, 5e-7}},
		{"atan2 in every octant, of zeros, infinities and NaN", `ENTRY e {
  y = f32[16] constant({1, 1, -1, -1, 0, -0, 0, -0, inf, -inf, inf, nan, 3, 1e-30, 2, -5})
  x = f32[16] constant({1, -1, 1, -1, 0, 0, -1, -1, inf, 2, -inf, 1, nan, 1, 1e-30, 0})
  a = f32[16] atan2(y, x)
  p = f32[300,64] parameter(0)
  q = f32[300,64] parameter(1)
  b = f32[300,64] atan2(p, q)
  h = bf16[30,64] parameter(2)
  k = bf16[30,64] parameter(3)
  c = bf16[30,64] atan2(h, k)
  ROOT t = (f32[16], f32[300,64], bf16[30,64]) tuple(a, b, c)
}`, []float64{0, 5e-7, 1.0 / 64}},
		{"reduce-precision to bf16 of f32 and bf16 values, exactly", `ENTRY e {
  x = f32[12] constant({1.00390625, 1.01171875, 1.0078125, -3.3333333, 0, -0, inf, -inf, 3.4e38, 1e-30, 65504, 0.1})
  a = f32[12] reduce-precision(x), exponent_bits=8, mantissa_bits=7
  y = f32[300,64] parameter(0)
  b = f32[300,64] reduce-precision(y), exponent_bits=8, mantissa_bits=7
  z = bf16[30,64] parameter(1)
  c = bf16[30,64] reduce-precision(z), exponent_bits=8, mantissa_bits=7
  ROOT t = (f32[12], f32[300,64], bf16[30,64]) tuple(a, b, c)
}`, []float64{0, 0, 0}},
	}
	for _, tc := range cases {
		for _, chip := range chips {
			t.Run(tc.name+"/"+chip, func(t *testing.T) {
				r := runChecked(t, chip, tc.src)
				m, err := hlo.Parse("t.hlo", tc.src)
				require.NoError(t, err)
				args, err := eval.RandomArgs(m, 5)
				require.NoError(t, err)
				want, err := (&eval.Evaluator{File: "t.hlo", M: m}).Run(args)
				require.NoError(t, err)
				wants := []*eval.Value{want}
				if want.Shape.IsTuple {
					wants = want.Tuple
				}
				for i, w := range wants {
					for k, x := range w.Data {
						g := r.Outputs[i].Data[k]
						if x != x || g != g { // NaN must meet NaN
							require.True(t, x != x && g != g, "output %d [%d]: got %v, want %v", i, k, g, x)
							continue
						}
						if x == g {
							continue
						}
						rel := 0.0
						if x != 0 && w.Shape.Elem == hlo.F32 {
							rel = 2.4e-7 * abs(x) // two ulps, beside the case's absolute allowance
						}
						require.LessOrEqual(t, abs(g-x), tc.maxAbs[i]+rel, "output %d [%d]: got %v, want %v", i, k, g, x)
					}
				}
			})
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
