package lowering_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"

	"github.com/stretchr/testify/require"
)

// TestTriangularSolve: triangular-solve (expand.ExpandTriangularSolves'
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

// TestComplex: complex arrays (expand.ExpandComplex: (real, imaginary)
// pairs) on both chips against the evaluator: arithmetic, a dot, a sum,
// layout ops and each FFT type, complex parameters and results included.
func TestComplex(t *testing.T) {
	for name, src := range map[string]string{
		"arithmetic": `HloModule m
sum {
  p = c64[] parameter(0)
  q = c64[] parameter(1)
  ROOT s = c64[] add(p, q)
}
ENTRY e {
  a = c64[8,16] parameter(0)
  b = c64[8,16] parameter(1)
  m = c64[8,16] multiply(a, b)
  d = c64[8,16] divide(m, b)
  t = c64[16,8] transpose(d), dimensions={1,0}
  p = c64[16,16] dot(t, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = c64[] constant((0, 0))
  s = c64[16] reduce(p, z), dimensions={1}, to_apply=sum
  r = f32[16] abs(s)
  ROOT o = (c64[16,16], c64[16], f32[16]) tuple(p, s, r)
}`,
		"fft": `HloModule m
ENTRY e {
  x = f32[4,32] parameter(0)
  r = c64[4,17] fft(x), fft_type=RFFT, fft_length={32}
  f = c64[4,17] fft(r), fft_type=FFT, fft_length={4,17}
  i = c64[4,17] fft(f), fft_type=IFFT, fft_length={4,17}
  y = f32[4,32] fft(i), fft_type=IRFFT, fft_length={32}
  ROOT o = (c64[4,17], f32[4,32]) tuple(f, y)
}`,
		"rotary embedding with exp(i theta), sqrt, log, power": `HloModule m
ENTRY e {
  q = f32[16,64] parameter(0)
  k = f32[16,64] parameter(1)
  theta = f32[16,64] parameter(2)
  zero = f32[16,64] broadcast(f32[] constant(0)), dimensions={}
  it = c64[16,64] complex(zero, theta)
  rot = c64[16,64] exponential(it)
  z = c64[16,64] complex(q, k)
  r = c64[16,64] multiply(z, rot)
  s = c64[16,64] sqrt(r)
  l = c64[16,64] log(s)
  p = c64[16,64] power(r, s)
  ROOT o = (c64[16,64], c64[16,64], c64[16,64], c64[16,64]) tuple(r, s, l, p)
}`,
		"four-step fft": `HloModule m
ENTRY e {
  z = c64[4,1024] parameter(0)
  f = c64[4,1024] fft(z), fft_type=FFT, fft_length={1024}
  x = f32[2,300] parameter(1)
  r = c64[2,151] fft(x), fft_type=RFFT, fft_length={300}
  y = f32[2,300] fft(r), fft_type=IRFFT, fft_length={300}
  ROOT o = (c64[4,1024], c64[2,151], f32[2,300]) tuple(f, r, y)
}`,
	} {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) {
				runChecked(t, chip, src)
			})
		}
	}
}

