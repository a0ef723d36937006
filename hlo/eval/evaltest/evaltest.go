// Package evaltest holds what tests of passes and expansions need from the
// reference evaluator (the tests of package hlo judge a rewrite by
// evaluating the module before and after it).
package evaltest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/rewrite"
	"github.com/pulse-sim/pulse/hlo/verify"
)

// Run evaluates the HLO module src on args, failing t on any error.
func Run(t testing.TB, src string, args ...*eval.Value) *eval.Value {
	t.Helper()
	v, err := eval.EvaluateText("e.hlo", src, args...)
	require.NoError(t, err)
	return v
}

// CheckExpanded: the expanded module verifies, holds no instruction of the
// kind expanded and evaluates within the result type's tolerance of the
// original.
func CheckExpanded(t testing.TB, name, text string, expansion func(*hlo.Module) error) {
	t.Helper()
	m, err := hlo.Parse(name, text)
	require.NoError(t, err)
	require.NoError(t, verify.Verify(name, m))
	args, err := eval.RandomArgs(m, 3)
	require.NoError(t, err)
	want, err := (&eval.Evaluator{File: name, M: m, MaxWhileIterations: 1000}).Run(args)
	require.NoError(t, err)

	x := m.Clone()
	require.NoError(t, expansion(x))
	again, err := hlo.Parse(name+".expanded", x.String())
	require.NoError(t, err, x.String())
	require.NoError(t, verify.Verify(name+".expanded", again), x.String())
	for _, c := range again.Computations {
		for _, op := range []string{"convolution", "batch-norm-training", "batch-norm-inference", "batch-norm-grad", "reduce-window"} {
			require.False(t, rewrite.HasOpcode(c, op), "a %s is left", op)
		}
	}
	got, err := (&eval.Evaluator{File: name + ".expanded", M: again, MaxWhileIterations: 1000}).Run(args)
	require.NoError(t, err)
	RequireClose(t, name, want, got)
}

// RequireClose: want and got have the same shapes and agree within the
// result type's tolerance (eval.Compare).
func RequireClose(t testing.TB, name string, want, got *eval.Value) {
	t.Helper()
	require.Equal(t, len(want.Tuple), len(got.Tuple), name)
	for i := range want.Tuple {
		RequireClose(t, name, want.Tuple[i], got.Tuple[i])
	}
	require.Equal(t, want.Shape.Elem, got.Shape.Elem, name)
	require.Equal(t, want.Shape.Dims, got.Shape.Dims, name)
	d := check.Compare(got, want)
	require.Zero(t, d.Mismatches, "%s: %d elements beyond tolerance; first at %d: %v, want %v", name, d.Mismatches, d.First, d.FirstGot, d.FirstWant)
}

// RequireExpandsToSameBits checks that expansion leaves no opcode in m's
// entry and that the expanded module, printed and read back, evaluates
// to the original's bits on args.
func RequireExpandsToSameBits(t testing.TB, name string, m *hlo.Module, args []*eval.Value, expansion func(*hlo.Module) error, opcode string) {
	t.Helper()
	want, err := (&eval.Evaluator{File: name, M: m}).Run(args)
	require.NoError(t, err)
	e := m.Clone()
	require.NoError(t, expansion(e))
	again, err := hlo.Parse(name+".expanded", e.String())
	require.NoError(t, err, e.String())
	require.NoError(t, verify.Verify(name+".expanded", again), e.String())
	require.False(t, rewrite.HasOpcode(again.Entry, opcode))
	got, err := (&eval.Evaluator{File: name, M: again}).Run(args)
	require.NoError(t, err)
	require.Empty(t, eval.BitDiff(want, got), name)
}
