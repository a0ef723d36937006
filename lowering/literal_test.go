package lowering_test

import "testing"

// TestSplatLiteralOnChips: one bare value for an array constant fills it
// (a fill initializer, not a value per element), 64-bit ones exactly.
func TestSplatLiteralOnChips(t *testing.T) {
	src := `ENTRY e {
  p = f32[8,2048] parameter(0)
  c = f32[8,2048] constant(1.5)
  z = s64[3] constant(-9007199254740993)
  a = f32[8,2048] add(p, c)
  ROOT t = (f32[8,2048], s64[3]) tuple(a, z)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}
