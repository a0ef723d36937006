package legalize_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// TestFoldBroadcastBatches: grouped-query attention as jnp.repeat writes
// it (each key and value head broadcast to its query heads and merged)
// computes the same without the repeated operand.
func TestFoldBroadcastBatches(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		folds      bool
	}{
		{"one query's scores", `
  q = f32[2,1,6,8] parameter(0)
  kv = f32[2,5,3,8] parameter(1)
  b = f32[2,5,3,2,8] broadcast(kv), dimensions={0,1,2,4}
  k = f32[2,5,6,8] reshape(b)
  ROOT s = f32[2,6,1,5] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}`, true},
		{"one query's output, the values on the left", `
  kv = f32[2,5,3,8] parameter(0)
  p = f32[2,6,1,5] parameter(1)
  b = f32[2,5,3,2,8] broadcast(kv), dimensions={0,1,2,4}
  v = f32[2,5,6,8] reshape(b)
  ROOT o = f32[2,6,8,1] dot(v, p), lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}`, true},
		{"two queries' scores (g moves past them: a transpose, smaller than the repeat)", `
  q = f32[2,2,6,64] parameter(0)
  kv = f32[2,5,3,64] parameter(1)
  b = f32[2,5,3,2,64] broadcast(kv), dimensions={0,1,2,4}
  k = f32[2,5,6,64] reshape(b)
  ROOT s = f32[2,6,2,5] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}`, true},
		{"a prompt's scores (the transpose would outweigh the repeat)", `
  q = f32[2,4,6,8] parameter(0)
  kv = f32[2,5,3,8] parameter(1)
  b = f32[2,5,3,2,8] broadcast(kv), dimensions={0,1,2,4}
  k = f32[2,5,6,8] reshape(b)
  ROOT s = f32[2,6,4,5] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}`, false},
		{"heads tiled, not repeated", `
  q = f32[2,1,6,8] parameter(0)
  kv = f32[2,5,3,8] parameter(1)
  b = f32[2,5,2,3,8] broadcast(kv), dimensions={0,1,3,4}
  k = f32[2,5,6,8] reshape(b)
  ROOT s = f32[2,6,1,5] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}`, false},
		{"repeated along a contracted dimension", `
  q = f32[2,1,6,8] parameter(0)
  kv = f32[2,5,6,4] parameter(1)
  b = f32[2,5,6,4,2] broadcast(kv), dimensions={0,1,2,3}
  k = f32[2,5,6,8] reshape(b)
  ROOT s = f32[2,6,1,5] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runPass(t, tc.body, legalize.FoldBroadcastBatches)
			if !tc.folds {
				require.Equal(t, r.m.String(), r.x.String())
				return
			}
			require.NotContains(t, r.x.String(), "broadcast(", "the repeated operand is gone")
			require.Equal(t, 1, strings.Count(r.x.String(), " dot("))
			r.sameValues(t)
		})
	}
}
