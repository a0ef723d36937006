package legalize_test

import (
	"fmt"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// reduceModule is a module reducing x (elem, shape) to out over dims
// with a reducer of one op, from init.
func reduceModule(elem, shape, out, dims, op, init string) string {
	return fmt.Sprintf(`HloModule r
red {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT c = %[1]s[] %[5]s(a, b)
}
ENTRY e {
  x = %[1]s%[2]s parameter(0)
  i = %[1]s[] constant(%[6]s)
  ROOT r = %[1]s%[3]s reduce(x, i), dimensions=%[4]s, to_apply=red
}
`, elem, shape, out, dims, op, init)
}

func TestSplitReductions(t *testing.T) {
	mod := reduceModule
	cases := map[string]string{
		"batch-norm statistics": mod("f32", "[6,4,5,5]", "[4]", "{0,2,3}", "add", "0"),
		"non-identity init":     mod("f32", "[3,4,5]", "[4]", "{0,2}", "add", "2.5"),
		"max, unsorted dims":    mod("f32", "[3,4,5,2]", "[4]", "{3,0,2}", "maximum", "-inf"),
		"three runs":            mod("f32", "[2,3,2,3,2]", "[3,3]", "{0,2,4}", "add", "0"),
		"s32 min":               mod("s32", "[4,3,5]", "[3]", "{0,2}", "minimum", "2147483647"),
		"pred and":              mod("pred", "[4,3,5]", "[3]", "{0,2}", "and", "true"),
		"one run: unchanged":    mod("f32", "[3,4,5]", "[3]", "{1,2}", "add", "0"),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) { evaltest.CheckExpanded(t, name, text, legalize.SplitReductions) })
	}
	// The split really happens.
	m, err := hlo.Parse("r.hlo", cases["three runs"])
	require.NoError(t, err)
	require.NoError(t, legalize.SplitReductions(m))
	n := 0
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpReduce {
			n++
		}
	}
	require.Equal(t, 3, n)

	// long runs split when a limit is given, and only then.
	long := mod("f32", "[3,8,6,5]", "[3]", "{1,2,3}", "add", "1.5")
	t.Run("long run", func(t *testing.T) {
		evaltest.CheckExpanded(t, "long run", long, func(m *hlo.Module) error { return legalize.SplitReductionRuns(m, 32) })
	})
	count := func(maxRun int64) (n int) {
		m, err := hlo.Parse("r.hlo", long)
		require.NoError(t, err)
		require.NoError(t, legalize.SplitReductionRuns(m, maxRun))
		for _, in := range m.Entry.Instructions {
			if in.Opcode == hlo.OpReduce {
				n++
			}
		}
		return n
	}
	require.Equal(t, 1, count(0))
	require.Equal(t, 2, count(30))  // {2,3} then {1}
	require.Equal(t, 4, count(6))   // 8 cut into 2 x 4: {4}, {3}, {2}, {1}
	require.Equal(t, 1, count(240)) // fits
	// Dimensions longer than the limit are cut into blocks: 8 into 2 x 4
	// (a divisor), 6 into 2 x 3, 5 into 2 x 3 padded by one; each block
	// dimension is a reduction of its own.
	require.Equal(t, 6, count(4))
	t.Run("long dims blocked", func(t *testing.T) {
		evaltest.CheckExpanded(t, "long dims blocked", long, func(m *hlo.Module) error { return legalize.SplitReductionRuns(m, 4) })
	})
	for name, text := range map[string]string{
		"max blocked, padded with -inf":      mod("f32", "[2,13]", "[2]", "{1}", "maximum", "-inf"),
		"s32 sum blocked twice":              mod("s32", "[50,3]", "[3]", "{0}", "add", "5"),
		"pred or blocked":                    mod("pred", "[3,11]", "[3]", "{1}", "or", "false"),
		"s8 max blocked, padded with -128":   mod("s8", "[2,13]", "[2]", "{1}", "maximum", "-128"),
		"u16 min blocked, padded with 65535": mod("u16", "[2,13]", "[2]", "{1}", "minimum", "65535"),
	} {
		t.Run(name, func(t *testing.T) {
			evaltest.CheckExpanded(t, name, text, func(m *hlo.Module) error { return legalize.SplitReductionRuns(m, 3) })
		})
	}
}
