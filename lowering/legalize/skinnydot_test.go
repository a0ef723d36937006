package legalize_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// TestSwapSkinnyDots: a dot of few rows through a wide weight becomes the
// transpose of W^T . x^T, for W as [K,N] and as [N,K], operand precisions
// swapped, with the evaluator's values; dots of more rows, narrower
// weights, batches or other layouts are left alone.
func TestSwapSkinnyDots(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"x.W", `
  x = f32[4,24] parameter(0)
  w = f32[24,64] parameter(1)
  ROOT d = f32[4,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={default,highest}`,
			"f32[64,4] dot(w, x), operand_precision={highest,default}, lhs_contracting_dims={0}, rhs_contracting_dims={1}"},
		{"x.W^T", `
  x = bf16[8,24] parameter(0)
  w = bf16[64,24] parameter(1)
  ROOT d = bf16[8,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}`,
			"bf16[64,8] dot(w, x), lhs_contracting_dims={1}, rhs_contracting_dims={1}"},
		{"too many rows", `
  x = f32[17,24] parameter(0)
  w = f32[24,200] parameter(1)
  ROOT d = f32[17,200] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}`, ""},
		{"too few columns", `
  x = f32[4,24] parameter(0)
  w = f32[24,63] parameter(1)
  ROOT d = f32[4,63] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}`, ""},
		{"batched", `
  x = f32[2,4,24] parameter(0)
  w = f32[2,24,64] parameter(1)
  ROOT d = f32[2,4,64] dot(x, w), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}`, ""},
		{"one query's scores, q . K^T per batch and head", `
  q = bf16[2,3,1,16] parameter(0)
  k = bf16[2,80,3,16] parameter(1)
  ROOT s = bf16[2,3,1,80] dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}`,
			"bf16[2,3,80,1] dot(k, q), lhs_contracting_dims={3}, rhs_contracting_dims={3}, lhs_batch_dims={0,2}, rhs_batch_dims={0,1}"},
		{"one query's output, V contracted over its rows", `
  v = bf16[2,80,3,16] parameter(0)
  p = bf16[2,3,1,80] parameter(1)
  ROOT o = bf16[2,3,16,1] dot(v, p), lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}`,
			"bf16[2,3,1,16] dot(p, v), lhs_contracting_dims={3}, rhs_contracting_dims={1}, lhs_batch_dims={0,1}, rhs_batch_dims={0,2}"},
		{"matrix-vector already streaming its rows", `
  a = f32[32,24] parameter(0)
  v = f32[24,1] parameter(1)
  ROOT y = f32[32,1] dot(a, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}`, ""},
		{"x^T.W", `
  x = f32[24,4] parameter(0)
  w = f32[24,64] parameter(1)
  ROOT d = f32[4,64] dot(x, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// teach16's array: 16 rows, 4 x 16 columns.
			r := runPass(t, tc.body, func(m *hlo.Module) error { return legalize.SwapSkinnyDots(m, 16, 64) })
			if tc.want == "" {
				require.Equal(t, r.m.String(), r.x.String())
				return
			}
			require.Contains(t, r.x.String(), tc.want)
			// Transposed back: a reshape where M or N is 1.
			back := strings.Contains(r.x.String(), "transpose(") || strings.Contains(r.x.String(), "reshape(")
			require.True(t, back, r.x.String())
			r.sameValues(t)
		})
	}
}
