package check

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// Check passes an output that rounding decides when the result is within
// its measured noise, and still fails a well-conditioned output that is
// off, and an ill-conditioned one that is off by far more than the noise.
func TestCheckMeasuresRoundingNoise(t *testing.T) {
	// c = (x + 1e8) - 1e8 keeps x only to the nearest 8 (the ulp of 1e8
	// in f32): rounding decides it. d = x * 2 is exact up to one rounding.
	src := `ENTRY e {
  x = f32[256] parameter(0)
  big = f32[] constant(1e8)
  b = f32[256] broadcast(big), dimensions={}
  s = f32[256] add(x, b)
  c = f32[256] subtract(s, b)
  two = f32[] constant(2)
  t = f32[256] broadcast(two), dimensions={}
  d = f32[256] multiply(x, t)
  ROOT out = (f32[256], f32[256]) tuple(c, d)
}`
	m, args := moduleWithArgs(t, src, 1)
	for i := range args[0].Data {
		args[0].Data[i] *= 100
	}
	ev := func() *eval.Evaluator { return &eval.Evaluator{File: "e.hlo", M: m} }
	want, err := Reference(ev(), args)
	require.NoError(t, err)
	shifted := func(v *eval.Value, by float64) *eval.Value {
		out := &eval.Value{Shape: v.Shape, Data: append([]float64(nil), v.Data...)}
		for i := range out.Data {
			out.Data[i] += by
		}
		return out
	}

	rep, err := Check(ev(), args, want)
	require.NoError(t, err)
	require.False(t, rep.Perturbed, "nothing to measure when everything matches")
	require.Zero(t, rep.Failed)

	// Off by 8, one ulp of the sum: beyond the f32 tolerance of values
	// near 100, within the noise of c.
	rep, err = Check(ev(), args, []*eval.Value{shifted(want[0], 8), want[1]})
	require.NoError(t, err)
	require.True(t, rep.Perturbed)
	c := rep.Outputs[0]
	require.Positive(t, c.Diff.Mismatches)
	require.GreaterOrEqual(t, c.Noise, 8.0)
	require.True(t, c.Pass(), "%+v", c)
	require.Zero(t, rep.Failed)
	require.Equal(t, 1, rep.PerturbedRuns, "sampling stops once everything passes")

	// Off by 8 * 1000: beyond any rounding.
	rep, err = Check(ev(), args, []*eval.Value{shifted(want[0], 8000), want[1]})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Failed)
	require.False(t, rep.Outputs[0].Pass())
	// A failing output gets every sample, and its noise is the largest.
	require.Equal(t, NoiseSamples, rep.PerturbedRuns)
	largest := 0.0
	for seed := uint64(1); seed <= NoiseSamples; seed++ {
		p, err := Reference(&eval.Evaluator{File: "e.hlo", M: m, Perturb: seed}, args)
		require.NoError(t, err)
		largest = max(largest, Noise(p[0], want[0]))
	}
	require.Equal(t, largest, rep.Outputs[0].Noise)

	// A well-conditioned output off by 1e-3: its noise is an ulp.
	rep, err = Check(ev(), args, []*eval.Value{want[0], shifted(want[1], 1e-3*200)})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Failed)
	d := rep.Outputs[1]
	require.False(t, d.Pass())
	require.Less(t, d.Noise, 3e-5, "an ulp or two of values up to 200")
	require.Equal(t, -1.0, rep.Outputs[0].Noise, "an output that matched is not measured")
}

// moduleWithArgs is evaltest.ModuleWithArgs, which this package's tests
// cannot import (evaltest imports check).
func moduleWithArgs(t *testing.T, src string, seed uint64) (*hlo.Module, []*eval.Value) {
	t.Helper()
	m, err := hlo.Parse("e.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("e.hlo", m))
	args, err := eval.RandomArgs(m, seed)
	require.NoError(t, err)
	return m, args
}
