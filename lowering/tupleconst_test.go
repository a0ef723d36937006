package lowering_test

import "testing"

// Tuple constants with values (legalize.SplitTupleConstants) on both chips.
func TestTupleConstantsOnChips(t *testing.T) {
	src := `HloModule m
ENTRY e {
  p = f32[2,1] parameter(0)
  c = (f32[], (s32[2], f32[2,1])) constant((1.5, ({7, -3}, {{2}, {4}})))
  a = (s32[2], f32[2,1]) get-tuple-element(c), index=1
  b = f32[2,1] get-tuple-element(a), index=1
  s = f32[2,1] add(b, p)
  i = s32[2] get-tuple-element(a), index=0
  ROOT r = (f32[2,1], s32[2]) tuple(s, i)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}
