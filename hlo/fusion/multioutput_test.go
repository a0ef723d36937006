package fusion_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/fusion"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// threefryRounds: two rounds of Threefry's mixing, where every value feeds
// the next round twice (x + y, and y rotated) and the loop state keeps
// both halves: without extra results, one fusion per reuse.
const threefryRounds = `HloModule rounds
ENTRY e {
  x = u32[64,128] parameter(0)
  y = u32[64,128] parameter(1)
  r13 = u32[] constant(13)
  r19 = u32[] constant(19)
  b13 = u32[64,128] broadcast(r13), dimensions={}
  b19 = u32[64,128] broadcast(r19), dimensions={}
  a1 = u32[64,128] add(x, y)
  l1 = u32[64,128] shift-left(y, b13)
  h1 = u32[64,128] shift-right-logical(y, b19)
  o1 = u32[64,128] or(l1, h1)
  y1 = u32[64,128] xor(a1, o1)
  a2 = u32[64,128] add(a1, y1)
  l2 = u32[64,128] shift-left(y1, b19)
  h2 = u32[64,128] shift-right-logical(y1, b13)
  o2 = u32[64,128] or(l2, h2)
  y2 = u32[64,128] xor(a2, o2)
  n = u32[64,128] not(a1)
  ROOT t = (u32[64,128], u32[64,128], u32[64,128]) tuple(a2, y2, n)
}`

// TestMultiOutputFusion: with MultiOutput, the rounds are two loop
// fusions whose results are the values read outside them, each still read
// by its name (a get-tuple-element of the old name); without it, five
// kernels, one per value read twice. Values are unchanged either way.
func TestMultiOutputFusion(t *testing.T) {
	cases := []struct {
		name           string
		multiOutput    bool
		kernels, multi int // instructions that compute, and multi-output fusions
	}{
		{"single results", false, 5, 0},
		{"extra results", true, 2, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := hlo.Parse("r.hlo", threefryRounds)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("r.hlo", m))
			args, err := eval.RandomArgs(m, 7)
			require.NoError(t, err)
			want, err := (&eval.Evaluator{File: "r.hlo", M: m}).Run(args)
			require.NoError(t, err)
			fm, _, err := fusion.FuseWith(m, fusion.FuseOptions{MultiOutput: tc.multiOutput})
			require.NoError(t, err)
			require.NoError(t, verify.Verify("r.hlo", fm), "%s", fm)
			kernels, multi := 0, 0
			for _, in := range fm.Entry.Instructions {
				switch in.Opcode {
				case hlo.OpParameter, hlo.OpTuple, hlo.OpGetTupleElement:
				default:
					kernels++
				}
				if in.Opcode == hlo.OpFusion && in.Shape.IsTuple {
					multi++
				}
			}
			require.Equal(t, tc.kernels, kernels, "%s", fm)
			require.Equal(t, tc.multi, multi, "%s", fm)
			got, err := (&eval.Evaluator{File: "r.hlo", M: fm}).Run(args)
			require.NoError(t, err)
			require.Empty(t, eval.BitDiff(want, got))
		})
	}
}

// TestMultiOutputStaysAcyclic: extra results never make a fusion that
// needs its own result first (a path out of it and back in), nor two
// fusions that need each other's; the module verifies, each operand
// before its users.
func TestMultiOutputStaysAcyclic(t *testing.T) {
	cases := map[string]string{
		// b reads a, and a's fusion would need c, which reads b.
		"path back in": `HloModule p
ENTRY e {
  x = f32[32] parameter(0)
  a = f32[32] add(x, x)
  b = f32[32] negate(a)
  s = f32[] constant(1)
  r = f32[] reduce(b, s), dimensions={0}, to_apply=add
  rb = f32[32] broadcast(r), dimensions={}
  c = f32[32] multiply(a, rb)
  ROOT d = f32[32] add(c, a)
}
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}`,
		// Custom calls keep their order: the second reads a result of
		// the fusion that reads the first.
		"side effects": `HloModule s
ENTRY e {
  x = f32[32] parameter(0)
  y = f32[32] parameter(1)
  a = f32[32] add(x, y)
  h = f32[32] custom-call(a), custom_call_target="MoveToHost"
  d = f32[32] custom-call(y), custom_call_target="MoveToDevice"
  b = f32[32] multiply(a, d)
  ROOT t = (f32[32], f32[32]) tuple(b, h)
}`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := hlo.Parse("c.hlo", src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("c.hlo", m))
			fm, _, err := fusion.FuseWith(m, fusion.FuseOptions{MultiOutput: true})
			require.NoError(t, err)
			require.NoError(t, verify.Verify("c.hlo", fm), "%s", fm)
			seen := map[string]bool{}
			for _, in := range fm.Entry.Instructions {
				for _, o := range in.Operands {
					require.True(t, seen[o.Name], "%s reads %s before it is computed:\n%s", in.Name, o.Name, fm)
				}
				seen[in.Name] = true
			}
		})
	}
}
