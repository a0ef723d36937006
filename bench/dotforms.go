package bench

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DotForm is one form of dot that real programs use, written as JAX or
// PyTorch/XLA emit it, at a few sizes: the workloads of the dots suite
// (bench/workloads/dots, generated from this table: go test ./bench -run
// TestDotWorkloads -update).
type DotForm struct {
	Name string // file-name stem
	What string // what it is, for the file's comment
	// Sizes are the values of the form's size parameters, one map per
	// size, named s, m and l in that order.
	Sizes []map[string]int64
	// Body is the entry computation's text with {NAME} for each size
	// parameter.
	Body string
	// NotOn are chips whose matrix unit does not take the form's types.
	NotOn []string
}

var (
	allChips = []string{"teach16", "tpuv4core", "trn1nc"}
	bigChips = []string{"tpuv4core", "trn1nc"}
)

// DotForms is the suite's table.
var DotForms = []DotForm{
	{Name: "canonical", What: "[M,K] x [K,N], bf16 (jnp.dot)",
		Sizes: sizes("M K N", "256 256 256", "1024 512 1024", "2048 1024 2048"),
		Body: `  a = bf16[{M},{K}] parameter(0)
  b = bf16[{K},{N}] parameter(1)
  ROOT d = bf16[{M},{N}] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}`},
	{Name: "linear_xwt", What: "PyTorch Linear x . W^T: rhs contracting dim 1, bf16",
		Sizes: sizes("M K N", "256 256 256", "1024 512 1024", "2048 1024 2048"),
		Body: `  x = bf16[{M},{K}] parameter(0)
  w = bf16[{N},{K}] parameter(1)
  ROOT d = bf16[{M},{N}] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}`},
	{Name: "weight_grad_xtdy", What: "weight gradient X^T . dY: lhs contracting dim 0, bf16",
		Sizes: sizes("M K N", "256 256 256", "1024 512 1024", "2048 1024 2048"),
		Body: `  x = bf16[{K},{M}] parameter(0)
  dy = bf16[{K},{N}] parameter(1)
  ROOT d = bf16[{M},{N}] dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}`},
	{Name: "both_transposed", What: "both operands transposed: lhs contracting 0, rhs contracting 1, bf16",
		Sizes: sizes("M K N", "256 256 256", "1024 512 1024", "2048 1024 2048"),
		Body: `  a = bf16[{K},{M}] parameter(0)
  b = bf16[{N},{K}] parameter(1)
  ROOT d = bf16[{M},{N}] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}`},
	{Name: "attention_qkt", What: "attention scores Q K^T, [B,H,T,D] x [B,H,S,D] -> [B,H,T,S], bf16 in, f32 out",
		Sizes: sizes("B H T D", "1 4 128 64", "2 8 512 64", "4 16 1024 64"),
		Body: `  q = bf16[{B},{H},{T},{D}] parameter(0)
  k = bf16[{B},{H},{T},{D}] parameter(1)
  ROOT s = f32[{B},{H},{T},{T}] dot(q, k), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_contracting_dims={3}`},
	{Name: "attention_pv", What: "attention context P V, [B,H,T,S] x [B,H,S,D] -> [B,H,T,D], bf16",
		Sizes: sizes("B H T D", "1 4 128 64", "2 8 512 64", "4 16 1024 64"),
		Body: `  p = bf16[{B},{H},{T},{T}] parameter(0)
  v = bf16[{B},{H},{T},{D}] parameter(1)
  ROOT c = bf16[{B},{H},{T},{D}] dot(p, v), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_contracting_dims={2}`},
	{Name: "attention_dk", What: "attention backward dK = dS^T Q: lhs contracting dim 2 of [B,H,T,S], bf16",
		Sizes: sizes("B H T D", "1 4 128 64", "2 8 512 64", "4 16 1024 64"),
		Body: `  ds = bf16[{B},{H},{T},{T}] parameter(0)
  q = bf16[{B},{H},{T},{D}] parameter(1)
  ROOT dk = bf16[{B},{H},{T},{D}] dot(ds, q), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={2}, rhs_contracting_dims={2}`},
	{Name: "einsum_bqhd_bkhd", What: "JAX einsum bqhd,bkhd->bhqk: batch dims 0 and 2, bf16",
		Sizes: sizes("B H T D", "1 4 128 64", "2 8 512 64", "4 16 1024 64"),
		Body: `  q = bf16[{B},{T},{H},{D}] parameter(0)
  k = bf16[{B},{T},{H},{D}] parameter(1)
  ROOT s = f32[{B},{H},{T},{T}] dot(q, k), lhs_batch_dims={0,2}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_contracting_dims={3}`},
	{Name: "einsum_bhqk_bkhd", What: "JAX einsum bhqk,bkhd->bhqd: P V with V in [B,S,H,D], bf16",
		Sizes: sizes("B H T D", "1 4 128 64", "2 8 512 64", "4 16 1024 64"),
		Body: `  p = bf16[{B},{H},{T},{T}] parameter(0)
  v = bf16[{B},{T},{H},{D}] parameter(1)
  ROOT c = bf16[{B},{H},{T},{D}] dot(p, v), lhs_batch_dims={0,1}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_contracting_dims={1}`},
	{Name: "gqa_scores", What: "grouped-query attention scores: G query heads per KV head share it, [B,KV,G,T,D] x [B,KV,S,D], bf16",
		Sizes: sizes("B KV G T D", "1 2 4 128 64", "1 4 4 512 128", "2 8 4 1024 128"),
		Body: `  q = bf16[{B},{KV},{G},{T},{D}] parameter(0)
  k = bf16[{B},{KV},{T},{D}] parameter(1)
  ROOT s = f32[{B},{KV},{G},{T},{T}] dot(q, k), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={4}, rhs_contracting_dims={3}`},
	{Name: "lm_head_torch", What: "PyTorch LM head W^T h: [D,V] contracting dim 0 with [D,B], f32",
		Sizes: sizes("D V B", "256 2048 4", "768 12288 4", "768 50257 4"),
		Body: `  w = f32[{D},{V}] parameter(0)
  h = f32[{D},{B}] parameter(1)
  ROOT l = f32[{V},{B}] dot(w, h), lhs_contracting_dims={0}, rhs_contracting_dims={0}`},
	{Name: "lm_head_jax", What: "JAX LM head [B*T,D] x [D,V], bf16 in, f32 logits",
		Sizes: sizes("T D V", "128 256 2048", "512 768 8192", "1024 768 32768"),
		Body: `  h = bf16[{T},{D}] parameter(0)
  w = bf16[{D},{V}] parameter(1)
  ROOT l = f32[{T},{V}] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}`},
	{Name: "decode_gemv_bf16", What: "decode step x . W^T with a batch of 8: [8,D] x [F,D], bf16",
		Sizes: sizes("D F", "512 1024", "2048 4096", "4096 11008"),
		Body: `  x = bf16[8,{D}] parameter(0)
  w = bf16[{F},{D}] parameter(1)
  ROOT y = bf16[8,{F}] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}`},
	{Name: "decode_gemv_f32", What: "GEMV a . W^T, [4,K] x [N,K], f32",
		Sizes: sizes("K N", "512 1024", "2048 4096", "4096 8192"),
		Body: `  a = f32[4,{K}] parameter(0)
  w = f32[{N},{K}] parameter(1)
  ROOT d = f32[4,{N}] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}`},
	{Name: "batched_small_f32", What: "many small matmuls: [B,16,16] x [B,16,16], f32",
		Sizes: sizes("B", "64", "512", "4096"),
		Body: `  a = f32[{B},16,16] parameter(0)
  b = f32[{B},16,16] parameter(1)
  ROOT c = f32[{B},16,16] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}`},
	{Name: "batched_64_bf16", What: "batched 64x64x64 matmuls, bf16",
		Sizes: sizes("B", "16", "128", "512"),
		Body: `  a = bf16[{B},64,64] parameter(0)
  b = bf16[{B},64,64] parameter(1)
  ROOT c = bf16[{B},64,64] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}`},
	{Name: "f32_square", What: "f32 [N,N] x [N,N] at XLA's default precision",
		Sizes: sizes("N", "256", "512", "1024"),
		Body: `  a = f32[{N},{N}] parameter(0)
  b = f32[{N},{N}] parameter(1)
  ROOT c = f32[{N},{N}] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}`},
	{Name: "int8_square", What: "int8 [N,N] x [N,N] into s32", NotOn: []string{"trn1nc"},
		Sizes: sizes("N", "256", "1024", "2048"),
		Body: `  a = s8[{N},{N}] parameter(0)
  b = s8[{N},{N}] parameter(1)
  ROOT c = s32[{N},{N}] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}`},
	{Name: "mlp_bias_gelu", What: "MLP up-projection with its bias and GELU fused, bf16",
		Sizes: sizes("M K N", "256 256 1024", "512 768 3072", "2048 1024 4096"),
		Body: `  x = bf16[{M},{K}] parameter(0)
  w = bf16[{K},{N}] parameter(1)
  b = bf16[{N}] parameter(2)
  d = bf16[{M},{N}] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = bf16[{M},{N}] broadcast(b), dimensions={1}
  s = bf16[{M},{N}] add(d, bb)
  s3 = bf16[{M},{N}] multiply(s, s)
  s3b = bf16[{M},{N}] multiply(s3, s)
  c1 = bf16[{M},{N}] broadcast(bf16[] constant(0.044715)), dimensions={}
  t0 = bf16[{M},{N}] multiply(s3b, c1)
  t1 = bf16[{M},{N}] add(s, t0)
  c2 = bf16[{M},{N}] broadcast(bf16[] constant(0.7978846)), dimensions={}
  t2 = bf16[{M},{N}] multiply(t1, c2)
  t3 = bf16[{M},{N}] tanh(t2)
  one = bf16[{M},{N}] broadcast(bf16[] constant(1)), dimensions={}
  t4 = bf16[{M},{N}] add(t3, one)
  half = bf16[{M},{N}] broadcast(bf16[] constant(0.5)), dimensions={}
  t5 = bf16[{M},{N}] multiply(s, half)
  ROOT g = bf16[{M},{N}] multiply(t5, t4)`},
	{Name: "weight_grad_narrow", What: "weight gradient with 16 output columns: [T,F]^T x [T,16], f32",
		Sizes: sizes("T F", "256 512", "2048 4096", "2048 30522"),
		Body: `  x = f32[{T},{F}] parameter(0)
  dy = f32[{T},16] parameter(1)
  ROOT d = f32[{F},16] dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}`},
	{Name: "skinny_k", What: "an outer-product-like dot with K = 64, bf16",
		Sizes: sizes("M N", "256 256", "1024 1024", "4096 4096"),
		Body: `  a = bf16[{M},64] parameter(0)
  b = bf16[64,{N}] parameter(1)
  ROOT c = bf16[{M},{N}] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}`},
	{Name: "long_k", What: "small M and N with a long K, bf16",
		Sizes: sizes("M K N", "64 2048 64", "128 8192 128", "256 32768 256"),
		Body: `  a = bf16[{M},{K}] parameter(0)
  b = bf16[{K},{N}] parameter(1)
  ROOT c = f32[{M},{N}] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}`},
}

