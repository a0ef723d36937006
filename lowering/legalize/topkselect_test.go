package legalize_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// TestTopKSelection: a topk of a few of many elements becomes rounds of
// selection (no sort left) that give the evaluator's values and indices:
// ties lower index first, floats in total order (NaNs of both signs, -0
// below +0, infinities), largest and smallest, 16-bit floats, integers,
// rows of several leading dims; a topk of many is still a sort.
func TestTopKSelection(t *testing.T) {
	cases := map[string]string{
		"f32 with NaNs, signed zeros, infinities and ties": `ENTRY e {
  c = f32[2,40] constant({{nan, -nan, -0, 0, inf, -inf, 3, 3, 3, -1, 2, 2, 7, 7, -0, 0, 1, 1, 1, 1, 5, 5, -5, -5, 6, 6, 4, 4, 8, 8, 9, 9, 0, 0, 0, 0, 1, 2, 3, 4}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}})
  p = f32[2,40] parameter(0)
  z = f32[] constant(0)
  zb = f32[2,40] broadcast(z), dimensions={}
  q = f32[2,40] multiply(p, zb)
  x = f32[2,40] add(c, q)
  a = (f32[2,6], s32[2,6]) topk(x), k=6, largest=true
  b = (f32[2,6], s32[2,6]) topk(x), k=6, largest=false
  ROOT t = ((f32[2,6], s32[2,6]), (f32[2,6], s32[2,6])) tuple(a, b)
}`,
		"bf16 rows of a 3-D array": `ENTRY e {
  x = bf16[3,4,100] parameter(0)
  ROOT a = (bf16[3,4,5], s32[3,4,5]) topk(x), k=5, largest=true
}`,
		"s32 smallest": `ENTRY e {
  x = s32[5,64] parameter(0)
  ROOT a = (s32[5,3], s32[5,3]) topk(x), k=3, largest=false
}`,
		"u8 with many ties": `ENTRY e {
  x = u8[4,300] parameter(0)
  ROOT a = (u8[4,7], s32[4,7]) topk(x), k=7, largest=true
}`,
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			evaltest.CheckExpanded(t, name, text, legalize.ExpandTopKs)
			m, err := hlo.Parse(name, text)
			require.NoError(t, err)
			require.NoError(t, legalize.ExpandTopKs(m))
			require.NotContains(t, m.String(), " sort(", "a selection, not a sort")
		})
	}
	m, err := hlo.Parse("many", `ENTRY e {
  x = f32[4,64] parameter(0)
  ROOT a = (f32[4,32], s32[4,32]) topk(x), k=32, largest=true
}`)
	require.NoError(t, err)
	require.NoError(t, legalize.ExpandTopKs(m))
	require.Contains(t, m.String(), " sort(", "32 of 64 is a sort")
}
