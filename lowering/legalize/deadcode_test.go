package legalize_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/lowering/legalize"
)

// TestRemoveDeadCode: what no result reads goes, as XLA's HloDCE drops it;
// parameters, effects, control predecessors and calls of computations
// with effects stay; the results are the same.
func TestRemoveDeadCode(t *testing.T) {
	for _, tc := range []struct {
		name, text   string
		gone, stayed []string
	}{
		{"a dead chain", `HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  unused = f32[4] parameter(1)
  d1 = f32[4] exponential(x)
  d2 = f32[4] add(d1, x)
  ROOT r = f32[4] negate(x)
}`, []string{"d1", "d2"}, []string{"x", "unused", "r"}},
		{"effects stay", `HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  z = f32[] constant(0)
  o = f32[] constant(1)
  rn = f32[4] rng(z, o), distribution=rng_uniform
  cc = f32[4] custom-call(x), custom_call_target="foo"
  tok = token[] after-all()
  of = token[] outfeed(x, tok)
  ROOT r = f32[4] negate(x)
}`, nil, []string{"rn", "cc", "tok", "of", "r"}},
		{"a control predecessor stays", `HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  d = f32[4] exponential(x)
  ROOT r = f32[4] negate(x), control-predecessors={d}
}`, nil, []string{"d", "r"}},
		{"a dead pure loop goes, its body's dead values too", `HloModule m
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[4] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  waste = f32[4] exponential(v)
  v2 = f32[4] negate(v)
  ROOT t = (s32[], f32[4]) tuple(i2, v2)
}
ENTRY e {
  x = f32[4] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, x)
  dead = (s32[], f32[4]) while(init), condition=cond, body=body
  live = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(live), index=1
}`, []string{"dead", "waste"}, []string{"live", "v2", "r"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, again := reparsed(t, tc.name, tc.text, legalize.RemoveDeadCode)
			names := map[string]bool{}
			for _, c := range again.Computations {
				for _, in := range c.Instructions {
					names[in.Name] = true
				}
			}
			for _, n := range tc.gone {
				require.False(t, names[n], "%s is dead", n)
			}
			for _, n := range tc.stayed {
				require.True(t, names[n], "%s stays", n)
			}
			if tc.name == "effects stay" {
				return // a custom-call the evaluator does not know
			}
			args, err := eval.RandomArgs(m, 3)
			require.NoError(t, err)
			want, err := (&eval.Evaluator{File: tc.name, M: m}).Run(args)
			require.NoError(t, err)
			got, err := (&eval.Evaluator{File: tc.name, M: again}).Run(args)
			require.NoError(t, err)
			require.Empty(t, eval.BitDiff(want, got))
		})
	}
}
