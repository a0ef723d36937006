package eval

import (
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// Monte Carlo arithmetic moves rounded results by at most one ulp of their
// type, leaves exact ops alone, draws the same noise for the same seed and
// other noise for another, and never writes into an operand.
func TestPerturbMovesRoundedResultsByAnULP(t *testing.T) {
	src := `ENTRY e {
  x = f32[4096] parameter(0)
  y = f32[4096] parameter(1)
  h = bf16[4096] parameter(2)
  s = f32[4096] add(x, y)
  p = bf16[4096] multiply(h, h)
  t = f32[4096] negate(x)
  m = f32[4096] maximum(x, y)
  r = f32[4096] reverse(x), dimensions={0}
  ROOT out = (f32[4096], bf16[4096], f32[4096], f32[4096], f32[4096]) tuple(s, p, t, m, r)
}`
	m, args := moduleWithArgs(t, src, 3)
	x0 := append([]float64(nil), args[0].Data...)
	run := func(seed uint64) *Value {
		v, err := (&Evaluator{File: "e.hlo", M: m, Perturb: seed}).Run(args)
		require.NoError(t, err)
		return v
	}
	exact, a, a2, b := run(0), run(1), run(1), run(2)
	require.Equal(t, a.Tuple[0].Data, a2.Tuple[0].Data, "same seed, same noise")
	require.NotEqual(t, a.Tuple[0].Data, b.Tuple[0].Data, "another seed, other noise")
	require.Equal(t, x0, args[0].Data, "operands untouched")

	for k, mant := range map[int]int{0: 23, 1: 7} {
		moved := 0
		for i, w := range exact.Tuple[k].Data {
			g := a.Tuple[k].Data[i]
			_, e := math.Frexp(w)
			require.LessOrEqual(t, math.Abs(g-w), math.Ldexp(1, e-1-mant), "output %d element %d", k, i)
			require.Equal(t, g, hlo.Round(exact.Tuple[k].Shape.Elem, g), "stays a value of its type")
			if g != w {
				moved++
			}
		}
		// Half the elements move (x±ulp with probability 1/4 each).
		require.InDelta(t, 2048, moved, 200, "output %d", k)
	}
	for k := 2; k < 5; k++ {
		require.Equal(t, exact.Tuple[k].Data, a.Tuple[k].Data, "exact op %d unperturbed", k)
	}
}

// A sum of K terms may round K-1 times: its perturbation spans sqrt(K)
// ulps. A maximum rounds nothing and is left alone.
func TestPerturbScalesWithTheTermsSummed(t *testing.T) {
	src := `add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[4096,64] parameter(0)
  z = f32[] constant(0)
  s = f32[4096] reduce(x, z), dimensions={1}, to_apply=add
  m = f32[4096] reduce(x, z), dimensions={1}, to_apply=mx
  ROOT out = (f32[4096], f32[4096]) tuple(s, m)
}`
	m, args := moduleWithArgs(t, src, 3)
	exact, err := (&Evaluator{File: "e.hlo", M: m}).Run(args)
	require.NoError(t, err)
	noisy, err := (&Evaluator{File: "e.hlo", M: m, Perturb: 7}).Run(args)
	require.NoError(t, err)
	beyondOne := 0
	for i, w := range exact.Tuple[0].Data {
		_, e := math.Frexp(w)
		ulp := math.Ldexp(1, e-1-23)
		d := math.Abs(noisy.Tuple[0].Data[i] - w)
		require.LessOrEqual(t, d, 8.5*ulp, "sqrt(64) ulps and the rounding")
		if d > 1.5*ulp {
			beyondOne++
		}
	}
	require.Greater(t, beyondOne, 2048, "most sums move by more than an ulp")
	require.Equal(t, exact.Tuple[1].Data, noisy.Tuple[1].Data, "a maximum is exact")
}

// moduleWithArgs parses and verifies a module and draws random arguments.
func moduleWithArgs(t *testing.T, src string, seed uint64) (*hlo.Module, []*Value) {
	t.Helper()
	m, err := hlo.Parse("e.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("e.hlo", m))
	args, err := RandomArgs(m, seed)
	require.NoError(t, err)
	return m, args
}

// A batch norm's statistics sum their batch, its normalized output does
// not: only the statistics get sqrt(N) ulps.
func TestPerturbBatchNormStatisticsOnly(t *testing.T) {
	src := `ENTRY e {
  x = f32[1024,4] parameter(0)
  s = f32[4] parameter(1)
  o = f32[4] parameter(2)
  ROOT bn = (f32[1024,4], f32[4], f32[4]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
}`
	m, args := moduleWithArgs(t, src, 5)
	exact, err := (&Evaluator{File: "e.hlo", M: m}).Run(args)
	require.NoError(t, err)
	noisy, err := (&Evaluator{File: "e.hlo", M: m, Perturb: 3}).Run(args)
	require.NoError(t, err)
	within := func(leaf int, ulps float64) {
		for i, w := range exact.Tuple[leaf].Data {
			_, e := math.Frexp(w)
			require.LessOrEqual(t, math.Abs(noisy.Tuple[leaf].Data[i]-w), ulps*math.Ldexp(1, e-1-23), "leaf %d element %d", leaf, i)
		}
	}
	within(0, 1)
	within(1, 32.5) // sqrt(1024) ulps and the rounding
	within(2, 32.5)
	require.NotEqual(t, exact.Tuple[1].Data, noisy.Tuple[1].Data)
}
