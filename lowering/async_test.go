package lowering_test

import "testing"

// TestShortAsyncFormsOnChips: XLA's short async forms (negate-start,
// call-start, slice-start with their -update and -done) compile as the op
// they wrap and give the evaluator's values.
func TestShortAsyncFormsOnChips(t *testing.T) {
	src := `twice {
  a = f32[8,16] parameter(0)
  ROOT d = f32[8,16] add(a, a)
}
ENTRY e {
  p = f32[8,16] parameter(0)
  ns = ((f32[8,16]), f32[8,16], u32[]) negate-start(p)
  nu = ((f32[8,16]), f32[8,16], u32[]) negate-update(ns)
  n = f32[8,16] negate-done(nu)
  cs = ((f32[8,16]), f32[8,16], s32[]) call-start(n), to_apply=twice, async_execution_thread="parallel_thread"
  c = f32[8,16] call-done(cs)
  ss = ((f32[8,16]), f32[3,16], s32[]) slice-start(c), slice={[2:5], [0:16]}
  ROOT s = f32[3,16] slice-done(ss)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}
