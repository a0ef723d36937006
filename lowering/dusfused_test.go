package lowering_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFusedDynamicUpdate: a loop fusion whose root is a dynamic-update-slice
// with an elementwise update and start indices computed from scalars (a KV
// cache's new row at JAX's normalized position) is one kernel: the
// sequencer computes the indices (selects, compares, arithmetic, clamps,
// converts, out-of-range starts clamped as XLA clamps them), the vector
// unit the update; in place where the array dies at the update, after a
// copy where it does not. The values are the evaluator's, races watched.
func TestFusedDynamicUpdate(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"a KV cache's row, in place", `HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  c = f32[16,4,8,2] parameter(0)
  x = f32[1,4,8] parameter(1)
  p = s32[] parameter(2)
  f0 = f32[] constant(0)
  cc = f32[16,4,8] reduce(c, f0), dimensions={3}, to_apply=sum
  h = f32[] constant(0.5)
  hb = f32[1,4,8] broadcast(h), dimensions={}
  u = f32[1,4,8] multiply(x, hb)
  k = s32[] constant(3)
  i = s32[] add(p, k)
  z = s32[] constant(0)
  neg = pred[] compare(i, z), direction=LT
  n = s32[] constant(16)
  w = s32[] add(i, n)
  s = s32[] select(neg, w, i)
  ROOT d = f32[16,4,8] dynamic-update-slice(cc, u, s, z, z)
}`},
		{"clamped starts, the array kept", `HloModule m
ENTRY e {
  c = s32[8,8] parameter(0)
  x = s32[3,2] parameter(1)
  p = s32[] parameter(2)
  q = u32[] parameter(3)
  k = s32[] constant(5)
  i = s32[] multiply(p, k)
  qi = s32[] convert(q)
  m = s32[] constant(-4)
  lo = s32[] constant(-2)
  hi = s32[] constant(6)
  j = s32[] subtract(m, qi)
  jc = s32[] clamp(lo, j, hi)
  g = pred[] compare(q, q), direction=GE
  gi = s32[] convert(g)
  jj = s32[] maximum(jc, gi)
  nx = s32[3,2] negate(x)
  d = s32[8,8] dynamic-update-slice(c, nx, i, jj)
  ROOT t = (s32[8,8], s32[8,8]) tuple(d, c)
}`},
		{"the update an operand", `HloModule m
mx {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] maximum(a, b)
}
ENTRY e {
  c = bf16[4,64,3] parameter(0)
  x = bf16[1,64] parameter(1)
  p = s32[] parameter(2)
  f0 = bf16[] constant(-inf)
  cc = bf16[4,64] reduce(c, f0), dimensions={2}, to_apply=mx
  one = s32[] constant(1)
  i = s32[] xor(p, one)
  z = s32[] constant(0)
  ROOT d = bf16[4,64] dynamic-update-slice(cc, x, i, z)
}`},
		{"a decode loop's caches in VMEM", decodeCaches},
	} {
		for _, chip := range []string{"teach16", "tpuv4core", "trn1nc"} {
			t.Run(tc.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, tc.src)
				kernels := strings.Count(x.Compiled.Asm, "a dynamic-update-slice with its update and indices")
				if tc.src != decodeCaches {
					require.Equal(t, 1, kernels, "one kernel")
					return
				}
				require.Equal(t, 2, kernels, "a kernel per cache")
				// In VMEM (an arena: not teach16), the update is read and
				// written where it lies: no DMA of the update at all.
				inVMEM := regexp.MustCompile(`vcopy +sram\[r3\+v_`).FindAllString(x.Compiled.Asm, -1)
				require.Equal(t, map[bool]int{true: 2, false: 0}[chip != "teach16"], len(inVMEM), "updates written in VMEM by the vector unit (teach16 has no arena)")
			})
		}
	}
}

// decodeCaches is a decode loop writing one row of each of two caches
// per step at a position computed from its counter: one row computed (a
// scaled state), one an operand as it is, both caches in the loop's
// state.
const decodeCaches = `HloModule m
cond {
  s = (s32[], f32[4,32], f32[16,4,32], f32[16,4,32]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4,32], f32[16,4,32], f32[16,4,32]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[4,32] get-tuple-element(s), index=1
  k = f32[16,4,32] get-tuple-element(s), index=2
  v = f32[16,4,32] get-tuple-element(s), index=3
  t = f32[4,32] tanh(h)
  h2 = f32[1,4,32] reshape(t)
  z = s32[] constant(0)
  three = s32[] constant(3)
  p = s32[] add(i, three)
  k2 = f32[16,4,32] dynamic-update-slice(k, h2, p, z, z)
  hr = f32[1,4,32] reshape(h)
  v2 = f32[16,4,32] dynamic-update-slice(v, hr, i, z, z)
  ROOT r = (s32[], f32[4,32], f32[16,4,32], f32[16,4,32]) tuple(j, t, k2, v2)
}
ENTRY e {
  h0 = f32[4,32] parameter(0)
  k0 = f32[16,4,32] parameter(1)
  v0 = f32[16,4,32] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[4,32], f32[16,4,32], f32[16,4,32]) tuple(zero, h0, k0, v0)
  loop = (s32[], f32[4,32], f32[16,4,32], f32[16,4,32]) while(init), condition=cond, body=body
  k3 = f32[16,4,32] get-tuple-element(loop), index=2
  v3 = f32[16,4,32] get-tuple-element(loop), index=3
  ROOT o = (f32[16,4,32], f32[16,4,32]) tuple(k3, v3)
}`