// sizes makes the size maps from the parameters' names and, per size,
// their values.
func sizes(names string, values ...string) []map[string]int64 {
	keys := strings.Fields(names)
	var out []map[string]int64
	for _, v := range values {
		m := map[string]int64{}
		for i, f := range strings.Fields(v) {
			var n int64
			fmt.Sscan(f, &n)
			m[keys[i]] = n
		}
		out = append(out, m)
	}
	return out
}

// SizeNames name a form's sizes in order.
var SizeNames = []string{"s", "m", "l"}

// Module is the HLO module of the form at size i.
func (f DotForm) Module(i int) string {
	body := f.Body
	for k, v := range f.Sizes[i] {
		body = strings.ReplaceAll(body, "{"+k+"}", fmt.Sprint(v))
	}
	var dims []string
	for _, k := range sortedKeys(f.Sizes[i]) {
		dims = append(dims, fmt.Sprintf("%s=%d", k, f.Sizes[i][k]))
	}
	return fmt.Sprintf("// %s, %s (dots suite: generated from bench.DotForms by go test ./bench -run TestDotWorkloads -update)\nHloModule %s_%s\n\nENTRY e {\n%s\n}\n",
		f.What, strings.Join(dims, " "), f.Name, SizeNames[i], body)
}

// Chips are the chips the form's size i runs on: the small size on
// teach16 (one 16x16 array: its medium size is already long work), the
// medium size on all three, the large on the chips with big arrays; so
// each chip runs two sizes. A form a chip's matrix unit cannot multiply
// (int8 on trn1nc's TensorE) leaves that chip out.
func (f DotForm) Chips(i int) []string {
	var out []string
	for _, c := range [][]string{{"teach16"}, allChips, bigChips}[i] {
		if !slices.Contains(f.NotOn, c) {
			out = append(out, c)
		}
	}
	return out
}

func sortedKeys(m map[string]int64) []string {
	ks := slices.Collect(maps.Keys(m))
	slices.Sort(ks)
	return ks
}

// DotsSuite is the dots suite's YAML text.
func DotsSuite() string {
	var b strings.Builder
	b.WriteString("# dots: every form of dot real programs use (bench.DotForms: generated by\n# go test ./bench -run TestDotWorkloads -update), at two or three sizes, timing-only;\n# each entry's roof_fraction is its kernel-roof efficiency (docs/bench.md).\nname: dots\nentries:\n")
	for _, f := range DotForms {
		for i := range f.Sizes {
			fmt.Fprintf(&b, "  - workload: bench/workloads/dots/%s_%s.hlo\n    chips: [%s]\n", f.Name, SizeNames[i], strings.Join(f.Chips(i), ", "))
		}
	}
	return b.String()
}
