package expand_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// teRef is attention computed here in float64, straight from its
// definition, for one configuration: o, the log-sum-exp per row, and the
// gradients of sum(o * do) for q, k and v.
type teRef struct {
	b, sq, sk, h, g, d int
	scale              float64
	mask               int
	qlen, kvlen        []int
	sbhd               bool
}

func (r teRef) valid(b, i, j int) bool {
	causal := r.mask == 2 || r.mask == 3 || r.mask == 4 || r.mask == 5
	padding := r.mask == 1 || r.mask == 3 || r.mask == 5
	bottom := r.mask == 4 || r.mask == 5
	ql, kl := r.sq, r.sk
	if padding {
		ql, kl = r.qlen[b], r.kvlen[b]
		if i >= ql || j >= kl {
			return false
		}
	}
	if causal {
		off := 0
		if bottom {
			off = kl - ql
		}
		return j <= i+off
	}
	return true
}

// run returns o, lse, dq, dk, dv (flat, in the call's layouts).
func (r teRef) run(q, k, v, do []float64) (o, lse, dq, dk, dv []float64) {
	idx := func(seq, b, s, h, n, i int) int {
		if r.sbhd {
			return ((s*r.b+b)*n+h)*r.d + i
		}
		return ((b*seq+s)*n+h)*r.d + i
	}
	qi := func(b, s, h, i int) int { return idx(r.sq, b, s, h, r.h, i) }
	ki := func(b, s, g, i int) int { return idx(r.sk, b, s, g, r.g, i) }
	o, dq = make([]float64, len(q)), make([]float64, len(q))
	dk, dv = make([]float64, len(k)), make([]float64, len(v))
	lse = make([]float64, r.b*r.h*r.sq)
	rep := r.h / r.g
	for b := range r.b {
		for h := range r.h {
			g := h / rep
			for i := range r.sq {
				s := make([]float64, r.sk)
				mx := math.Inf(-1)
				for j := range r.sk {
					if !r.valid(b, i, j) {
						continue
					}
					for e := range r.d {
						s[j] += q[qi(b, i, h, e)] * k[ki(b, j, g, e)]
					}
					s[j] *= r.scale
					mx = math.Max(mx, s[j])
				}
				if math.IsInf(mx, -1) {
					continue // a row that sees nothing: zeros, lse 0
				}
				p, l := make([]float64, r.sk), 0.0
				for j := range r.sk {
					if r.valid(b, i, j) {
						p[j] = math.Exp(s[j] - mx)
						l += p[j]
					}
				}
				lse[(b*r.h+h)*r.sq+i] = mx + math.Log(l)
				for j := range r.sk {
					p[j] /= l
					for e := range r.d {
						o[qi(b, i, h, e)] += p[j] * v[ki(b, j, g, e)]
					}
				}
				// Gradients of sum(o * do) through this row.
				delta := 0.0
				for e := range r.d {
					ov := 0.0
					for j := range r.sk {
						ov += p[j] * v[ki(b, j, g, e)]
					}
					delta += ov * do[qi(b, i, h, e)]
				}
				for j := range r.sk {
					if p[j] == 0 {
						continue
					}
					dp := 0.0
					for e := range r.d {
						dp += do[qi(b, i, h, e)] * v[ki(b, j, g, e)]
						dv[ki(b, j, g, e)] += p[j] * do[qi(b, i, h, e)]
					}
					ds := p[j] * (dp - delta) * r.scale
					for e := range r.d {
						dq[qi(b, i, h, e)] += ds * k[ki(b, j, g, e)]
						dk[ki(b, j, g, e)] += ds * q[qi(b, i, h, e)]
					}
				}
			}
		}
	}
	return o, lse, dq, dk, dv
}

