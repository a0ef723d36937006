package expand_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// DynamicGte picks a tuple element by a computed index (clamped), in the
// evaluator and as the dynamic-slice expansion the lowering compiles.
func TestDynamicGte(t *testing.T) {
	src := `ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  c = f32[2,2] parameter(2)
  i = s32[] parameter(3)
  t = (f32[2,2], f32[2,2], f32[2,2]) tuple(a, b, c)
  ROOT g = f32[2,2] custom-call(t, i), custom_call_target="DynamicGte"
}`
	a := eval.Array("f32", []int64{2, 2}, 1, 2, 3, 4)
	b := eval.Array("f32", []int64{2, 2}, 5, 6, 7, 8)
	c := eval.Array("f32", []int64{2, 2}, 9, 10, 11, 12)
	for _, tc := range []struct {
		i    float64
		want *eval.Value
	}{{0, a}, {1, b}, {2, c}, {7, c}, {-3, a}} {
		idx := eval.Array("s32", nil, tc.i)
		require.Equal(t, tc.want.Data, evaltest.Run(t, src, a, b, c, idx).Data, "index %v", tc.i)
		m, err := hlo.Parse("e.hlo", src)
		require.NoError(t, err)
		require.NoError(t, expand.ExpandDynamicGte(m))
		require.NoError(t, verify.Verify("e.hlo", m))
		require.NotContains(t, m.String(), "custom-call")
		v, err := (&eval.Evaluator{File: "e.hlo", M: m}).Run([]*eval.Value{a, b, c, idx})
		require.NoError(t, err)
		require.Equal(t, tc.want.Data, v.Data, "expanded, index %v", tc.i)
	}
	bad := `ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[3] parameter(1)
  i = s32[] parameter(2)
  t = (f32[2,2], f32[3]) tuple(a, b)
  ROOT g = f32[2,2] custom-call(t, i), custom_call_target="DynamicGte"
}`
	m, err := hlo.Parse("e.hlo", bad)
	require.NoError(t, err)
	require.ErrorContains(t, expand.ExpandDynamicGte(m), "tuple element 1 is f32[3]")
}
