package analysis_test

import (
	"fmt"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/stretchr/testify/require"
)

// counted is a module whose while loop runs "i = start; i CMP limit; i +=
// step" (cmp written with the counter on the left, or on the right when
// swapped), with a 4x8x16 dot in the body.
func counted(start, limit, step int64, dir string, swapped bool, bc string) string {
	lhs, rhs := "i", "n"
	if swapped {
		lhs, rhs = "n", "i"
	}
	return fmt.Sprintf(`HloModule m

cond {
  p = (s32[], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(%d)
  ROOT c = pred[] compare(%s, %s), direction=%s
}

body {
  p = (s32[], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4,8] get-tuple-element(p), index=1
  k = s32[] constant(%d)
  i2 = s32[] add(i, k)
  w = s32[8,16] broadcast(k), dimensions={}
  wf = f32[8,16] convert(w)
  d = f32[4,16] dot(x, wf), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[4,8] slice(d), slice={[0:4], [0:8]}
  ROOT t = (s32[], f32[4,8]) tuple(i2, s)
}

ENTRY e {
  x = f32[4,8] parameter(0)
  c0 = s32[] constant(%d)
  t = (s32[], f32[4,8]) tuple(c0, x)
  w = (s32[], f32[4,8]) while(t), condition=cond, body=body%s
  ROOT r = f32[4,8] get-tuple-element(w), index=1
}
`, limit, lhs, rhs, dir, step, start, bc)
}

func TestExecutedCost(t *testing.T) {
	m, err := hlo.Parse("m.hlo", counted(0, 20, 1, "LT", false, ""))
	require.NoError(t, err)
	once := analysis.ComputeStats(m).Total.FLOPs
	k, unknown := analysis.ExecutedCost(m)
	require.Empty(t, unknown)
	const dot = 2 * 4 * 16 * 8
	require.Greater(t, once, int64(dot))
	// Everything in the loop runs 20 times: the dot, the add, the convert
	// and the compare.
	require.Equal(t, int64(20*(dot+1+8*16+1)), k.FLOPs)

	m, err = hlo.Parse("m.hlo", counted(0, 20, 1, "NE", false, ""))
	require.NoError(t, err)
	k, unknown = analysis.ExecutedCost(m)
	require.Equal(t, []string{"w"}, unknown)
	require.Equal(t, int64(dot+1+8*16+1), k.FLOPs)

	// A conditional costs its costliest branch.
	m, err = hlo.Parse("c.hlo", `HloModule c
small {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
big {
  p = f32[4] parameter(0)
  ROOT d = f32[] dot(p, p), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  }
ENTRY e {
  b = pred[] parameter(0)
  x = f32[4] parameter(1)
  c = f32[] conditional(b, x, x), true_computation=big, false_computation=small
  ROOT r = f32[] negate(c)
}`)
	require.NoError(t, err)
	k, _ = analysis.ExecutedCost(m)
	require.Equal(t, int64(8+1), k.FLOPs)
}
