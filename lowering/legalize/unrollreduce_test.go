package legalize_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/lowering/legalize"
)

// TestUnrollNarrowReductions: a short reduced dimension between kept ones,
// under more outer rows than a reduce kernel makes passes (or under
// enough of them that are each small), becomes
// elementwise ops over its slices, with the evaluator's values; others
// are left as they are.
func TestUnrollNarrowReductions(t *testing.T) {
	mod := reduceModule
	cases := []struct {
		name, text string
		unrolled   bool
	}{
		{"grouped-query heads", mod("f32", "[2,2100,2,3]", "[2,2100,3]", "{2}", "add", "0.5"), true},
		{"max over 3", mod("f32", "[4200,3,2]", "[4200,2]", "{1}", "maximum", "-inf"), true},
		{"s32 min", mod("s32", "[4100,2,2]", "[4100,2]", "{1}", "minimum", "2147483647"), true},
		{"few outer rows: a kernel's passes", mod("f32", "[6,2,3]", "[6,3]", "{1}", "add", "0"), false},
		{"many small passes (MoE's sum over 2 experts)", mod("f32", "[64,2,8]", "[64,8]", "{1}", "add", "0"), true},
		{"many passes, each large: the kernel's", mod("f32", "[64,2,4096]", "[64,4096]", "{1}", "add", "0"), false},
		{"the last dimension: rows", mod("f32", "[4200,2]", "[4200]", "{1}", "add", "0"), false},
		{"too long to unroll", mod("f32", "[4200,16,2]", "[4200,2]", "{1}", "add", "0"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evaltest.CheckExpanded(t, c.name, c.text, legalize.UnrollNarrowReductions)
			m, err := hlo.Parse("r.hlo", c.text)
			require.NoError(t, err)
			require.NoError(t, legalize.UnrollNarrowReductions(m))
			reduces := 0
			for _, in := range m.Entry.Instructions {
				if in.Opcode == hlo.OpReduce {
					reduces++
				}
			}
			require.Equal(t, c.unrolled, reduces == 0)
		})
	}
}
