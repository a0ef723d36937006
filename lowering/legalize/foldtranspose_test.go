package legalize_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// TestFoldDotTransposes: a transpose feeding a dot folds into its
// dimension numbers when the result stays the same array, and the values
// are the evaluator's before and after; a fold that would reorder the
// result, or leave a dot the compiler cannot read, is not made.
func TestFoldDotTransposes(t *testing.T) {
	never := func(l, r, lb, lc, rb, rc []int64) bool { return false }
	always := func(l, r, lb, lc, rb, rc []int64) bool { return true }
	for _, tc := range []struct {
		name, body string
		awkward    func(l, r, lb, lc, rb, rc []int64) bool
		want       string // the folded dot's operands and dims, "" for no fold
		kept       bool   // the transpose stays
	}{
		{"rhs W^T", `
  a = f32[6,5] parameter(0)
  b = f32[4,5] parameter(1)
  bt = f32[5,4] transpose(b), dimensions={1,0}
  ROOT d = f32[6,4] dot(a, bt), lhs_contracting_dims={1}, rhs_contracting_dims={0}`, never,
			"dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}", false},
		{"lhs X^T", `
  a = f32[5,6] parameter(0)
  at = f32[6,5] transpose(a), dimensions={1,0}
  b = f32[5,4] parameter(1)
  ROOT d = f32[6,4] dot(at, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}`, never,
			"dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}", false},
		{"heads: [T,H,D] -> [H,T,D], batch H", `
  q = f32[7,3,4] parameter(0)
  k = f32[7,3,4] parameter(1)
  qh = f32[3,7,4] transpose(q), dimensions={1,0,2}
  kh = f32[3,7,4] transpose(k), dimensions={1,0,2}
  ROOT s = f32[3,7,7] dot(qh, kh), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}`, never,
			"dot(q, k), lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={2}", false},
		{"free dims would swap: not folded", `
  a = f32[2,3,5] parameter(0)
  at = f32[3,2,5] transpose(a), dimensions={1,0,2}
  b = f32[5,4] parameter(1)
  ROOT d = f32[3,2,4] dot(at, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}`, never, "", true},
		{"awkward after folding: not folded", `
  a = f32[6,5] parameter(0)
  b = f32[4,5] parameter(1)
  bt = f32[5,4] transpose(b), dimensions={1,0}
  ROOT d = f32[6,4] dot(a, bt), lhs_contracting_dims={1}, rhs_contracting_dims={0}`, always, "", true},
		{"a transpose with another user stays", `
  a = f32[6,5] parameter(0)
  b = f32[4,5] parameter(1)
  bt = f32[5,4] transpose(b), dimensions={1,0}
  d = f32[6,4] dot(a, bt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[6,4], f32[5,4]) tuple(d, bt)`, never,
			"dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := runPass(t, tc.body, func(x *hlo.Module) error { return legalize.FoldDotTransposes(x, tc.awkward) })
			m, x := p.m, p.x
			text := x.String()
			if tc.want != "" {
				require.Contains(t, text, tc.want)
			} else {
				require.Equal(t, m.String(), text)
			}
			require.Equal(t, tc.kept, strings.Contains(text, "transpose("))
			got, err := (&eval.Evaluator{File: "x.hlo", M: x}).Run(p.args)
			require.NoError(t, err)
			require.Equal(t, eval.Leaves(p.want)[0].Data, eval.Leaves(got)[0].Data) // exactly: a fold reorders no arithmetic
		})
	}
}
