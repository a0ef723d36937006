package lowering_test

import "testing"

// TestInt4 runs the 4-bit integers on both chips against the evaluator:
// arithmetic that wraps (7 + 1 is -8 in s4, ~5 is 10 in u4), conversions
// that keep the low 4 bits (s32 20 is s4 4), shifts past the width, the
// s4 x s4 and s4 x s8 dots (on the MXU as s8, exactly) and a loop whose
// counter is an s4.
func TestInt4(t *testing.T) {
	cases := map[string]string{
		"wrapping arithmetic": `HloModule m
ENTRY e {
  a = s4[6] constant({7, -8, 3, -1, 5, 0})
  one = s4[6] constant({1, -1, 7, -8, 4, 0})
  s = s4[6] add(a, one)
  p = s4[6] multiply(a, a)
  n = s4[6] negate(a)
  three = s4[6] constant({3, 3, 3, 3, 5, 1})
  l = s4[6] shift-left(a, three)
  r = s4[6] shift-right-arithmetic(a, three)
  u = u4[6] constant({5, 15, 0, 8, 9, 1})
  nu = u4[6] not(u)
  su = u4[6] add(u, u)
  k = u4[6] constant({1, 3, 0, 2, 5, 1})
  ur = u4[6] shift-right-arithmetic(u, k)
  ROOT t = (s4[6], s4[6], s4[6], s4[6], s4[6], u4[6], u4[6], u4[6]) tuple(s, p, n, l, r, nu, su, ur)
}`,
		"conversions": `HloModule m
ENTRY e {
  x = s32[8] constant({20, -9, 7, 8, -8, 255, 16, -17})
  a = s4[8] convert(x)
  b = u4[8] convert(x)
  c = s8[8] convert(a)
  d = f32[8] convert(b)
  f = f32[8] constant({2.9, -7.5, 100, -100, 0.5, 15, 16, -1})
  g = s4[8] convert(f)
  h = u4[8] convert(f)
  ROOT t = (s4[8], u4[8], s8[8], f32[8], s4[8], u4[8]) tuple(a, b, c, d, g, h)
}`,
		"dots": `HloModule m
ENTRY e {
  a = s4[16,32] parameter(0)
  b = s4[32,8] parameter(1)
  c = s8[32,8] parameter(2)
  d = s32[16,8] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  m = s32[16,8] dot(a, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  f = f32[16,8] convert(d)
  ROOT t = (s32[16,8], s32[16,8], f32[16,8]) tuple(d, m, f)
}`,
		"s4 loop counter": `HloModule m
cond {
  s = (s4[], f32[4]) parameter(0)
  i = s4[] get-tuple-element(s), index=0
  n = s4[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s4[], f32[4]) parameter(0)
  i = s4[] get-tuple-element(s), index=0
  one = s4[] constant(1)
  j = s4[] add(i, one)
  x = f32[4] get-tuple-element(s), index=1
  y = f32[4] add(x, x)
  ROOT t = (s4[], f32[4]) tuple(j, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = s4[] constant(-3)
  init = (s4[], f32[4]) tuple(z, p)
  w = (s4[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}
