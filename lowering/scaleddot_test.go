package lowering_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScaledDot: block-scaled dots (expand.ExpandScaledDots) on both chips
// against the evaluator: f32 with per-block scales, f8 values with bf16
// scales (meeting in bf16) into f32, and a rank-0 scale.
func TestScaledDot(t *testing.T) {
	cases := map[string]string{
		"f32 blocks": `HloModule m
ENTRY e {
  a = f32[8,32] parameter(0)
  b = f32[32,16] parameter(1)
  as = f32[8,4] parameter(2)
  bs = f32[4,16] parameter(3)
  ROOT d = f32[8,16] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`,
		"f8 with bf16 scales": `HloModule m
ENTRY e {
  a = f8e4m3fn[16,64] parameter(0)
  b = f8e4m3fn[8,64] parameter(1)
  as = bf16[16,2] parameter(2)
  bs = bf16[8,2] parameter(3)
  ROOT d = f32[16,8] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`,
		"rank-0 scale": `HloModule m
ENTRY e {
  a = bf16[4,4] parameter(0)
  b = bf16[4,4] parameter(1)
  s = bf16[] parameter(2)
  ROOT d = bf16[4,4] scaled-dot(a, b, s, s), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// TestMXFormats: the MX types are chip dtypes (f8e8m0fnu scales, f4e2m1fn
// values, one per byte): converts to and from them, and jax's
// block-scaled dot custom call (expand.ExpandBlockScaledDots) with f8 and f4
// values, batched and not, on both chips against the evaluator; the
// result is numbers, not NaN (the random scales are powers of two).
func TestMXFormats(t *testing.T) {
	cases := map[string]string{
		"converts": `HloModule m
ENTRY e {
  x = f32[64] parameter(0)
  c = f8e8m0fnu[64] convert(x)
  back = f32[64] convert(c)
  f = f4e2m1fn[64] convert(x)
  fb = bf16[64] convert(f)
  s = f8e8m0fnu[64] parameter(1)
  sf = f32[64] convert(s)
  ROOT t = (f32[64], bf16[64], f32[64]) tuple(back, fb, sf)
}`,
		"f8 block-scaled dot, batched": `HloModule m
ENTRY e {
  lhs = f8e4m3fn[4,16,64] parameter(0)
  ls = f8e8m0fnu[4,16,2] parameter(1)
  rhs = f8e4m3fn[4,4,64] parameter(2)
  rs = f8e8m0fnu[4,4,2] parameter(3)
  ROOT d = f32[4,16,4] custom-call(lhs, rhs, ls, rs), custom_call_target="__op$block_scaled_dot"
}`,
		"f4 block-scaled dot": `HloModule m
ENTRY e {
  lhs = f4e2m1fn[32,64] parameter(0)
  ls = f8e8m0fnu[32,2] parameter(1)
  rhs = f4e2m1fn[8,64] parameter(2)
  rs = f8e8m0fnu[8,2] parameter(3)
  ROOT d = bf16[32,8] custom-call(lhs, rhs, ls, rs), custom_call_target="__op$block_scaled_dot"
}`,
		"padded scale, block_size, global scale": `HloModule m
ENTRY e {
  lhs = f8e4m3fn[4,120,96] parameter(0)
  ls = f8e8m0fnu[4,128,4] parameter(1)
  rhs = f8e5m2[4,120,96] parameter(2)
  rs = f8e8m0fnu[4,128,4] parameter(3)
  g = f32[] parameter(4)
  ROOT d = f32[4,120,120] custom-call(lhs, rhs, ls, rs, g), custom_call_target="__op$block_scaled_dot", backend_config={"block_scaled_dot_backend_config":{block_size:32}}
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) {
				r := runChecked(t, chip, src)
				if name != "converts" {
					for i, x := range r.Outputs[0].Data {
						require.False(t, math.IsNaN(x), "element %d", i)
					}
				}
			})
		}
	}
}

// TestStochasticConvert: stochastic-convert (expand.ExpandStochasticConverts)
// on both chips against the evaluator, from f32, bf16 and f16.
func TestStochasticConvert(t *testing.T) {
	for _, src := range []string{`HloModule m
ENTRY e {
  x = f32[300] parameter(0)
  k = f32[] constant(40)
  kb = f32[300] broadcast(k), dimensions={}
  y = f32[300] multiply(x, kb)
  r = u32[300] parameter(1)
  ROOT c = s8[300] stochastic-convert(y, r)
}`, `HloModule m
ENTRY e {
  x = bf16[64] parameter(0)
  r = u16[64] parameter(1)
  ROOT c = s32[64] stochastic-convert(x, r)
}`, `HloModule m
ENTRY e {
  x = f16[64] parameter(0)
  r = u16[64] parameter(1)
  ROOT c = s16[64] stochastic-convert(x, r)
}`} {
		for _, chip := range chips {
			runChecked(t, chip, src)
		}
	}
}
