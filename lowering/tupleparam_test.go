package lowering_test

import (
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// A tuple parameter (nested too) is its arrays, each its own tensor:
// values checked against the evaluator on both chips, and a timing-only
// run without inputs marks them all unknown.
func TestTupleParameters(t *testing.T) {
	src := `HloModule tp
ENTRY main {
  p = (f32[4,8], (s32[3], f32[8])) parameter(0)
  q = f32[4,8] parameter(1)
  a = f32[4,8] get-tuple-element(p), index=0
  t = (s32[3], f32[8]) get-tuple-element(p), index=1
  i = s32[3] get-tuple-element(t), index=0
  b = f32[8] get-tuple-element(t), index=1
  bb = f32[4,8] broadcast(b), dimensions={1}
  s = f32[4,8] add(a, bb)
  m = f32[4,8] multiply(s, q)
  ROOT r = (f32[4,8], s32[3]) tuple(m, i)
}`
	for _, chip := range []string{"teach16", "tpuv4core"} {
		runChecked(t, chip, src)
	}
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	c, err := config.Load("teach16", nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	x, err := client.Compile("t.hlo", m)
	require.NoError(t, err)
	require.Len(t, x.Inputs, 2)
	require.Len(t, x.Inputs[0].Leaves, 3)
	r, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true})
	require.NoError(t, err)
	require.Positive(t, r.Report.Cycles)
	// A tuple argument of the wrong arity is refused, not misread.
	args, err := eval.RandomArgs(m, 1)
	require.NoError(t, err)
	args[0].Tuple = args[0].Tuple[:1]
	_, err = client.Execute(x, args, runtime.ExecOptions{})
	require.ErrorContains(t, err, "does not have the parameter's shape")
}

// TestNestedTupleResult: a nested tuple result's arrays are the outputs,
// depth first, as eval.Leaves numbers the evaluator's.
func TestNestedTupleResult(t *testing.T) {
	src := `ENTRY e {
  p = f32[4,8] parameter(0)
  q = s32[3] parameter(1)
  n = f32[4,8] negate(p)
  i = (f32[4,8], s32[3]) tuple(n, q)
  z = () tuple()
  ROOT r = ((f32[4,8], s32[3]), f32[4,8], ()) tuple(i, p, z)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			r := runChecked(t, chip, src)
			require.Len(t, r.Outputs, 3)
		})
	}
}
