package lowering_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEpilogueInRegisters: a dot's epilogue keeps its intermediate values
// in the vector registers where the chip has them and a tile's values fit
// them at once (a GELU's ten ops each read two tiles and wrote one through
// the SRAM banks); the loaded operand and the stored result stay in SRAM;
// the values are the evaluator's, on chips with registers and without.
func TestEpilogueInRegisters(t *testing.T) {
	const src = `HloModule m
f {
  a = bf16[128,256] parameter(0)
  w = bf16[256,512] parameter(1)
  bias = bf16[512] parameter(2)
  d = bf16[128,512] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = bf16[128,512] broadcast(bias), dimensions={1}
  x = bf16[128,512] add(d, bb)
  x3 = bf16[128,512] multiply(x, x)
  x4 = bf16[128,512] multiply(x3, x)
  c = bf16[] constant(0.0447)
  cb = bf16[128,512] broadcast(c), dimensions={}
  y = bf16[128,512] multiply(x4, cb)
  z = bf16[128,512] add(x, y)
  th = bf16[128,512] tanh(z)
  ROOT r = bf16[128,512] multiply(x, th)
}
ENTRY e {
  a = bf16[128,256] parameter(0)
  w = bf16[256,512] parameter(1)
  bias = bf16[512] parameter(2)
  ROOT o = bf16[128,512] fusion(a, w, bias), kind=kOutput, calls=f
}`
	for _, chip := range []string{"tpuv4core", "trn1nc"} {
		t.Run(chip, func(t *testing.T) {
			x, _ := compileRunChecked(t, chip, nil, src)
			inRegs := strings.Contains(x.Compiled.Asm, "vtanh   vreg[")
			require.Equal(t, chip == "tpuv4core", inRegs, "the epilogue's values in registers")
			if inRegs {
				require.Contains(t, x.Compiled.Asm, "vmul    sram[", "the result written to SRAM for its store")
			}
		})
	}
}

// TestEpilogueSelectInRegisters: a select in an epilogue is a copy of one
// operand and then a vsel of the other over it; its result in the
// registers must not take the slot of an operand dying there, or the
// copy overwrites the other before the vsel reads it (GPT-2's LM head came
// out wrong so). The values are the evaluator's.
func TestEpilogueSelectInRegisters(t *testing.T) {
	const src = `HloModule m
f {
  a = f32[128,256] parameter(0)
  w = f32[256,128] parameter(1)
  d = f32[128,128] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  one = f32[] constant(1)
  ones = f32[128,128] broadcast(one), dimensions={}
  x = f32[128,128] add(d, ones)
  y = f32[128,128] multiply(x, x)
  p = pred[128,128] compare(y, ones), direction=GT
  s = f32[128,128] select(p, y, x)
  ROOT r = f32[128,128] add(s, x)
}
ENTRY e {
  a = f32[128,256] parameter(0)
  w = f32[256,128] parameter(1)
  ROOT o = f32[128,128] fusion(a, w), kind=kOutput, calls=f
}`
	x, _ := compileRunChecked(t, "tpuv4core", nil, src)
	require.Contains(t, x.Compiled.Asm, "vsel    vreg[", "the select's result in the registers")
}
