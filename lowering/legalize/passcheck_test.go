package legalize_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// passOnEntry parses an entry computation's body, runs pass on a clone of
// the module and verifies both; the evaluator's result of the original on
// random arguments is kept so that sameValues can compare the rewrite's.
type passOnEntry struct {
	m, x *hlo.Module
	args []*eval.Value
	want *eval.Value
}

func runPass(t *testing.T, body string, pass func(*hlo.Module) error) *passOnEntry {
	t.Helper()
	src := "HloModule m\nENTRY e {" + body + "\n}\n"
	m, err := hlo.Parse("f.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("f.hlo", m))
	args, err := eval.RandomArgs(m, 3)
	require.NoError(t, err)
	want, err := (&eval.Evaluator{File: "f.hlo", M: m}).Run(args)
	require.NoError(t, err)
	x := m.Clone()
	require.NoError(t, pass(x))
	require.NoError(t, verify.Verify("x.hlo", x))
	return &passOnEntry{m: m, x: x, args: args, want: want}
}

// sameValues requires the rewritten module to compute what the original did.
func (p *passOnEntry) sameValues(t *testing.T) {
	t.Helper()
	got, err := (&eval.Evaluator{File: "x.hlo", M: p.x}).Run(p.args)
	require.NoError(t, err)
	d := check.Compare(eval.Leaves(got)[0], eval.Leaves(p.want)[0])
	require.Zero(t, d.Mismatches, p.x.String())
}

// reparsed parses a whole module, runs pass on a clone and returns the
// original and the rewrite printed and read back, both verified.
func reparsed(t *testing.T, name, text string, pass func(*hlo.Module) error) (m, again *hlo.Module) {
	t.Helper()
	m, err := hlo.Parse(name, text)
	require.NoError(t, err)
	require.NoError(t, verify.Verify(name, m))
	x := m.Clone()
	require.NoError(t, pass(x))
	again, err = hlo.Parse(name+".rewritten", x.String())
	require.NoError(t, err, x.String())
	require.NoError(t, verify.Verify(name+".rewritten", again), x.String())
	return m, again
}
