package lowering_test

import (
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/stretchr/testify/require"
)

// TestScalarConstantsAsImmediates: multiplies, adds and subtracts by a
// broadcast scalar constant, in a loop kernel and in a dot's epilogue,
// are vscales reading one tile, with no tile filled with the constant,
// and give the evaluator's bits, signed zeros included (x*0 of a negative
// x is -0, which x*0 + 0 would make +0).
func TestScalarConstantsAsImmediates(t *testing.T) {
	cases := []struct{ name, src string }{
		{"loop", `HloModule l
ENTRY e {
  i = s32[64,128] iota(), iota_dimension=1
  f = f32[64,128] convert(i)
  k = f32[] constant(64)
  kb = f32[64,128] broadcast(k), dimensions={}
  x = f32[64,128] subtract(f, kb)
  zero = f32[] constant(0)
  zb = f32[64,128] broadcast(zero), dimensions={}
  z = f32[64,128] multiply(x, zb)
  h = bf16[64,128] convert(x)
  half = bf16[] constant(0.5)
  hb = bf16[64,128] broadcast(half), dimensions={}
  y = bf16[64,128] multiply(hb, h)
  one = bf16[] constant(1)
  ob = bf16[64,128] broadcast(one), dimensions={}
  w = bf16[64,128] subtract(ob, y)
  ROOT t = (f32[64,128], bf16[64,128]) tuple(z, w)
}`},
		{"dot epilogue", `HloModule d
ENTRY e {
  i = s32[128,128] iota(), iota_dimension=1
  f = bf16[128,128] convert(i)
  k = bf16[] constant(-64)
  kb = bf16[128,128] broadcast(k), dimensions={}
  a = bf16[128,128] add(f, kb)
  d = f32[128,128] dot(a, f), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  zb = f32[128,128] broadcast(zero), dimensions={}
  z = f32[128,128] multiply(d, zb)
  c = f32[] constant(0.044715)
  cb = f32[128,128] broadcast(c), dimensions={}
  ROOT y = f32[128,128] subtract(z, cb)
}`},
	}
	for _, tc := range cases {
		m, err := hlo.Parse("t.hlo", tc.src)
		require.NoError(t, err)
		want, err := (&eval.Evaluator{File: "t.hlo", M: m}).Run(nil)
		require.NoError(t, err)
		wants := eval.Leaves(want)
		for _, chip := range chips {
			t.Run(tc.name+"/"+chip, func(t *testing.T) {
				comp := compileFor(t, chip, tc.src)
				require.Contains(t, comp.Asm, "vscale")
				require.NotContains(t, comp.Asm, "vfill", "no constant is filled")
				outs, _ := rawOutputs(t, chip, tc.src)
				require.Len(t, outs, len(wants))
				for o := range wants {
					for i, v := range outs[o] {
						w := wants[o].Data[i]
						require.Equal(t, math.Float64bits(w), math.Float64bits(v), "output %d [%d]: %v, want %v", o, i, v, w)
					}
				}
			})
		}
	}
}