// TestTEFusedAttention: Transformer Engine's fused-attention calls, forward
// and backward, against attention computed from its definition in float64
// (not a second copy of the expansion's blocked formulas): every NVTE mask,
// grouped-query heads, both separate-array layouts, a scale, sequences
// shorter than the arrays, more keys than queries, and blocks of queries
// smaller than the whole (as a long sequence takes).
func TestTEFusedAttention(t *testing.T) {
	for _, c := range []struct {
		name        string
		sq, sk      int
		mask        int
		sbhd        bool
		blockBytes  int64
		qlen, kvlen []int
	}{
		{"no mask", 5, 5, 0, false, 0, nil, nil},
		{"padding", 5, 5, 1, false, 0, []int{3, 5}, []int{4, 5}},
		{"causal", 6, 6, 2, false, 0, nil, nil},
		{"causal blocks", 6, 6, 2, false, 2 * 4 * 6 * 4 * 2, nil, nil},
		{"padding causal", 6, 6, 3, false, 0, []int{4, 6}, []int{4, 6}},
		{"padding causal blocks sbhd", 6, 6, 3, true, 2 * 4 * 6 * 4, []int{5, 2}, []int{5, 3}},
		{"causal bottom right", 4, 6, 4, false, 0, nil, nil},
		{"causal bottom right blocks", 4, 6, 4, false, 2 * 4 * 6 * 4 * 3, nil, nil},
		{"padding causal bottom right", 4, 6, 5, true, 2 * 4 * 6 * 4, []int{3, 4}, []int{5, 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.blockBytes > 0 {
				defer expand.SetTEScoreBytes(c.blockBytes)()
			}
			r := teRef{b: 2, sq: c.sq, sk: c.sk, h: 4, g: 2, d: 3, scale: 0.5, mask: c.mask, qlen: c.qlen, kvlen: c.kvlen, sbhd: c.sbhd}
			shape := func(s, n int) string {
				if c.sbhd {
					return fmt.Sprintf("f32[%d,2,%d,3]", s, n)
				}
				return fmt.Sprintf("f32[2,%d,%d,3]", s, n)
			}
			cu := func(l []int) string {
				if l == nil {
					return "{0,0,0}"
				}
				return fmt.Sprintf("{0,%d,%d}", l[0], l[0]+l[1])
			}
			layout := 9
			if c.sbhd {
				layout = 4
			}
			cfg := fmt.Sprintf("{attn_heads = 4 : i64, bias_type = 0 : i64, dropout_probability = 0.000000e+00 : f64, is_training = true, mask_type = %d : i64, max_segments_per_seq = 1 : i64, num_gqa_groups = 2 : i64, qkv_layout = %d : i64, scaling_factor = 5.000000e-01 : f64, window_size_left = -1 : i64, window_size_right = -1 : i64}", c.mask, layout)
			q, kv := shape(c.sq, 4), shape(c.sk, 2)
			aux := fmt.Sprintf("f32[2,4,%d,1]", c.sq)
			src := fmt.Sprintf(`HloModule te
ENTRY e {
  q = %[1]s parameter(0)
  k = %[2]s parameter(1)
  v = %[2]s parameter(2)
  do = %[1]s parameter(3)
  bias = f32[0] constant({})
  seed = u32[2] constant({0, 0})
  cuq = s32[3] constant(%[4]s)
  cukv = s32[3] constant(%[5]s)
  none = f32[0] constant({})
  fwd = (%[1]s, %[3]s, u32[2,4], u8[48]) custom-call(q, k, v, bias, seed, cuq, cukv, none, none, none, none, none, none), custom_call_target="te_fused_attn_forward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config=%[6]s
  o = %[1]s get-tuple-element(fwd), index=0
  lse = %[3]s get-tuple-element(fwd), index=1
  rng = u32[2,4] get-tuple-element(fwd), index=2
  bwd = (%[1]s, %[2]s, %[2]s, f32[0], u8[64]) custom-call(q, k, v, bias, lse, rng, o, do, cuq, cukv, none, none, none, none, none, none), custom_call_target="te_fused_attn_backward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config=%[6]s
  dq = %[1]s get-tuple-element(bwd), index=0
  dk = %[2]s get-tuple-element(bwd), index=1
  dv = %[2]s get-tuple-element(bwd), index=2
  ROOT r = (%[1]s, %[3]s, %[1]s, %[2]s, %[2]s) tuple(o, lse, dq, dk, dv)
}
`, q, kv, aux, cu(c.qlen), cu(c.kvlen), cfg)
			m, err := hlo.Parse("te.hlo", src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("te.hlo", m))
			args, err := eval.RandomArgs(m, 3)
			require.NoError(t, err)
			out, err := (&eval.Evaluator{File: "te.hlo", M: m}).Run(args)
			require.NoError(t, err)
			o, lse, dq, dk, dv := r.run(args[0].Data, args[1].Data, args[2].Data, args[3].Data)
			for i, want := range [][]float64{o, lse, dq, dk, dv} {
				got := out.Tuple[i].Data
				require.Len(t, got, len(want))
				for j := range want {
					require.InDelta(t, want[j], got[j], 2e-5*(1+math.Abs(want[j])), "output %d element %d", i, j)
				}
			}
			// The expansion is what the lowering runs too.
			require.NoError(t, expand.ExpandTEFusedAttns(m))
			require.NoError(t, verify.Verify("te.hlo", m))
			for _, in := range m.Entry.Instructions {
				require.NotEqual(t, "u8", in.Shape.Elem, "%s: the workspace nothing reads is not made", in.Name)
			}
		})
	}
}

