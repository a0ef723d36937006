package rewrite_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestForwardTupleElements: elements read out of a tuple instruction
// (nested too) are read directly, and the tuple and a workspace of zeros
// nothing else reads are gone; a tuple the root returns stays whole.
func TestForwardTupleElements(t *testing.T) {
	m, err := hlo.Parse("t.hlo", `HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  z = u8[1048576] constant(0)
  ws = u8[1048576] broadcast(z), dimensions={}
  e = f32[4] exponential(a)
  t = (f32[4], u8[1048576]) tuple(e, ws)
  n = ((f32[4], u8[1048576]), f32[4]) tuple(t, a)
  i = (f32[4], u8[1048576]) get-tuple-element(n), index=0
  g = f32[4] get-tuple-element(i), index=0
  h = f32[4] add(g, a)
  k = (f32[4], f32[4]) tuple(h, e)
  ROOT r = ((f32[4], f32[4]), f32[4]) tuple(k, g)
}`)
	require.NoError(t, err)
	rewrite.ForwardTupleElements(m, nil)
	require.NoError(t, verify.Verify("t.hlo", m))
	var names []string
	for _, in := range m.Entry.Instructions {
		names = append(names, in.Name)
	}
	require.Equal(t, []string{"a", "e", "h", "k", "r"}, names)
	require.Equal(t, "e", m.Entry.Instructions[2].Operands[0].Name)
	require.Equal(t, "e", m.Entry.Root.Operands[1].Name)
}
