package lowering_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestF8OnChips: the 8-bit floats are chip dtypes: converts in and out,
// arithmetic (in f32, rounded on store), a dot (upcast to f32 where the
// MXU does not list them, on trn1nc's MXU as cFP8) give the evaluator's
// values, overflow to NaN (f8e4m3fn) and to infinity (f8e5m2) included.
func TestF8OnChips(t *testing.T) {
	src := `ENTRY e {
  x = f32[16,32] parameter(0)
  y = f32[32,8] parameter(1)
  a = f8e4m3fn[16,32] convert(x)
  b = f8e5m2[32,8] convert(y)
  s = f8e4m3fn[16,32] add(a, a)
  bb = f8e4m3fn[32,8] convert(b)
  d = f32[16,8] dot(s, bb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f8e5m2[32,8] negate(b)
  big = f32[] constant(100000)
  bigb = f32[16,32] broadcast(big), dimensions={}
  over = f32[16,32] multiply(x, bigb)
  o1 = f8e4m3fn[16,32] convert(over)
  o2 = f8e5m2[16,32] convert(over)
  ROOT t = (f32[16,8], f8e5m2[32,8], f8e4m3fn[16,32], f8e4m3fn[16,32], f8e5m2[16,32]) tuple(d, n, s, o1, o2)
}`
	for _, chip := range append(chips, "trn1nc") {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}

// TestF8DotsOnTheMXU: FP8 training's dots (an e5m2 gradient times e4m3fn
// weights into bf16, MaxText's Llama 3.1 405B step; e4m3fn x e4m3fn into
// f32) run on a bf16 MXU after exact converts, fused into the dot's one
// kernel, not as vector products (the mixed one) or at the f32 rate (the
// other): the evaluator's values on every chip; on tpuv5p (no fp8 MXU) one
// kernel and far fewer cycles than before.
func TestF8DotsOnTheMXU(t *testing.T) {
	for _, tc := range []struct {
		a, b, out string
		m, k, n   int
		tpuv5p    int64 // most cycles on tpuv5p
	}{
		{"f8e5m2", "f8e4m3fn", "bf16", 64, 256, 128, 6000},    // 26,504 as vector products
		{"f8e4m3fn", "f8e4m3fn", "f32", 512, 1024, 512, 7500}, // 10,842 at the f32 rate
	} {
		src := fmt.Sprintf(`ENTRY e {
  a = %[1]s[%[4]d,%[5]d] parameter(0)
  b = %[2]s[%[6]d,%[5]d] parameter(1)
  ROOT d = %[3]s[%[4]d,%[6]d] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}, operand_precision={highest,highest}
}`, tc.a, tc.b, tc.out, tc.m, tc.k, tc.n)
		for _, chip := range append(chips, "tpuv5p") {
			t.Run(tc.a+"x"+tc.b+"/"+chip, func(t *testing.T) {
				x, r := compileRunChecked(t, chip, nil, src)
				if chip == "tpuv5p" {
					require.Contains(t, x.Compiled.Asm, "mxu.mm")
					require.Contains(t, x.Compiled.Asm, "bf16")
					require.Less(t, r.Report.Cycles, tc.tpuv5p)
				}
			})
		}
	}
}
