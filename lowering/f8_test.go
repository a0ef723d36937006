package lowering_test

import "testing"

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
