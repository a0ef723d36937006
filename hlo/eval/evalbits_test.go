package eval

import (
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/stretchr/testify/require"
)

// Known-answer vectors of Random123 (kat_vectors).
func TestCounterRNGKnownAnswers(t *testing.T) {
	require.Equal(t, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}, philox4x32([4]uint32{}, [2]uint32{}))
	require.Equal(t, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
		philox4x32([4]uint32{^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)}, [2]uint32{^uint32(0), ^uint32(0)}))
	require.Equal(t, [2]uint32{0x6b200159, 0x99ba4efe}, threefry2x32([2]uint32{}, [2]uint32{}))
	require.Equal(t, [2]uint32{0x1cb996fc, 0xbb002be7}, threefry2x32([2]uint32{^uint32(0), ^uint32(0)}, [2]uint32{^uint32(0), ^uint32(0)}))
}

func TestEvalRngIsSeeded(t *testing.T) {
	src := "ENTRY e {\n a = f32[] constant(0)\n b = f32[] constant(1)\n ROOT r = f32[64] rng(a, b), distribution=rng_uniform\n}\n"
	m, err := hlo.Parse("r.hlo", src)
	require.NoError(t, err)
	run := func(seed uint64) []float64 {
		v, err := (&Evaluator{File: "r.hlo", M: m, Seed: seed}).Run(nil)
		require.NoError(t, err)
		return v.Data
	}
	a, b, c := run(1), run(1), run(2)
	require.Equal(t, a, b, "same seed, same values")
	require.NotEqual(t, a, c)
	for _, x := range a {
		require.True(t, x >= 0 && x < 1, "%v in [0, 1)", x)
	}
}

// TestEvalCollectivesNeedOneDevice: across several devices a collective is
// a positioned error, whether the header or the replica groups say so.
func TestEvalCollectivesNeedOneDevice(t *testing.T) {
	for _, tc := range []struct{ header, groups, want string }{
		{"HloModule m, num_partitions=4\n", "{}", "4 devices"},
		{"HloModule m, replica_count=2\n", "{}", "2 devices"},
		{"", "{{0,1},{2,3}}", "4 devices"},
		{"", "[2,4]<=[8]", "8 devices"},
	} {
		src := tc.header + "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\n" +
			"ENTRY e {\n x = f32[2] parameter(0)\n ROOT r = f32[2] all-reduce(x), replica_groups=" + tc.groups + ", to_apply=add\n}\n"
		m, err := hlo.Parse("c.hlo", src)
		require.NoError(t, err)
		_, err = (&Evaluator{File: "c.hlo", M: m}).Run([]*Value{Array("f32", []int64{2}, 1, 2)})
		require.ErrorContains(t, err, "c.hlo:")
		require.ErrorContains(t, err, "collective across "+tc.want+": evaluate it on them", tc.groups)
	}
}

// TestBitwiseOnWideUnsigned: and, or, xor and not of u64 values beyond
// 2^63 work on the type's bits (an int64 conversion of such a float64 is
// undefined: not(MaxUint64) gave 2^63, the fuzzer's finding).
func TestBitwiseOnWideUnsigned(t *testing.T) {
	v := evalText(t, `ENTRY e {
  z = u64[] constant(0)
  m = u64[] not(z)
  n = u64[] not(m)
  h = u64[] constant(9223372036854775808)
  a = u64[] and(m, h)
  o = u64[] or(h, z)
  x = u64[] xor(m, m)
  s = s8[] constant(-128)
  ns = s8[] not(s)
  ROOT t = (u64[], u64[], u64[], u64[], u64[], s8[]) tuple(m, n, a, o, x, ns)
}`)
	want := []uint64{math.MaxUint64, 0, 1 << 63, 1 << 63, 0}
	for i, w := range want {
		require.Equal(t, w, scalar.Bits("u64", v.Tuple[i].Data[0]), "output %d", i)
	}
	require.Equal(t, 127.0, v.Tuple[5].Data[0])
}

// TestIntArithmeticWraps: s32 products beyond 2^53 wrap exactly (the
// fuzzer's finding: a float64 product rounded away the low bits), and u32
// and s64 sums and differences wrap.
func TestIntArithmeticWraps(t *testing.T) {
	v := evalText(t, `ENTRY e {
  a = s32[] constant(-1088516096)
  p = s32[] multiply(a, a)
  b = u32[] constant(4294967295)
  one = u32[] constant(1)
  s = u32[] add(b, one)
  z = u32[] constant(0)
  d = u32[] subtract(z, one)
  m = s64[] constant(-4611686018427387904)
  q = s64[] add(m, m)
  ROOT t = (s32[], u32[], u32[], s64[]) tuple(p, s, d, q)
}`)
	require.Equal(t, 285212672.0, v.Tuple[0].Data[0]) // (a*a) mod 2^32
	require.Equal(t, 0.0, v.Tuple[1].Data[0])
	require.Equal(t, 4294967295.0, v.Tuple[2].Data[0])
	require.Equal(t, int64(math.MinInt64), int64(scalar.Bits("s64", v.Tuple[3].Data[0])))
}