// TestTEFusedAttentionRefuses: what would change the arithmetic is an
// error naming it, not a silently different attention.
func TestTEFusedAttentionRefuses(t *testing.T) {
	for _, c := range []struct{ cfg, want string }{
		{"dropout_probability = 1.000000e-01 : f64", "dropout_probability 0.1"},
		{"bias_type = 2 : i64", "bias_type 2"},
		{"window_size_left = 64 : i64", "sliding window"},
		{"qkv_layout = 5 : i64", "qkv_layout 5"},
		{"mask_type = 7 : i64", "mask_type 7"},
		{"attn_heads = 2 : i64, empty", "empty attention"},
	} {
		seq := 4
		if strings.HasSuffix(c.cfg, "empty") {
			c.cfg, seq = strings.TrimSuffix(c.cfg, ", empty"), 0
		}
		src := fmt.Sprintf(`HloModule te
ENTRY e {
  q = bf16[1,%[2]d,2,8] parameter(0)
  k = bf16[1,%[2]d,2,8] parameter(1)
  z = bf16[0] constant({})
  s = u32[2] constant({0, 0})
  cu = s32[2] constant({0, 4})
  ROOT fwd = (bf16[1,%[2]d,2,8], f32[1,2,%[2]d,1], u32[2,4], u8[48]) custom-call(q, k, k, z, s, cu, cu), custom_call_target="te_fused_attn_forward_ffi", backend_config={mask_type = 2 : i64, %[1]s}
}
`, c.cfg, seq)
		m, err := hlo.Parse("te.hlo", src)
		require.NoError(t, err)
		err = expand.ExpandTEFusedAttns(m)
		require.ErrorContains(t, err, c.want)
	}
}

// FuzzTEFusedAttentionConfig: any backend_config and sequence length
// expands or is refused with an error, never a panic.
func FuzzTEFusedAttentionConfig(f *testing.F) {
	f.Add("mask_type = 3 : i64, qkv_layout = 9 : i64, scaling_factor = 1.250000e-01 : f64", 4)
	f.Add("mask_type = 5 : i64, qkv_layout = 4 : i64", 3)
	f.Add("num_gqa_groups = 0 : i64, attn_heads = x", 0)
	f.Fuzz(func(t *testing.T, cfg string, seq int) {
		if seq < 0 || seq > 16 || strings.ContainsAny(cfg, "{}\n\"") {
			return
		}
		src := fmt.Sprintf(`HloModule te
ENTRY e {
  q = f32[2,%[2]d,4,8] parameter(0)
  k = f32[2,%[2]d,2,8] parameter(1)
  z = f32[0] constant({})
  s = u32[2] constant({0, 0})
  cu = s32[3] constant({0, 1, 2})
  ROOT fwd = (f32[2,%[2]d,4,8], f32[2,4,%[2]d,1], u32[2,4], u8[48]) custom-call(q, k, k, z, s, cu, cu), custom_call_target="te_fused_attn_forward_ffi", backend_config={%[1]s}
}
`, cfg, seq)
		m, err := hlo.Parse("te.hlo", src)
		if err != nil {
			return
		}
		if err := expand.ExpandTEFusedAttns(m); err == nil {
			require.NoError(t, verify.Verify("te.hlo", m))
		}
	})
}
