package expand_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/rewrite"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// A cuBLAS gemm call computes alpha * dot + beta * c with the dot's
// dimension numbers from backend_config, in the evaluator and as the
// expansion the lowering compiles.
func TestGemmCalls(t *testing.T) {
	cfg := `"{\"gemm_backend_config\":{\"alpha_real\":2,\"beta\":0.5,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"1\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},\"alpha_imag\":0,\"epilogue\":\"DEFAULT\"}}"`
	call := `ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  c = f32[2,2] parameter(2)
  ROOT g = f32[2,2] custom-call(a, b, c), custom_call_target="__cublas$gemm", backend_config=` + cfg + `
}`
	plain := `ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  c = f32[2,2] parameter(2)
  d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  two = f32[] constant(2)
  half = f32[] constant(0.5)
  t = f32[2,2] broadcast(two), dimensions={}
  h = f32[2,2] broadcast(half), dimensions={}
  x = f32[2,2] multiply(d, t)
  y = f32[2,2] multiply(c, h)
  ROOT s = f32[2,2] add(x, y)
}`
	a := eval.Array("f32", []int64{2, 3}, 1, 2, 3, 4, 5, 6)
	b := eval.Array("f32", []int64{2, 3}, 1, 0, -1, 2, 1, 0)
	c := eval.Array("f32", []int64{2, 2}, 10, 20, 30, 40)
	want := evaltest.Run(t, plain, a, b, c)
	require.Equal(t, []float64{2*(1-3) + 5, 2*(2+2) + 10, 2*(4-6) + 15, 2*(8+5) + 20}, want.Data)
	require.Equal(t, want.Data, evaltest.Run(t, call, a, b, c).Data)

	m, err := hlo.Parse("e.hlo", call)
	require.NoError(t, err)
	require.NoError(t, expand.ExpandGemmCalls(m))
	require.NoError(t, verify.Verify("e.hlo", m))
	v, err := (&eval.Evaluator{File: "e.hlo", M: m}).Run([]*eval.Value{a, b, c})
	require.NoError(t, err)
	require.Equal(t, want.Data, v.Data)
	require.NotContains(t, m.String(), "custom-call")

	// What the lowering cannot honour is a positioned error.
	bad := `ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT g = f32[2,2] custom-call(a, a), custom_call_target="__cublas$gemm", backend_config="{\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":0,\"epilogue\":\"RELU\",\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"1\"]}}}"
}`
	m, err = hlo.Parse("e.hlo", bad)
	require.NoError(t, err)
	err = expand.ExpandGemmCalls(m)
	require.ErrorContains(t, err, "epilogue RELU is not supported")
	var ee *rewrite.ExpandError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 3, ee.Pos.Line)
}

// A gemm call that returns (product, workspace): the product as before,
// the workspace zeros, in the evaluator and in the expansion alike.
func TestGemmCallWithWorkspace(t *testing.T) {
	cfg := `"{\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"]},\"epilogue\":\"DEFAULT\"}}"`
	call := `ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  g = (f32[2,2], s8[16]) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config=` + cfg + `
  p = f32[2,2] get-tuple-element(g), index=0
  w = s8[16] get-tuple-element(g), index=1
  ROOT t = (f32[2,2], s8[16]) tuple(p, w)
}`
	a := eval.Array("f32", []int64{2, 3}, 1, 2, 3, 4, 5, 6)
	b := eval.Array("f32", []int64{3, 2}, 1, 0, 0, 1, 1, 1)
	direct := evaltest.Run(t, call, a, b)
	require.Equal(t, []float64{4, 5, 10, 11}, direct.Tuple[0].Data)
	require.Equal(t, make([]float64, 16), direct.Tuple[1].Data)
	m, err := hlo.Parse("e.hlo", call)
	require.NoError(t, err)
	require.NoError(t, expand.ExpandGemmCalls(m))
	require.NoError(t, verify.Verify("e.hlo", m))
	v, err := (&eval.Evaluator{File: "e.hlo", M: m}).Run([]*eval.Value{a, b})
	require.NoError(t, err)
	require.Equal(t, direct.Tuple[0].Data, v.Tuple[0].Data)
	require.Equal(t, direct.Tuple[1].Data, v.Tuple[1].Data)
}
