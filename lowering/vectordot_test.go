package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestVectorDotsOnChips: dots the matrix units do not multiply
// (legalize.ExpandVectorDots) give the evaluator's results: integer dots of
// every width (wrapping), pred, batch dims, mixed operand types.
func TestVectorDotsOnChips(t *testing.T) {
	cases := []struct{ name, src string }{
		{"s32", `ENTRY e {
  a = s32[5,7] parameter(0)
  b = s32[7,3] parameter(1)
  ROOT d = s32[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`},
		{"u8 into u32 with batch dims", `ENTRY e {
  a = u8[2,4,6] parameter(0)
  b = u8[2,6,5] parameter(1)
  ROOT d = u32[2,4,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}`},
		{"s16 into s16 (wraps)", `ENTRY e {
  a = s16[3,40] parameter(0)
  c = s16[] constant(1000)
  cb = s16[3,40] broadcast(c), dimensions={}
  m = s16[3,40] multiply(a, cb)
  b = s16[40,2] parameter(1)
  ROOT d = s16[3,2] dot(m, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`},
		{"pred", `ENTRY e {
  a = pred[4,3] parameter(0)
  b = pred[3,4] parameter(1)
  ROOT d = pred[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`},
		{"outer product (no contracting dims)", `ENTRY e {
  a = s32[3] parameter(0)
  b = s32[4] parameter(1)
  ROOT d = s32[3,4] dot(a, b), lhs_contracting_dims={}, rhs_contracting_dims={}
}`},
		{"contracting dims apart (operands transposed first)", `ENTRY e {
  a = f32[3,5,4,2] parameter(0)
  b = f32[2,6,3] parameter(1)
  ROOT d = f32[5,4,6] dot(a, b), lhs_contracting_dims={0,3}, rhs_contracting_dims={2,0}
}`},
		{"bf16 x f32", `ENTRY e {
  a = bf16[8,16] parameter(0)
  b = f32[16,4] parameter(1)
  ROOT d = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`},
		{"s8 x bf16 into f32", `ENTRY e {
  a = s8[8,16] parameter(0)
  b = bf16[4,16] parameter(1)
  ROOT d = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`},
	}
	for _, c := range cases {
		for _, chip := range chips {
			t.Run(c.name+"/"+chip, func(t *testing.T) { runChecked(t, chip, c.src) })
		}
	}
	// f64 on the chip whose vector unit has f64 arithmetic.
	t.Run("f64/tpuv4core", func(t *testing.T) {
		runChecked(t, "tpuv4core", `ENTRY e {
  x = f64[4,3] parameter(0)
  y = f64[3,6] parameter(1)
  ROOT d = f64[4,6] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`)
	})
}

// TestOuterProductDots: a dot that contracts nothing (a batched outer
// product: MoE tokens times their routing weights) is elementwise
// products on the vector unit, one loop kernel whose broadcast operands
// load as whole rows (their dims of one dropped from the DMA: a trailing
// [.., 1] of stride 0 had made every element a burst), in a fifth of the
// cycles the matrix unit's one-deep passes took; values the evaluator's.
func TestOuterProductDots(t *testing.T) {
	src := `ENTRY e {
  x = f32[64,128] parameter(0)
  w = f32[64,8] parameter(1)
  ROOT d = f32[64,128,8] dot(x, w), lhs_batch_dims={0}, lhs_contracting_dims={}, rhs_batch_dims={0}, rhs_contracting_dims={}
}`
	for _, chip := range []string{"tpuv4core", "teach16", "trn1nc"} {
		t.Run(chip, func(t *testing.T) {
			x, r := compileRunChecked(t, chip, nil, src)
			for _, k := range x.Compiled.Kernels {
				require.NotEqual(t, "output", k.Kind, "no matrix-unit kernel")
			}
			if chip == "tpuv4core" {
				require.Less(t, r.Report.Cycles, int64(1500), "the matrix unit's passes took 6,133")
			}
		})
	}
}
