package analysis_test

import (
	"sort"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/stretchr/testify/require"
)

// scan is a loop over stacked weights: the counter steers (the condition
// and the dynamic slice's start), the weights and the activations do not.
const scan = `HloModule scan

cond {
  p = (s32[], f32[4,8,8], f32[2,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[4,8,8], f32[2,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ws = f32[4,8,8] get-tuple-element(p), index=1
  x = f32[2,8] get-tuple-element(p), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  z = s32[] constant(0)
  w3 = f32[1,8,8] dynamic-slice(ws, i, z, z), dynamic_slice_sizes={1,8,8}
  w = f32[8,8] reshape(w3)
  y = f32[2,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  act = f32[2,8] tanh(y)
  ROOT t = (s32[], f32[4,8,8], f32[2,8]) tuple(next, ws, act)
}

ENTRY e {
  ws = f32[4,8,8] parameter(0)
  x = f32[2,8] parameter(1)
  c0 = s32[] constant(0)
  t = (s32[], f32[4,8,8], f32[2,8]) tuple(c0, ws, x)
  w = (s32[], f32[4,8,8], f32[2,8]) while(t), condition=cond, body=body
  ROOT r = f32[2,8] get-tuple-element(w), index=2
}
`

// argmaxGather picks rows by indices it computes, through one output of a
// multi-output fusion whose other output is a large product.
const argmaxGather = `HloModule g

fused {
  a = f32[16,8] parameter(0)
  b = f32[8,8] parameter(1)
  d = f32[16,8] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  q = s32[] parameter(2)
  k = s32[] constant(3)
  idx = s32[] multiply(q, k)
  ROOT t = (f32[16,8], s32[]) tuple(d, idx)
}

ENTRY e {
  a = f32[16,8] parameter(0)
  b = f32[8,8] parameter(1)
  q = s32[] parameter(2)
  f = (f32[16,8], s32[]) fusion(a, b, q), kind=kLoop, calls=fused
  prod = f32[16,8] get-tuple-element(f), index=0
  idx = s32[] get-tuple-element(f), index=1
  neg = s32[] negate(idx)
  ids = s32[1] broadcast(neg), dimensions={}
  ROOT g = f32[1,8] gather(prod, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}
}
`

// branch selects a branch by a comparison of a reduction.
const branch = `HloModule b

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

neg {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

id {
  p = f32[4] parameter(0)
  ROOT c = f32[4] copy(p)
}

ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  big = f32[4] exponential(y)
  z = f32[] constant(0)
  s = f32[] reduce(x, z), dimensions={0}, to_apply=add
  pos = pred[] compare(s, z), direction=GT
  ROOT c = f32[4] conditional(pos, big, big), true_computation=neg, false_computation=id
}
`

func TestSteering(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		in, out   []string // instructions in the slice, and some that must not be
	}{
		{"scan", scan,
			[]string{"c0", "i", "lt", "n", "next", "one", "p", "t", "z"},
			[]string{"y", "act", "w3", "ws", "x"}},
		{"multi-output fusion", argmaxGather,
			[]string{"f", "idx", "ids", "k", "neg", "q"},
			[]string{"d", "prod", "a", "b", "g"}},
		{"branch selector", branch,
			[]string{"pos", "s", "x", "z"},
			[]string{"big", "y", "n", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := hlo.Parse(tc.name+".hlo", tc.src)
			require.NoError(t, err)
			got := map[string]bool{}
			for in := range analysis.Steering(m) {
				got[in.Name] = true
			}
			var names []string
			for n := range got {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range tc.in {
				require.True(t, got[n], "%s missing from the slice %v", n, names)
			}
			for _, n := range tc.out {
				require.False(t, got[n], "%s in the slice %v", n, names)
			}
		})
	}
}
