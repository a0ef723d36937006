// Package evaltest holds what tests of passes and expansions need from the
// reference evaluator (the tests of package hlo judge a rewrite by
// evaluating the module before and after it).
package evaltest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo/eval"
)

// Run evaluates the HLO module src on args, failing t on any error.
func Run(t testing.TB, src string, args ...*eval.Value) *eval.Value {
	t.Helper()
	v, err := eval.EvaluateText("e.hlo", src, args...)
	require.NoError(t, err)
	return v
}
