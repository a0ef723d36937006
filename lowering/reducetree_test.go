package lowering_test

import "testing"

// Reductions with no vector-unit instruction (several operands, products,
// comparator bodies) become trees of the reducer's body
// (legalize.ExpandGeneralReduces), checked against the evaluator's sequential
// fold: their reducers are associative and commutative, so the bits agree.
func TestGeneralReduces(t *testing.T) {
	argmax := `argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  nan = pred[] compare(a, a), direction=NE
  pick = pred[] or(gt, nan)
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(i, j), direction=LT
  tie = pred[] and(eq, lt)
  first = pred[] or(pick, tie)
  v = f32[] select(first, a, b)
  k = s32[] select(first, i, j)
  ROOT r = (f32[], s32[]) tuple(v, k)
}
`
	cases := map[string]string{
		"argmax over 15, ties to the lower index": argmax + `ENTRY e {
  x = f32[7,15] parameter(0)
  r = f32[7,15] round-nearest-even(x)
  i = s32[7,15] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  z = s32[] constant(0)
  t = (f32[7], s32[7]) reduce(r, i, ninf, z), dimensions={1}, to_apply=argmax
  ROOT k = s32[7] get-tuple-element(t), index=1
}`,
		"argmax over two dims, the kept one between": argmax + `ENTRY e {
  x = f32[6,5,9] parameter(0)
  i = s32[6,5,9] iota(), iota_dimension=2
  ninf = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT t = (f32[5], s32[5]) reduce(x, i, ninf, z), dimensions={0,2}, to_apply=argmax
}`,
		"wrapping s8 and exact u64 products": `mul8 {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT m = s8[] multiply(a, b)
}
mul64 {
  a = u64[] parameter(0)
  b = u64[] parameter(1)
  ROOT m = u64[] multiply(a, b)
}
ENTRY e {
  x = s8[4,11] parameter(0)
  one = s8[] constant(1)
  p = s8[4] reduce(x, one), dimensions={1}, to_apply=mul8
  y = u64[3,33] parameter(1)
  one64 = u64[] constant(1)
  q = u64[3] reduce(y, one64), dimensions={1}, to_apply=mul64
  ROOT t = (s8[4], u64[3]) tuple(p, q)
}`,
		"a reducer with dead code, outputs in another layout (XLA's reduce_decomposer_test.cc:113)": `argmaxu {
  running_max = f32[] parameter(0)
  running_max_idx = u32[] parameter(1)
  current_value = f32[] parameter(2)
  current_value_idx = u32[] parameter(3)
  current = (f32[], u32[]) tuple(running_max, running_max_idx)
  potential = (f32[], u32[]) tuple(current_value, current_value_idx)
  cmp_code = pred[] compare(current_value, running_max), direction=GT
  new_max = f32[] select(cmp_code, current_value, running_max)
  new_idx = u32[] select(cmp_code, current_value_idx, running_max_idx)
  ROOT out = (f32[], u32[]) tuple(new_max, new_idx)
}
ENTRY e {
  x = f32[2,3,4,64] parameter(0)
  i = u32[2,3,4,64] iota(), iota_dimension=3
  c0 = f32[] constant(-inf)
  c1 = u32[] constant(0)
  ROOT r = (f32[2,3,4]{0,1,2}, u32[2,3,4]{0,1,2}) reduce(x, i, c0, c1), dimensions={3}, to_apply=argmaxu
}`,
		"a reduced dim of one, an init that is not the identity": `mx {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] constant(0)
  m = s32[] maximum(a, b)
  ROOT r = s32[] add(m, c)
}
ENTRY e {
  x = s32[8,1] parameter(0)
  init = s32[] constant(3)
  ROOT r = s32[8] reduce(x, init), dimensions={1}, to_apply=mx
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}
