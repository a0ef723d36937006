package expand_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// choleskyF64 is the textbook factorization of a symmetric positive
// definite n x n matrix (row-major), lower.
func choleskyF64(a []float64, n int) []float64 {
	l := make([]float64, n*n)
	for j := range n {
		s := a[j*n+j]
		for k := range j {
			s -= l[j*n+k] * l[j*n+k]
		}
		l[j*n+j] = math.Sqrt(s)
		for i := j + 1; i < n; i++ {
			t := a[i*n+j]
			for k := range j {
				t -= l[i*n+k] * l[j*n+k]
			}
			l[i*n+j] = t / l[j*n+j]
		}
	}
	return l
}

// TestExpandCholeskys: XLA's blocked Cholesky as the evaluator and the
// chips compute it, against the textbook factorization in float64 of
// A = B B^T + n I: lower and upper, batched, one block (n = 1, 5) and two
// (n = 130: 128 + 2, the second through a triangular solve), garbage in
// the triangle not read; a batch element that is not positive definite
// comes out all NaN without touching the others.
func TestExpandCholeskys(t *testing.T) {
	for _, c := range []struct {
		n     int
		batch string
		lower bool
	}{{1, "", true}, {5, "", true}, {5, "3,", false}, {130, "", true}, {130, "2,", false}} {
		t.Run(fmt.Sprintf("n=%d batch=%q lower=%v", c.n, c.batch, c.lower), func(t *testing.T) {
			shape := fmt.Sprintf("f64[%s%d,%d]", c.batch, c.n, c.n)
			r := len(c.batch)/2 + 2
			dir := map[bool]string{true: "LT", false: "GT"}[c.lower]
			src := fmt.Sprintf(`HloModule ch
ENTRY e {
  b = %[1]s parameter(0)
  bbt = %[1]s dot(b, b), lhs_batch_dims=%[2]s, rhs_batch_dims=%[2]s, lhs_contracting_dims={%[3]d}, rhs_contracting_dims={%[3]d}
  i = s32[%[6]s%[4]d,%[4]d] iota(), iota_dimension=%[5]d
  j = s32[%[6]s%[4]d,%[4]d] iota(), iota_dimension=%[3]d
  eq = pred[%[6]s%[4]d,%[4]d] compare(i, j), direction=EQ
  nb = f64[] constant(%[4]d)
  nbs = %[1]s broadcast(nb), dimensions={}
  zero = %[1]s broadcast(f64[] constant(0)), dimensions={}
  eye = %[1]s select(eq, nbs, zero)
  spd = %[1]s add(bbt, eye)
  other = pred[%[6]s%[4]d,%[4]d] compare(i, j), direction=%[7]s
  big = %[1]s broadcast(f64[] constant(1e6)), dimensions={}
  a = %[1]s select(other, big, spd)
  ROOT c = %[1]s cholesky(a), lower=%[8]v
}
`, shape, batchList(c.batch), r-1, c.n, r-2, c.batch, dir, c.lower)
			m, err := hlo.Parse("ch.hlo", src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("ch.hlo", m))
			args, err := eval.RandomArgs(m, 4)
			require.NoError(t, err)
			// The SPD matrix, evaluated apart.
			spdM := m.Clone()
			for _, in := range spdM.Entry.Instructions {
				if in.Name == "spd" {
					spdM.Entry.Root.IsRoot = false
					spdM.Entry.Root, in.IsRoot = in, true
				}
			}
			spd, err := (&eval.Evaluator{File: "ch.hlo", M: spdM}).Run(args)
			require.NoError(t, err)
			got, err := (&eval.Evaluator{File: "ch.hlo", M: m}).Run(args)
			require.NoError(t, err)
			n := c.n
			for b := 0; b < len(spd.Data)/(n*n); b++ {
				want := choleskyF64(spd.Data[b*n*n:(b+1)*n*n], n)
				for i := range n {
					for j := range n {
						w := want[i*n+j]
						if !c.lower {
							w = want[j*n+i] // U = L^T
						}
						require.InDelta(t, w, got.Data[b*n*n+i*n+j], 1e-9*(1+math.Abs(w)), "batch %d [%d,%d]", b, i, j)
					}
				}
			}
		})
	}
	// Not positive definite: that batch element is NaN, the other not.
	m, err := hlo.Parse("ch.hlo", `HloModule ch
ENTRY e {
  a = f32[2,3,3] constant({{{4, 0, 0}, {2, 5, 0}, {1, 1, 6}}, {{1, 0, 0}, {2, 1, 0}, {0, 0, 1}}})
  ROOT c = f32[2,3,3] cholesky(a), lower=true
}`)
	require.NoError(t, err)
	out, err := (&eval.Evaluator{File: "ch.hlo", M: m}).Run(nil)
	require.NoError(t, err)
	require.Equal(t, []float64{2, 0, 0, 1, 2, 0}, out.Data[:6])
	for _, v := range out.Data[9:] {
		require.True(t, math.IsNaN(v), "%v", out.Data[9:])
	}
}

// batchList is "{0}" for "3,", "{}" for "".
func batchList(batch string) string {
	if batch == "" {
		return "{}"
	}
	return "{0}"
}
