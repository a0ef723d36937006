package lowering_test

import (
	"fmt"
	"testing"
)

// TestTriangularSolve: triangular-solve (hlo.ExpandTriangularSolves'
// substitution loop) on both chips against the evaluator's direct solve,
// left and right, lower and upper, transposed, unit diagonal, batched. The
// diagonal is kept away from zero: a well-conditioned f32 system, whose
// loop and direct solve agree within the f32 tolerance.
func TestTriangularSolve(t *testing.T) {
	for _, c := range []struct{ a, b, attrs string }{
		{"8,8", "8,4", "left_side=true, lower=true, transpose_a=NO_TRANSPOSE"},
		{"8,8", "8,4", "left_side=true, lower=false, transpose_a=TRANSPOSE, unit_diagonal=true"},
		{"3,6,6", "3,5,6", "left_side=false, lower=true, transpose_a=ADJOINT"},
		{"2,6,2,2", "2,6,2,2", "left_side=true, lower=false, transpose_a=NO_TRANSPOSE"},
	} {
		r := len(c.a)/2 + 1
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  r = f32[%[1]s] parameter(0)
  b = f32[%[2]s] parameter(1)
  i = s32[%[1]s] iota(), iota_dimension=%[3]d
  j = s32[%[1]s] iota(), iota_dimension=%[4]d
  eq = pred[%[1]s] compare(i, j), direction=EQ
  four = f32[] constant(4)
  fours = f32[%[1]s] broadcast(four), dimensions={}
  d = f32[%[1]s] add(r, fours)
  a = f32[%[1]s] select(eq, d, r)
  ROOT x = f32[%[2]s] triangular-solve(a, b), %[5]s
}`, c.a, c.b, r-2, r-1, c.attrs)
		for _, chip := range chips {
			t.Run(c.attrs+"/"+chip, func(t *testing.T) {
				runChecked(t, chip, src)
			})
		}
	}
}
