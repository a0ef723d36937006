package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTEFusedAttentionRuns: a GPU program's Transformer Engine attention
// (forward and backward, grouped-query heads, padding and causal mask)
// compiles, runs with the evaluator's values, and the report says its
// cycles are an upper bound rather than presenting them as a fused
// kernel's.
func TestTEFusedAttentionRuns(t *testing.T) {
	const cfg = `backend_config={attn_heads = 4 : i64, bias_type = 0 : i64, dropout_probability = 0.000000e+00 : f64, is_training = true, mask_type = 3 : i64, max_segments_per_seq = 1 : i64, num_gqa_groups = 2 : i64, qkv_layout = 9 : i64, scaling_factor = 1.250000e-01 : f64, window_size_left = -1 : i64, window_size_right = -1 : i64}`
	src := `HloModule te
ENTRY e {
  q = bf16[2,128,4,64] parameter(0)
  k = bf16[2,128,2,64] parameter(1)
  v = bf16[2,128,2,64] parameter(2)
  do = bf16[2,128,4,64] parameter(3)
  bias = bf16[0] constant({})
  seed = u32[2] constant({0, 0})
  cu = s32[3] constant({0, 100, 228})
  none = f32[0] constant({})
  fwd = (bf16[2,128,4,64], f32[2,4,128,1], u32[2,4], u8[48]) custom-call(q, k, v, bias, seed, cu, cu, none, none, none, none, none, none), custom_call_target="te_fused_attn_forward_ffi", api_version=API_VERSION_TYPED_FFI, ` + cfg + `
  o = bf16[2,128,4,64] get-tuple-element(fwd), index=0
  lse = f32[2,4,128,1] get-tuple-element(fwd), index=1
  rng = u32[2,4] get-tuple-element(fwd), index=2
  bwd = (bf16[2,128,4,64], bf16[2,128,2,64], bf16[2,128,2,64], bf16[0], u8[4096]) custom-call(q, k, v, bias, lse, rng, o, do, cu, cu, none, none, none, none, none, none), custom_call_target="te_fused_attn_backward_ffi", api_version=API_VERSION_TYPED_FFI, ` + cfg + `
  dq = bf16[2,128,4,64] get-tuple-element(bwd), index=0
  dk = bf16[2,128,2,64] get-tuple-element(bwd), index=1
  dv = bf16[2,128,2,64] get-tuple-element(bwd), index=2
  ROOT r = (bf16[2,128,4,64], f32[2,4,128,1], bf16[2,128,4,64], bf16[2,128,2,64], bf16[2,128,2,64]) tuple(o, lse, dq, dk, dv)
}
`
	f := filepath.Join(t.TempDir(), "te.hlo")
	require.NoError(t, os.WriteFile(f, []byte(src), 0o644))
	code, out, errs := runCLI("simulate", f, "--chip", "tpuv4core", "--random-inputs", "1", "--check")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "check: every output matches the reference evaluator")
	require.Contains(t, out, "upper bound: 2 instructions ran by a slower algorithm than their fused kernel")
	require.Contains(t, out, "te.hlo:11:3: fwd: fused attention run as blocked unfused attention")
}
