package legalize_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

func TestSplitTupleLiteral(t *testing.T) {
	for _, c := range []struct {
		lit   string
		parts []string
		ok    bool
	}{
		{"(1.0, {2.0, 3.0})", []string{"1.0", "{2.0, 3.0}"}, true},
		{"( { { 1 }, { 2 } }, {2} )", []string{"{ { 1 }, { 2 } }", "{2}"}, true},
		{"((1, 2), 3)", []string{"(1, 2)", "3"}, true},
		{"()", nil, true},
		{"(1, {2)", nil, false},
		{"{1, 2}", nil, false},
	} {
		parts, ok := hlo.SplitTupleLiteral(c.lit)
		require.Equal(t, c.ok, ok, c.lit)
		require.Equal(t, c.parts, parts, c.lit)
	}
}

// Tuple constants, nested too, evaluate element by element, and the
// rewrite for the lowering (a constant per element and their tuple) gives
// the same bits.
func TestTupleConstants(t *testing.T) {
	src := `HloModule m
ENTRY e {
  c = (f32[], (s32[2], f32[2,1])) constant((1.5, ({7, -3}, {{2}, {4}})))
  a = (s32[2], f32[2,1]) get-tuple-element(c), index=1
  ROOT b = f32[2,1] get-tuple-element(a), index=1
}`
	v := evaltest.Run(t, src)
	require.Equal(t, []float64{2, 4}, v.Data)
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	evaltest.RequireExpandsToSameBits(t, "tuple constants", m, nil, legalize.SplitTupleConstants, "no-such-op")
	e := m.Clone()
	require.NoError(t, legalize.SplitTupleConstants(e))
	for _, in := range e.Entry.Instructions {
		require.False(t, in.Opcode == hlo.OpConstant && in.Shape.IsTuple, "a tuple constant is left")
	}
	bad, err := hlo.Parse("t.hlo", "ENTRY e {\n  ROOT c = (f32[], f32[]) constant((1))\n}\n")
	require.NoError(t, err)
	_, err = (&eval.Evaluator{File: "t.hlo", M: bad}).Run(nil)
	require.ErrorContains(t, err, "does not hold the 2 elements")
}
