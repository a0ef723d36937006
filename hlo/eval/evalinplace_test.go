package eval

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestEvalUpdatesLoopStateInPlace: a loop that updates one element of its
// state per iteration holds the state once, not a copy per iteration (XLA's
// host_offloader_test.cc:4241 copied 537 MB 8,192 times), and every buffer
// is released at the end. The values themselves are checked by
// testdata/eval/update_in_place.hlo, aliases included.
func TestEvalUpdatesLoopStateInPlace(t *testing.T) {
	defer func(n int) { packMin = n }(packMin)
	packMin = 1000
	m, err := hlo.Parse("loop.hlo", `HloModule loop
cond {
  s = (s32[], f32[1000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[1000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[1000] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[] convert(j)
  u = f32[1] reshape(v)
  d = f32[1000] dynamic-update-slice(a, u, i)
  ROOT r = (s32[], f32[1000]) tuple(j, d)
}
ENTRY e {
  x = f32[] parameter(0)
  zero = s32[] constant(0)
  init = f32[1000] broadcast(x), dimensions={}
  st = (s32[], f32[1000]) tuple(zero, init)
  w = (s32[], f32[1000]) while(st), condition=cond, body=body
  ROOT r = f32[1000] get-tuple-element(w), index=1
}`)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("loop.hlo", m))
	e := &Evaluator{File: "loop.hlo", M: m}
	v, err := e.Run([]*Value{{Shape: &hlo.Shape{Elem: "f32"}, Data: []float64{-1}}})
	require.NoError(t, err)
	for i, x := range v.Data {
		require.Equal(t, float64(i+1), x, "element %d", i)
	}
	// The state, its scalars and the update: a copy would be 2,000 more.
	require.Less(t, e.PeakLiveElements(), int64(1100))
	require.Equal(t, int64(1), e.live, "every buffer but the argument released")
}
