package expand_test

import (
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// The expansion of erf and the Neuron activation calls computes what the
// evaluator computes with the math library, to within f32 rounding of
// XLA's erf approximation.
func TestErfAndActivationsExpansion(t *testing.T) {
	src := `ENTRY e {
  x = f32[41] parameter(0)
  e = f32[41] erf(x)
  g = f32[41] custom-call(x), custom_call_target="AwsNeuronGelu"
  h = f32[41] custom-call(x), custom_call_target="AwsNeuronGeluApprxTanh"
  s = f32[41] custom-call(x), custom_call_target="AwsNeuronSilu"
  f = f32[41] custom-call(x), custom_call_target="AwsNeuronErf"
  b = bf16[41] convert(x)
  eb = bf16[41] erf(b)
  gb = f32[41] custom-call(x), custom_call_target="AwsNeuronGeluBackward"
  ROOT t = (f32[41], f32[41], f32[41], f32[41], f32[41], bf16[41], f32[41]) tuple(e, g, h, s, f, eb, gb)
}`
	x := eval.Array("f32", []int64{41})
	for i := range 41 {
		x.Data = append(x.Data, float64(i-20)/4)
	}
	want := evaltest.Run(t, src, x)
	m, err := hlo.Parse("e.hlo", src)
	require.NoError(t, err)
	require.NoError(t, expand.ExpandErfAndActivations(m))
	require.NoError(t, verify.Verify("e.hlo", m))
	require.NotContains(t, m.String(), "custom-call")
	require.NotContains(t, m.String(), " erf(")
	got, err := (&eval.Evaluator{File: "e.hlo", M: m}).Run([]*eval.Value{x})
	require.NoError(t, err)
	for k := range want.Tuple {
		// erf's approximation is within 7e-8; GELU multiplies that by
		// x/2 (and 1 + erf cancels in the far negative tail, so the
		// bound is absolute there).
		tol := 2e-7
		if k == 5 {
			tol = 1.0 / 128 // bf16
		}
		for i, w := range want.Tuple[k].Data {
			require.InDelta(t, w, got.Tuple[k].Data[i], tol*math.Max(1, math.Abs(x.Data[i])), "output %d at x=%g", k, x.Data[i])
		}
	}
	// Spot values: erf(1), gelu(1) exact and tanh forms, silu(1).
	require.InDelta(t, 0.8427007929, want.Tuple[0].Data[24], 1e-7)
	require.InDelta(t, 0.8413447461, want.Tuple[1].Data[24], 1e-7)
	require.InDelta(t, 0.8411919906, want.Tuple[2].Data[24], 1e-7)
	require.InDelta(t, 0.7310585786, want.Tuple[3].Data[24], 1e-7)
	// gelu'(1) = Phi(1) + phi(1); gelu'(0) = 1/2; and the derivative
	// against a central difference of gelu at x = -1.25.
	require.InDelta(t, 0.8413447461+0.2419707245, want.Tuple[6].Data[24], 1e-7)
	require.InDelta(t, 0.5, want.Tuple[6].Data[20], 1e-7)
	gelu := expand.NeuronActivations["AwsNeuronGelu"]
	require.InDelta(t, (gelu(-1.25+1e-6)-gelu(-1.25-1e-6))/2e-6, want.Tuple[6].Data[15], 1e-6)
}
