package expand_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestExpandRaggedDots: random ragged-dots of the three modes, with and
// without batch dims, group sizes short of the extent, past it and
// negative, and infinities in the operands, expand into dots and selects
// that give the evaluator's bits.
func TestExpandRaggedDots(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	modules := []struct{ text string }{
		{`ENTRY e {
  l = f32[%[1]d,%[2]d] parameter(0)
  r = f32[%[3]d,%[2]d,5] parameter(1)
  g = s64[%[3]d] parameter(2)
  ROOT d = f32[%[1]d,5] ragged-dot(l, r, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}`},
		{`ENTRY e {
  l = f32[2,%[1]d,%[2]d] parameter(0)
  r = f32[2,%[3]d,%[2]d,3] parameter(1)
  g = s32[%[3]d] parameter(2)
  ROOT d = f32[2,%[1]d,3] ragged-dot(l, r, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={1}
}`},
		{`ENTRY e {
  l = f32[3,%[1]d] parameter(0)
  r = f32[%[1]d,4] parameter(1)
  g = s32[%[3]d] parameter(2)
  ROOT d = f32[%[3]d,3,4] ragged-dot(l, r, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
}`},
		{`ENTRY e {
  l = f32[%[1]d,2,%[2]d] parameter(0)
  r = f32[%[1]d,%[2]d,3] parameter(1)
  g = s32[%[3]d] parameter(2)
  ROOT d = f32[%[1]d,2,3] ragged-dot(l, r, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
}`},
		// Groups per position of the context dims ([b..., x..., g]).
		{`ENTRY e {
  l = f32[2,%[1]d,%[2]d] parameter(0)
  r = f32[%[3]d,2,%[2]d,3] parameter(1)
  g = s32[2,%[3]d] parameter(2)
  ROOT d = f32[2,%[1]d,3] ragged-dot(l, r, g), lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}
}`},
		{`ENTRY e {
  l = f32[3,%[1]d,%[2]d] parameter(0)
  r = f32[%[3]d,%[2]d,4] parameter(1)
  g = s64[3,%[3]d] parameter(2)
  ROOT d = f32[3,%[1]d,4] ragged-dot(l, r, g), lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={0}
}`},
		{`ENTRY e {
  l = f32[2,3,%[1]d] parameter(0)
  r = f32[2,%[1]d,4] parameter(1)
  g = s32[2,%[3]d] parameter(2)
  ROOT d = f32[%[3]d,2,3,4] ragged-dot(l, r, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={2}
}`},
		{`ENTRY e {
  l = f32[3,2,%[1]d] parameter(0)
  r = f32[%[1]d,2,4] parameter(1)
  g = s32[2,%[3]d] parameter(2)
  ROOT d = f32[%[3]d,3,4] ragged-dot(l, r, g), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}, lhs_ragged_dims={2}
}`},
		{`ENTRY e {
  l = f32[2,3,%[1]d] parameter(0)
  r = f32[3,2,%[1]d,4] parameter(1)
  g = s32[2,3,%[3]d] parameter(2)
  ROOT d = f32[%[3]d,2,4] ragged-dot(l, r, g), lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={1,2}, rhs_contracting_dims={0,2}, lhs_ragged_dims={2}
}`},
		{`ENTRY e {
  l = f32[2,%[1]d,3,%[2]d] parameter(0)
  r = f32[2,%[1]d,%[2]d,5] parameter(1)
  g = s32[2,%[3]d] parameter(2)
  ROOT d = f32[2,%[1]d,3,5] ragged-dot(l, r, g), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_contracting_dims={2}, lhs_ragged_dims={1}
}`},
	}
	for i := range 300 {
		mod := modules[i%len(modules)]
		n, k, g := int64(1+r.IntN(9)), int64(1+r.IntN(6)), int64(1+r.IntN(4))
		text := "HloModule m\n" + fmt.Sprintf(mod.text, n, k, g)
		name := fmt.Sprintf("case %d", i)
		m, err := hlo.Parse(name, text)
		require.NoError(t, err, text)
		require.NoError(t, verify.Verify(name, m), text)
		args, err := eval.RandomArgs(m, uint64(i))
		require.NoError(t, err)
		sz := args[2]
		for j := range sz.Data {
			v := float64(r.IntN(int(n)+2) - 1) // -1 .. n
			if sz.Shape.Elem == hlo.S64 {
				v = math.Float64frombits(uint64(int64(v)))
			}
			sz.Data[j] = v
		}
		if r.IntN(3) == 0 { // an infinity in the rhs
			args[1].Data[r.IntN(len(args[1].Data))] = math.Inf(1)
		}
		evaltest.RequireExpandsToSameBits(t, name+"\n"+text, m, args, expand.ExpandRaggedDots, "ragged-dot")
	}
}
