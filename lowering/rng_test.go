package lowering_test

import "testing"

// TestRng: rng (expand.ExpandRngs) on both chips gives the evaluator's
// numbers bit for bit: uniform and normal floats, uniform integers, an rng
// in a loop body drawing anew each iteration (the state's counter in HBM),
// and the counter's carry into its high word.
func TestRng(t *testing.T) {
	cases := map[string]string{
		"distributions": `HloModule m
ENTRY e {
  a = f32[] constant(-1)
  b = f32[] constant(3)
  u = f32[16,8] rng(a, b), distribution=rng_uniform
  mu = bf16[] constant(2)
  sd = bf16[] constant(0.5)
  n = bf16[33] rng(mu, sd), distribution=rng_normal
  i = s32[] constant(-7)
  j = s32[] constant(1000)
  k = s32[40] rng(i, j), distribution=rng_uniform
  p = f32[] parameter(0)
  q = f32[] constant(10)
  v = f32[5] rng(p, q), distribution=rng_uniform
  ROOT t = (f32[16,8], bf16[33], s32[40], f32[5]) tuple(u, n, k, v)
}`,
		"in a loop": `HloModule m
cond {
  s = (s32[], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[8] rng(lo, hi), distribution=rng_uniform
  acc = f32[8] get-tuple-element(s), index=1
  sum = f32[8] add(acc, r)
  ROOT t = (s32[], f32[8], f32[8]) tuple(j, sum, r)
}
ENTRY e {
  z = s32[] constant(0)
  x = f32[8] constant({0, 0, 0, 0, 0, 0, 0, 0})
  init = (s32[], f32[8], f32[8]) tuple(z, x, x)
  ROOT l = (s32[], f32[8], f32[8]) while(init), condition=cond, body=body
}`,
		"counter carry": `HloModule m
ENTRY e {
  a = u64[2] rng-get-and-update-state(), delta=2147483647
  b = u64[2] rng-get-and-update-state(), delta=2147483647
  c = u64[2] rng-get-and-update-state(), delta=2147483647
  d = u64[2] rng-get-and-update-state(), delta=5
  ROOT t = (u64[2], u64[2], u64[2], u64[2]) tuple(a, b, c, d)
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}
