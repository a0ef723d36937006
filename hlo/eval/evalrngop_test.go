package eval

import (
	"fmt"
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/rewrite"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestRngDistributions: rng's uniform floats lie in [a, b), its integers
// in [a, b) (a when b <= a), its normals have about the asked mean and
// deviation; two rngs draw different numbers; a run repeats exactly; the
// key (Seed) changes the numbers.
func TestRngDistributions(t *testing.T) {
	m, err := hlo.Parse("r.hlo", `HloModule m
ENTRY e {
  a = f32[] constant(-1)
  b = f32[] constant(3)
  u = f32[4096] rng(a, b), distribution=rng_uniform
  u2 = f32[4096] rng(a, b), distribution=rng_uniform
  mu = f32[] constant(5)
  sd = f32[] constant(2)
  n = f32[4096] rng(mu, sd), distribution=rng_normal
  i = s8[] constant(-3)
  j = s8[] constant(4)
  k = s8[4096] rng(i, j), distribution=rng_uniform
  big0 = s64[] constant(-9000000000000000000)
  big1 = s64[] constant(9000000000000000000)
  w = s64[256] rng(big0, big1), distribution=rng_uniform
  seven = s32[] constant(7)
  e = s32[8] rng(seven, seven), distribution=rng_uniform
  ROOT t = (f32[4096], f32[4096], f32[4096], s8[4096], s64[256], s32[8]) tuple(u, u2, n, k, w, e)
}`)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("r.hlo", m))
	run := func(seed uint64) *Value {
		v, err := (&Evaluator{File: "r.hlo", M: m, Seed: seed}).Run(nil)
		require.NoError(t, err)
		return v
	}
	v := run(0)
	u, u2, n, k, w, eq := v.Tuple[0].Data, v.Tuple[1].Data, v.Tuple[2].Data, v.Tuple[3].Data, v.Tuple[4].Data, v.Tuple[5].Data
	var sum float64
	for i := range u {
		require.True(t, u[i] >= -1 && u[i] < 3, "%v", u[i])
		sum += u[i]
	}
	require.InDelta(t, 1, sum/float64(len(u)), 0.1)
	require.NotEqual(t, u, u2, "two rngs draw different numbers")
	var mean, sq float64
	for _, x := range n {
		mean += x
	}
	mean /= float64(len(n))
	for _, x := range n {
		sq += (x - mean) * (x - mean)
	}
	require.InDelta(t, 5, mean, 0.15)
	require.InDelta(t, 2, math.Sqrt(sq/float64(len(n))), 0.15)
	seen := map[float64]bool{}
	for _, x := range k {
		require.True(t, x >= -3 && x < 4, "%v", x)
		seen[x] = true
	}
	require.Len(t, seen, 7, "every value of [-3, 4) drawn")
	neg, pos := 0, 0
	for _, x := range w {
		b := int64(math.Float64bits(x))
		require.True(t, b >= -9000000000000000000 && b < 9000000000000000000)
		if b < 0 {
			neg++
		} else {
			pos++
		}
	}
	require.True(t, neg > 64 && pos > 64, "a 64-bit span drawn across: %d negative, %d not", neg, pos)
	for _, x := range eq {
		require.Equal(t, 7.0, x, "an empty span gives a")
	}
	again := run(0)
	require.Equal(t, u, again.Tuple[0].Data, "a run repeats exactly")
	require.Equal(t, n, again.Tuple[2].Data)
	require.NotEqual(t, u, run(1).Tuple[0].Data, "another key, other numbers")
	// The same evaluator run twice draws the same numbers: each run starts
	// from the generator's first state, as each chip run does (hlo.Check
	// runs its evaluator again; the fuzzer found the second run drawing on).
	ev := &Evaluator{File: "r.hlo", M: m}
	first, err := ev.Run(nil)
	require.NoError(t, err)
	second, err := ev.Run(nil)
	require.NoError(t, err)
	require.Equal(t, first.Tuple[0].Data, second.Tuple[0].Data, "a second run of one evaluator repeats")
}

// TestRngLoopDrawsAgain: an rng in a loop body draws new numbers every
// iteration (the counter advances), as XLA's does.
func TestRngLoopDrawsAgain(t *testing.T) {
	m, err := hlo.Parse("r.hlo", `HloModule m
cond {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4] rng(lo, hi), distribution=rng_uniform
  prev = f32[4] get-tuple-element(s), index=2
  ROOT t = (s32[], f32[4], f32[4]) tuple(j, prev, r)
}
ENTRY e {
  z = s32[] constant(0)
  x = f32[4] constant({0, 0, 0, 0})
  init = (s32[], f32[4], f32[4]) tuple(z, x, x)
  ROOT l = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
}`)
	require.NoError(t, err)
	v, err := (&Evaluator{File: "r.hlo", M: m}).Run(nil)
	require.NoError(t, err)
	require.NotEqual(t, v.Tuple[1].Data, v.Tuple[2].Data, "iteration 1's draw and iteration 2's")
}

// TestExpandRngsIsTheEvaluatorsRng: the expansion evaluates to the
// evaluator's rng, bit for bit, for every distribution and type.
func TestExpandRngsIsTheEvaluatorsRng(t *testing.T) {
	for _, tc := range []struct{ elem, dims, a, b, dist string }{
		{"f32", "3,5", "-2", "2.5", "rng_uniform"},
		{"bf16", "7", "0", "1", "rng_uniform"},
		{"f16", "9", "1", "0.25", "rng_normal"},
		{"f64", "6", "0", "1", "rng_normal"},
		{"f64", "6", "-1", "1", "rng_uniform"},
		{"s32", "11", "-100", "100", "rng_uniform"},
		{"u8", "11", "3", "250", "rng_uniform"},
		{"u32", "11", "0", "4294967295", "rng_uniform"},
		{"s4", "11", "-8", "7", "rng_uniform"},
	} {
		name := tc.elem + " " + tc.dist
		t.Run(name, func(t *testing.T) {
			src := fmt.Sprintf(`HloModule m
ENTRY e {
  z = f32[] constant(0)
  o = f32[] constant(1)
  first = f32[2] rng(z, o), distribution=rng_uniform
  a = %[1]s[] constant(%[3]s)
  b = %[1]s[] constant(%[4]s)
  r = %[1]s[%[2]s] rng(a, b), distribution=%[5]s
  ROOT t = (f32[2], %[1]s[%[2]s]) tuple(first, r)
}`, tc.elem, tc.dims, tc.a, tc.b, tc.dist)
			m, err := hlo.Parse("r.hlo", src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("r.hlo", m))
			want, err := (&Evaluator{File: "r.hlo", M: m}).Run(nil)
			require.NoError(t, err)
			x := m.Clone()
			require.NoError(t, expand.ExpandRngs(x))
			again, err := hlo.Parse("r.expanded", x.String())
			require.NoError(t, err, x.String())
			require.NoError(t, verify.Verify("r.expanded", again), x.String())
			require.False(t, rewrite.HasOpcode(again.Entry, "rng"))
			got, err := (&Evaluator{File: "r.expanded", M: again}).Run(nil)
			require.NoError(t, err)
			require.Empty(t, BitDiff(want, got), name)
		})
	}
}