// TestNegateMinWraps: negate and abs of the most negative integer give it
// back, as XLA's two's complement does (the evaluator gave +2^63, read as
// MaxInt64, for s64: the fuzzer's finding).
func TestNegateMinWraps(t *testing.T) {
	v := evalText(t, `ENTRY e {
  a = s64[] constant(-9223372036854775808)
  b = s8[] constant(-128)
  c = s32[] constant(-2147483648)
  na = s64[] negate(a)
  aa = s64[] abs(a)
  nb = s8[] negate(b)
  ab = s8[] abs(b)
  nc = s32[] negate(c)
  ROOT t = (s64[], s64[], s8[], s8[], s32[]) tuple(na, aa, nb, ab, nc)
}`)
	for i, w := range []float64{math.MinInt64, math.MinInt64, -128, -128, math.MinInt32} {
		require.Equal(t, w, scalar.WideNumber(v.Tuple[i].Shape.Elem, v.Tuple[i].Data[0]), "output %d", i)
	}
}

// TestWideIntExact: s64 products beyond 2^53 are exact, wrapping (BERT's
// dropout seeds, an s64 LCG, pass 2^53 at the third step), and so are
// their constants.
func TestWideIntExact(t *testing.T) {
	v := evalText(t, `ENTRY e {
  a = s64[] constant(214013)
  s = s64[] constant(45873526546)
  p = s64[] multiply(a, s)
  q = s64[] multiply(a, p)
  m = u64[] constant(18446744073709551615)
  k = u64[] constant(9007199254740993)
  n = u64[] add(k, m)
  ROOT t = (s64[], u64[], u64[]) tuple(q, n, k)
}`)
	require.Equal(t, int64(-1849554647944953950), int64(scalar.Bits("s64", v.Tuple[0].Data[0])))
	require.Equal(t, uint64(9007199254740992), scalar.Bits("u64", v.Tuple[1].Data[0]))
	require.Equal(t, uint64(9007199254740993), scalar.Bits("u64", v.Tuple[2].Data[0]))
}

// TestWideRng: rng's bounds of s64 are read as numbers and its draws
// carried as bits.
func TestWideRng(t *testing.T) {
	v := evalText(t, `ENTRY e {
  a = s64[] constant(-5)
  b = s64[] constant(5)
  ROOT r = s64[64] rng(a, b), distribution=rng_uniform
}`)
	for _, x := range v.Data {
		n := int64(scalar.Bits("s64", x))
		require.True(t, n >= -5 && n < 5, "%d", n)
	}
}

// TestBitcastChangesType: a bitcast to another type of the same width
// reads the operand's bits, as bitcast-convert does (it had kept the
// values: a u32 array holding 0.739).
func TestBitcastChangesType(t *testing.T) {
	v := evalText(t, `ENTRY e {
  x = f32[3] constant({1, -2, 0.5})
  b = s32[3] bitcast(x)
  c = u32[3,1] bitcast(x)
  ROOT t = (s32[3], u32[3,1]) tuple(b, c)
}`)
	require.Equal(t, []float64{1065353216, -1073741824, 1056964608}, v.Tuple[0].Data)
	require.Equal(t, []float64{1065353216, 3221225472, 1056964608}, v.Tuple[1].Data)
}

// An integer dot into u64 or s64 wraps in 64-bit arithmetic, each operand
// converted to the result type first, as XLA does (StableHLO's
// dot_general_int8_4_3_uint64_3_6): the float64 sum saturated and rounded.
func TestEvalWideIntegerDotWraps(t *testing.T) {
	for _, c := range []struct {
		out  string
		want []uint64
	}{
		{"u64", []uint64{20, 0, 18446744073709550849, 127}},
		{"s64", []uint64{20, 0, 18446744073709550849, 127}}, // the same bits: -767 and 127
	} {
		src := "ENTRY e {\n a = s8[2,3] constant({{-3, 2, 1}, {127, -128, 0}})\n" +
			" b = " + c.out + "[3,2] constant({{-1, 1}, {5, -9223372036854775808}, {7, 3}})\n" +
			" ROOT d = " + c.out + "[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n"
		if c.out == "u64" {
			src = "ENTRY e {\n a = s8[2,3] constant({{-3, 2, 1}, {127, -128, 0}})\n" +
				" b = u64[3,2] constant({{18446744073709551615, 1}, {5, 9223372036854775808}, {7, 3}})\n" +
				" ROOT d = u64[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n"
		}
		m, err := hlo.Parse("w.hlo", src)
		require.NoError(t, err)
		v, err := (&Evaluator{File: "w.hlo", M: m}).Run(nil)
		require.NoError(t, err)
		var got []uint64
		for _, x := range v.Data {
			got = append(got, math.Float64bits(x))
		}
		require.Equal(t, c.want, got, c.out)
	}
}
