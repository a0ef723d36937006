package hlo_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// Computations written in place as attribute values (XLA's own tests write
// them so) become computations of the module, named after their
// instruction and attribute, callees first.
func TestParseInlineComputations(t *testing.T) {
	src := `HloModule main

ENTRY main {
  arg.0 = f32[4] parameter(0)
  add.0 = f32[4] add(arg.0, arg.0)
  call.0 = (f32[4], f32[4]) call(add.0, add.0), to_apply={
    arg.0 = f32[4] parameter(0)
    arg.1 = f32[4] parameter(1)
    ROOT fusion.0 = (f32[4], f32[4]) fusion(arg.0, arg.1), kind=kLoop, calls={
      arg.0 = f32[4] parameter(0)
      arg.1 = f32[4] parameter(1)
      n = f32[4] negate(arg.1)
      ROOT tuple.0 = (f32[4], f32[4]) tuple(arg.0, n)
    }
  }
  ROOT g = f32[4] get-tuple-element(call.0), index=1
}
`
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("t.hlo", m))
	var names []string
	for _, c := range m.Computations {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"fusion.0.calls", "call.0.to_apply", "main"}, names)
	require.Equal(t, "main", m.Entry.Name)
	v := evaltest.Run(t, m.String(), eval.Array("f32", []int64{4}, 1, 2, 3, 4))
	require.Equal(t, []float64{-2, -4, -6, -8}, v.Data)
	// Printed, it reads back the same.
	m2, err := hlo.Parse("printed", m.String())
	require.NoError(t, err)
	require.Equal(t, m.String(), m2.String())

	// Nesting is bounded, with a positioned error.
	deep := "ENTRY e {\n  ROOT a = f32[] parameter(0)"
	for range 40 {
		deep += ", to_apply={\n b = f32[] parameter(0)"
	}
	_, err = hlo.Parse("t.hlo", deep+"\n}\n")
	require.ErrorContains(t, err, "inline computations nest more than 32 deep")
}

// TestParseNestedOperands: an instruction written in place of an operand
// (XLA's tests write "rng(f32[] constant(0), f32[] constant(1))") becomes
// an instruction of its own before its holder, named after the holder and
// its opcode, with its attributes (only "name=value" ones: the comma
// before the holder's next operand ends it) and its shape inferred when
// left out; the module evaluates as the one written out. Nesting deeper
// than MaxInlineDepth is a positioned error, not a stack overflow.
func TestParseNestedOperands(t *testing.T) {
	nested := `HloModule m
ENTRY e {
  x = f32[2,3] broadcast(f32[2] parameter(0)), dimensions={0}
  y = f32[2,3] add(x, f32[2,3] broadcast(f32[] constant(1.5)), dimensions={})
  c = pred[] compare(s32[] parameter(1), s32[] constant(5)), direction=LT
  ROOT t = tuple(y, c, add(y, y))
}`
	written := `HloModule m
ENTRY e {
  x.parameter = f32[2] parameter(0)
  x = f32[2,3] broadcast(x.parameter), dimensions={0}
  y.constant = f32[] constant(1.5)
  y.broadcast = f32[2,3] broadcast(y.constant), dimensions={}
  y = f32[2,3] add(x, y.broadcast)
  c.parameter = s32[] parameter(1)
  c.constant = s32[] constant(5)
  c = pred[] compare(c.parameter, c.constant), direction=LT
  t.add = f32[2,3] add(y, y)
  ROOT t = (f32[2,3], pred[], f32[2,3]) tuple(y, c, t.add)
}`
	m, err := hlo.Parse("n.hlo", nested)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("n.hlo", m))
	w, err := hlo.Parse("w.hlo", written)
	require.NoError(t, err)
	var names []string
	for _, in := range m.Entry.Instructions {
		names = append(names, in.Name)
	}
	require.Equal(t, []string{"x.parameter", "x", "y.constant", "y.broadcast", "y", "c.parameter", "c.constant", "c", "t.add", "t"}, names)
	args := []*eval.Value{{Shape: &hlo.Shape{Elem: "f32", Dims: []int64{2}}, Data: []float64{1, -2}}, {Shape: &hlo.Shape{Elem: "s32"}, Data: []float64{3}}}
	got, err := (&eval.Evaluator{File: "n.hlo", M: m}).Run(args)
	require.NoError(t, err)
	want, err := (&eval.Evaluator{File: "w.hlo", M: w}).Run(args)
	require.NoError(t, err)
	require.Empty(t, eval.BitDiff(want, got), "nested")

	// Two of one opcode in one holder get numbered names.
	m, err = hlo.Parse("n.hlo", "ENTRY e {\n  ROOT a = f32[] add(f32[] constant(1), f32[] constant(2))\n}")
	require.NoError(t, err)
	require.Equal(t, "a.constant", m.Entry.Instructions[0].Name)
	require.Equal(t, "a.constant.2", m.Entry.Instructions[1].Name)

	deep := "ENTRY e {\n  ROOT a = f32[] negate(" + strings.Repeat("negate(", 5000) + "f32[] constant(1)" + strings.Repeat(")", 5001) + "\n}"
	start := time.Now()
	_, err = hlo.Parse("deep.hlo", deep)
	require.ErrorContains(t, err, "deep.hlo:2:")
	require.ErrorContains(t, err, "instructions written as operands nest more than 32 deep")
	require.Less(t, time.Since(start), 2*time.Second)
}
