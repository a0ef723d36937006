package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReduceReadsViewsOfOperands: a reduce fusion whose operands reach the
// reduced input's shape through reshapes and broadcasts that add dims of
// one (a loss's labels, [N] -> [N,1] -> broadcast along the vocabulary; an
// iota of the vocabulary reshaped to [1,V]) is one reduce kernel reading
// them in place, not a loop kernel materializing [N,V] first; so is one
// whose operand is a reshape into the reduced input's own shape.
func TestReduceReadsViewsOfOperands(t *testing.T) {
	cases := map[string]string{
		"one-hot loss": `HloModule l
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
f {
  logits = f32[64,1000] parameter(0)
  labels = s32[64] parameter(1)
  l1 = s32[64,1] reshape(labels)
  l2 = s32[64,1] broadcast(l1), dimensions={0,1}
  l3 = s32[64] reshape(l2)
  lb = s32[64,1000] broadcast(l3), dimensions={0}
  i = s32[1000] iota(), iota_dimension=0
  i1 = s32[1,1000] reshape(i)
  i2 = s32[1000] reshape(i1)
  ib = s32[64,1000] broadcast(i2), dimensions={1}
  eq = pred[64,1000] compare(lb, ib), direction=EQ
  z = f32[] constant(0)
  zb = f32[64,1000] broadcast(z), dimensions={}
  picked = f32[64,1000] select(eq, logits, zb)
  ROOT r = f32[64] reduce(picked, z), dimensions={1}, to_apply=add
}
ENTRY e {
  x = f32[64,1000] parameter(0)
  y = s32[64] parameter(1)
  ROOT o = f32[64] fusion(x, y), kind=kInput, calls=f
}`,
		"reshaped input": `HloModule r
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
f {
  p = f32[8192] parameter(0)
  x = f32[64,128] reshape(p)
  e = f32[64,128] exponential(x)
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(e, z), dimensions={1}, to_apply=add
}
ENTRY e {
  p = f32[8192] parameter(0)
  ROOT o = f32[64] fusion(p), kind=kInput, calls=f
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) {
				comp := compileFor(t, chip, src)
				require.Empty(t, comp.Split, "one reduce kernel")
				require.Empty(t, comp.Unfused)
				kinds := map[string]int{}
				for _, k := range comp.Kernels {
					kinds[k.Kind]++
				}
				require.Zero(t, kinds["loop"], "no loop kernel materializes the input: %v", comp.Kernels)
				runChecked(t, chip, src)
			})
		}
	}
}
