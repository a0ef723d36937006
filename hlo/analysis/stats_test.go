package analysis

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/stretchr/testify/require"
)

func TestCosts(t *testing.T) {
	src := `ENTRY e {
  a = bf16[64,128]{1,0} parameter(0)
  b = bf16[128,32]{1,0} parameter(1)
  d = f32[64,32]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  x = f32[1,8,8,16]{3,2,1,0} parameter(2)
  w = f32[3,3,16,4]{3,2,1,0} parameter(3)
  c = f32[1,8,8,4]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  dw = f32[3,3,1,16]{3,2,1,0} parameter(4)
  g = f32[1,8,8,16]{3,2,1,0} convolution(x, dw), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=16
  z = f32[] constant(0)
  r = f32[64]{0} reduce(d, z), dimensions={1}, to_apply=add
  cs = f32[64,32]{1,0} reduce-window(d, z), window={size=1x32 pad=0_0x31_0}, to_apply=add
  ROOT e = f32[64,32]{1,0} exponential(d)
}
`
	m, err := hlo.Parse("c.hlo", src)
	require.NoError(t, err)
	c := m.Entry
	cost := func(name string) Cost {
		for _, in := range c.Instructions {
			if in.Name == name {
				return InstructionCost(c, in, OperandShapes(c, in))
			}
		}
		t.Fatalf("no %s", name)
		return Cost{}
	}
	require.Equal(t, Cost{FLOPs: 2 * 64 * 32 * 128, Bytes: 64*128*2 + 128*32*2 + 64*32*4}, cost("d"))
	require.Equal(t, int64(2*(8*8*4)*(3*3*16)), cost("c").FLOPs)
	require.Equal(t, int64(2*(8*8*16)*(3*3*1)), cost("g").FLOPs, "depthwise: one input feature per output")
	require.Equal(t, int64(64*32), cost("r").FLOPs)
	require.Equal(t, int64(64*32*32), cost("cs").FLOPs, "a cumulative sum: every output folds its 32 window positions")
	require.Equal(t, int64(64*32), cost("e").FLOPs)
	require.Equal(t, Cost{}, cost("z"))
	st := ComputeStats(m)
	require.Equal(t, "dot", st.Ops[0].Opcode)
	require.Equal(t, "convolution", st.Ops[1].Opcode)
	require.Equal(t, 2, st.Ops[1].Count)
	require.Equal(t, 12, st.N)
}