// TestCholesky: cholesky (expand.ExpandCholeskys, XLA's blocked algorithm)
// on both chips against the evaluator, lower and upper, of B B^T + n I.
func TestCholesky(t *testing.T) {
	for _, c := range []struct {
		n     int
		lower bool
	}{{12, true}, {12, false}, {130, true}} {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  b = f32[%[1]d,%[1]d] parameter(0)
  bbt = f32[%[1]d,%[1]d] dot(b, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  i = s32[%[1]d,%[1]d] iota(), iota_dimension=0
  j = s32[%[1]d,%[1]d] iota(), iota_dimension=1
  eq = pred[%[1]d,%[1]d] compare(i, j), direction=EQ
  nbs = f32[%[1]d,%[1]d] broadcast(f32[] constant(%[1]d)), dimensions={}
  zero = f32[%[1]d,%[1]d] broadcast(f32[] constant(0)), dimensions={}
  a = f32[%[1]d,%[1]d] add(bbt, f32[%[1]d,%[1]d] select(eq, nbs, zero))
  ROOT c = f32[%[1]d,%[1]d] cholesky(a), lower=%[2]v
}`, c.n, c.lower)
		for _, chip := range chips {
			if c.n > 100 && chip == "teach16" {
				continue // the 128-column block's loop: seconds on the small chip
			}
			t.Run(fmt.Sprintf("n=%d lower=%v/%s", c.n, c.lower, chip), func(t *testing.T) {
				runChecked(t, chip, src)
			})
		}
	}
}

// TestNextAfter: next-after (expand.ExpandNextAfters, on the bits) on both
// chips against the evaluator's math.Nextafter, bit for bit (a step the
// wrong way is one ulp, inside any tolerance): towards and away from
// zero, from and to zero (-0 too), equal values, infinities, NaN, in f32,
// bf16 and f16.
func TestNextAfter(t *testing.T) {
	for _, elem := range []string{"f32", "bf16", "f16"} {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  x = %[1]s[12] constant({1, 1, -1, -1, 0, -0, 0, 2, inf, inf, nan, 3})
  y = %[1]s[12] constant({2, 0, -2, 5, 1, -1, 0, 2, 0, inf, 1, nan})
  ROOT a = %[1]s[12] next-after(x, y)
}`, elem)
		m, err := hlo.Parse("t.hlo", src)
		require.NoError(t, err)
		want, err := (&eval.Evaluator{File: "t.hlo", M: m}).Run(nil)
		require.NoError(t, err)
		for _, chip := range chips {
			t.Run(elem+"/"+chip, func(t *testing.T) {
				got, _ := rawOutputs(t, chip, src)
				require.Len(t, got, 1)
				for i, w := range want.Data {
					g := got[0][i]
					if math.IsNaN(w) {
						require.True(t, math.IsNaN(g), "element %d: got %v, want NaN", i, g)
						continue
					}
					require.Equal(t, math.Float64bits(w), math.Float64bits(g), "element %d: got %v, want %v", i, g, w)
				}
			})
		}
	}
}

// TestErfInv: erf-inv (expand.ExpandErfInvs, Giles' approximation in f32) on
// both chips against the evaluator's math.Erfinv, f32 and f16, ±1
// included.
func TestErfInv(t *testing.T) {
	for _, elem := range []string{"f32", "f16"} {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  x = %[1]s[256] parameter(0)
  a = %[1]s[256] erf-inv(x)
  e = %[1]s[6] constant({1, -1, 0, 0.5, -0.99, 0.999})
  b = %[1]s[6] erf-inv(e)
  ROOT o = (%[1]s[256], %[1]s[6]) tuple(a, b)
}`, elem)
		for _, chip := range chips {
			t.Run(elem+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// TestErfc: erfc (expand.ExpandErfcs, Cephes as XLA computes it) on both
// chips against the evaluator's math.Erfc, f32 and bf16.
func TestErfc(t *testing.T) {
	for _, elem := range []string{"f32", "bf16"} {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  x = %[1]s[256] parameter(0)
  k = %[1]s[256] broadcast(%[1]s[] constant(3)), dimensions={}
  a = %[1]s[256] erfc(%[1]s[256] multiply(x, k))
  e = %[1]s[7] constant({0, 1, -1, 1.5, -2.5, 4, 9})
  b = %[1]s[7] erfc(e)
  ROOT o = (%[1]s[256], %[1]s[7]) tuple(a, b)
}`, elem)
		for _, chip := range chips {
			t.Run(elem+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// TestBesselI1e: bessel-i1e (expand.ExpandBesselI1es, Cephes as XLA computes
// it) on both chips against the evaluator's own series, f32 and bf16.
func TestBesselI1e(t *testing.T) {
	for _, elem := range []string{"f32", "bf16"} {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  x = %[1]s[256] parameter(0)
  k = %[1]s[256] broadcast(%[1]s[] constant(20)), dimensions={}
  ROOT a = %[1]s[256] bessel-i1e(%[1]s[256] multiply(x, k))
}`, elem)
		for _, chip := range chips {
			t.Run(elem+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}
