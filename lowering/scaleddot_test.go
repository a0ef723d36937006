package lowering_test

import "testing"

// TestScaledDot: block-scaled dots (hlo.ExpandScaledDots) on both chips
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
