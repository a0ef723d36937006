package fusion_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/fusion"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

func TestScheduleForMemory(t *testing.T) {
	const layers = 12
	m, err := hlo.Parse("b.hlo", backwardModule(layers))
	require.NoError(t, err)
	require.NoError(t, verify.Verify("b.hlo", m))
	c := m.Entry
	before := peakBytes(c)
	orig := append([]*hlo.Instruction(nil), c.Instructions...)
	fusion.ScheduleForMemory(c)
	after := peakBytes(c)
	t.Logf("peak live bytes: %d printed order, %d scheduled", before, after)
	// Printed: every a_i and g_i live at once (2 x 12 x 16 KiB); scheduled:
	// each g_i's weight gradient runs as soon as g_i exists, so g_i dies
	// when g_(i-1) is made.
	require.GreaterOrEqual(t, before, int64(2*layers*4096*4))
	require.Less(t, after, before*2/3)

	require.Len(t, c.Instructions, len(orig))
	pos := map[string]int{}
	for i, in := range c.Instructions {
		pos[in.Name] = i
		for _, o := range in.Operands {
			_, ok := pos[o.Name]
			require.True(t, ok, "%s runs before its operand %s", in.Name, o.Name)
		}
	}
	require.Equal(t, "p", c.Instructions[0].Name, "parameters first")
	require.Equal(t, c.Root, c.Instructions[len(c.Instructions)-1], "root last")
	require.Less(t, pos["s0"], pos["s1"], "side effects keep their order")
	// Deterministic.
	m2, _ := hlo.Parse("b.hlo", backwardModule(layers))
	fusion.ScheduleForMemory(m2.Entry)
	for i := range c.Instructions {
		require.Equal(t, c.Instructions[i].Name, m2.Entry.Instructions[i].Name)
	}
	// The schedule changes no value.
	m3, _ := hlo.Parse("b.hlo", backwardModule(layers))
	args, err := eval.RandomArgs(m3, 1)
	require.NoError(t, err)
	want, err := (&eval.Evaluator{File: "b.hlo", M: m3}).Run(args)
	require.NoError(t, err)
	got, err := (&eval.Evaluator{File: "b.hlo", M: m}).Run(args)
	require.NoError(t, err)
	for i := range want.Tuple {
		require.Equal(t, want.Tuple[i].Data, got.Tuple[i].Data)
	}
}
