package legalize_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/lowering/legalize"
)

// TestNarrowPromotedCombiners: XLA CPU's promoted bf16 combiners (convert
// both to f32, one op, convert back) become the op on bf16, for a reduce
// and a scatter, with the evaluator's values; a combiner that does more
// is left alone.
func TestNarrowPromotedCombiners(t *testing.T) {
	comb := func(op string) string {
		return fmt.Sprintf(`comb {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ca = f32[] convert(a)
  cb = f32[] convert(b)
  s = f32[] %s(cb, ca)
  ROOT r = bf16[] convert(s)
}
`, op)
	}
	reduce := func(op string) string {
		return "HloModule m\n" + comb(op) + `ENTRY e {
  x = bf16[8,16] parameter(0)
  i = bf16[] constant(0)
  ROOT r = bf16[8] reduce(x, i), dimensions={1}, to_apply=comb
}
`
	}
	scatter := "HloModule m\n" + comb("add") + `ENTRY e {
  x = bf16[6,4] parameter(0)
  i = s32[5,1] constant({{0},{2},{2},{5},{1}})
  u = bf16[5,4] parameter(1)
  ROOT s = bf16[6,4] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=comb
}
`
	for _, c := range []struct {
		name, text string
		narrowed   bool
	}{
		{"reduce, add", reduce("add"), true},
		{"reduce, maximum", reduce("maximum"), true},
		{"scatter-add", scatter, true},
		{"another op: left", reduce("subtract"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			evaltest.CheckExpanded(t, c.name, c.text, legalize.NarrowPromotedCombiners)
			m, err := hlo.Parse("m.hlo", c.text)
			require.NoError(t, err)
			require.NoError(t, legalize.NarrowPromotedCombiners(m))
			require.Equal(t, c.narrowed, len(m.Computation("comb").Instructions) == 3, "%s", m)
		})
	}
}
