package lowering_test

import "testing"

// TestWidthBitcastsOnChips: bitcast-converts between types of different
// widths (expand.ExpandWidthBitcasts) give the evaluator's bits, both ways,
// floats and signed types included.
func TestWidthBitcastsOnChips(t *testing.T) {
	src := `ENTRY e {
  a = u32[5,2] parameter(0)
  b = s64[3] parameter(1)
  c = f32[4] parameter(2)
  w = u64[5] bitcast-convert(a)
  n = s8[3,8] bitcast-convert(b)
  h = u16[4,2] bitcast-convert(c)
  back = f32[4] bitcast-convert(h)
  big = u64[] constant(18446744073709551557)
  bb = u64[5] broadcast(big), dimensions={}
  x = u64[5] xor(w, bb)
  s = s16[5,4] bitcast-convert(x)
  ROOT t = (u64[5], s8[3,8], u16[4,2], f32[4], s16[5,4]) tuple(w, n, h, back, s)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}
