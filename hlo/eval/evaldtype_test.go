package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// Dtype-aware tolerances: an evaluated result must lie within this many
// units in the last place of its element type from a float64 reference
// (gonum for products, Go's math for functions). A correctly rounded
// operation is within half an ulp; 1 ulp allows the reference's own
// float64 error to tip a rounding the other way.
var ulpTolerance = map[string]float64{"f32": 1, "bf16": 1, "f16": 1}

// ulp is the spacing of elem's values at x.
func ulp(elem string, x float64) float64 {
	man := map[string]int{"f32": 23, "bf16": 7, "f16": 10}[elem]
	minExp := map[string]int{"f32": -126, "bf16": -126, "f16": -14}[elem]
	_, e := math.Frexp(x)
	e-- // x = 1.f * 2^e
	if e < minExp {
		e = minExp
	}
	return math.Ldexp(1, e-man)
}

// TestEvalDtypesAgainstFloat64: dot (against gonum), add, multiply,
// divide, exp, tanh and rsqrt in f32, bf16 and f16, on random inputs of each
// type: every result is a value of its type, within ulpTolerance of the
// float64 reference.
func TestEvalDtypesAgainstFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const m, k, n = 6, 40, 5
	for _, elem := range []string{"f32", "bf16", "f16"} {
		t.Run(elem, func(t *testing.T) {
			src := fmt.Sprintf(`ENTRY e {
  a = %[1]s[%[2]d,%[3]d] parameter(0)
  b = %[1]s[%[3]d,%[4]d] parameter(1)
  d = %[1]s[%[2]d,%[4]d] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  x = %[1]s[%[2]d,%[3]d] parameter(2)
  y = %[1]s[%[2]d,%[3]d] parameter(3)
  s = %[1]s[%[2]d,%[3]d] add(x, y)
  p = %[1]s[%[2]d,%[3]d] multiply(x, y)
  q = %[1]s[%[2]d,%[3]d] divide(x, y)
  ex = %[1]s[%[2]d,%[3]d] exponential(x)
  th = %[1]s[%[2]d,%[3]d] tanh(x)
  ab = %[1]s[%[2]d,%[3]d] abs(y)
  rs = %[1]s[%[2]d,%[3]d] rsqrt(ab)
  ROOT t = (%[1]s[%[2]d,%[4]d], %[1]s[%[2]d,%[3]d], %[1]s[%[2]d,%[3]d], %[1]s[%[2]d,%[3]d], %[1]s[%[2]d,%[3]d], %[1]s[%[2]d,%[3]d], %[1]s[%[2]d,%[3]d]) tuple(d, s, p, q, ex, th, rs)
}`, elem, m, k, n)
			rnd := func(dims ...int64) *Value {
				v := Array(elem, dims, make([]float64, dims[0]*dims[1])...)
				for i := range v.Data {
					v.Data[i] = hlo.Round(elem, 4*r.Float64()-2)
					if v.Data[i] == 0 {
						v.Data[i] = 0.5
					}
				}
				return v
			}
			a, b, x, y := rnd(m, k), rnd(k, n), rnd(m, k), rnd(m, k)
			v := evalText(t, src, a, b, x, y)
			check := func(name string, got, want float64) {
				t.Helper()
				require.Equal(t, hlo.Round(elem, got), got, "%s %s: %v is not a value of the type", elem, name, got)
				tol := ulpTolerance[elem] * ulp(elem, want)
				require.LessOrEqual(t, math.Abs(got-want), tol, "%s %s: got %v, float64 reference %v", elem, name, got, want)
			}
			ref := mat.NewDense(m, n, nil)
			ref.Mul(mat.NewDense(m, k, a.Data), mat.NewDense(k, n, b.Data))
			for i := range m {
				for j := range n {
					check("dot", v.Tuple[0].Data[i*n+j], ref.At(i, j))
				}
			}
			fs := []func(x, y float64) float64{
				func(x, y float64) float64 { return x + y },
				func(x, y float64) float64 { return x * y },
				func(x, y float64) float64 { return x / y },
				func(x, _ float64) float64 { return math.Exp(x) },
				func(x, _ float64) float64 { return math.Tanh(x) },
				func(_, y float64) float64 { return 1 / math.Sqrt(math.Abs(y)) },
			}
			for f, fn := range fs {
				for i := range x.Data {
					check([]string{"add", "multiply", "divide", "exponential", "tanh", "rsqrt"}[f], v.Tuple[f+1].Data[i], fn(x.Data[i], y.Data[i]))
				}
			}
		})
	}
}
