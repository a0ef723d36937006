package analysis_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// TestNeverEnds (issue 44, 6): a while whose condition is the constant
// true and whose body nothing outside can stop is refused at once by the
// evaluator (the compiler refuses it too: lowering's TestWhileTrueRefused);
// one that reads an infeed may end when the feed runs dry, and runs.
func TestNeverEnds(t *testing.T) {
	src, err := os.ReadFile("testdata/while_true.hlo")
	require.NoError(t, err)
	m, err := hlo.Parse("w.hlo", string(src))
	require.NoError(t, err)
	require.NoError(t, verify.Verify("w.hlo", m))
	w := m.Entry.Root.Operands[0]
	require.True(t, analysis.NeverEnds(m, m.Entry.Instructions[3]), w.Name)
	args, err := eval.RandomArgs(m, 1)
	require.NoError(t, err)
	_, err = (&eval.Evaluator{File: "w.hlo", M: m}).Run(args)
	require.EqualError(t, err, "w.hlo:18:3: w: while: the loop never ends: its condition is the constant true, and nothing in its body (no infeed or recv) can stop it")

	fed, err := hlo.Parse("f.hlo", `HloModule m
cond {
  p = f32[4] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  p = f32[4] parameter(0)
  tok = token[] after-all()
  in = (f32[4], token[]) infeed(tok)
  ROOT x = f32[4] get-tuple-element(in), index=0
}
ENTRY e {
  a = f32[4] parameter(0)
  ROOT w = f32[4] while(a), condition=cond, body=body
}`)
	require.NoError(t, err)
	require.False(t, analysis.NeverEnds(fed, fed.Entry.Root))
}

// TestDeepNestedCalls (issue 44, 7): 20,000 nested calls, callers first,
// inline whole (a depth cap left the calls past 64 levels, which the
// compiler refused as "not lowered yet"), in time linear in the nesting
// (looking up a computation by name scanned them all: 100,000 levels took
// 52 s to format).
func TestDeepNestedCalls(t *testing.T) {
	const n = 20000
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT c = f32[4] call(a), to_apply=c%d\n}\n", n-1)
	for i := n - 1; i > 0; i-- {
		fmt.Fprintf(&b, "c%d {\n  p = f32[4] parameter(0)\n  ROOT c = f32[4] call(p), to_apply=c%d\n}\n", i, i-1)
	}
	b.WriteString("c0 {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n")
	m, err := hlo.Parse("n.hlo", b.String())
	require.NoError(t, err)
	require.NoError(t, verify.Verify("n.hlo", m))
	legalize.InlineCalls(m)
	for _, in := range m.Entry.Instructions {
		require.NotEqual(t, "call", in.Opcode)
	}
	require.Equal(t, "negate", m.Entry.Root.Opcode)
}

// TestLoopStateUnchanged (issue 44, 6): a loop whose condition depends on
// its state, and whose body leaves that state as it was, is stopped at the
// first repeat, not after a million iterations; one that changes it runs.
func TestLoopStateUnchanged(t *testing.T) {
	const tmpl = `HloModule m
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  k = s32[] constant(STEP)
  j = s32[] add(i, k)
  x = f32[4] get-tuple-element(p), index=1
  ROOT r = (s32[], f32[4]) tuple(j, x)
}
ENTRY e {
  z = s32[] constant(0)
  a = f32[4] parameter(0)
  t = (s32[], f32[4]) tuple(z, a)
  w = (s32[], f32[4]) while(t), condition=cond, body=body
  ROOT o = f32[4] get-tuple-element(w), index=1
}`
	for step, want := range map[string]string{"0": "w.hlo:20:3: w: while: the loop never ends: its state did not change in iteration 1 and its condition still holds", "1": ""} {
		m, err := hlo.Parse("w.hlo", strings.Replace(tmpl, "STEP", step, 1))
		require.NoError(t, err)
		require.NoError(t, verify.Verify("w.hlo", m))
		args, err := eval.RandomArgs(m, 1)
		require.NoError(t, err)
		_, err = (&eval.Evaluator{File: "w.hlo", M: m}).Run(args)
		if want == "" {
			require.NoError(t, err)
		} else {
			require.EqualError(t, err, want)
		}
	}
}
