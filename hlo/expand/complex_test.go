package expand_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// complexOut reads a c64/c128 value's elements.
func complexOut(t *testing.T, v *eval.Value) []complex128 {
	require.True(t, hlo.IsComplex(v.Shape.Elem), "%s", v.Shape)
	require.Len(t, v.Data, 2*int(v.Shape.Elems()))
	out := make([]complex128, v.Shape.Elems())
	for i := range out {
		out[i] = complex(v.Data[2*i], v.Data[2*i+1])
	}
	return out
}

func nearC(t *testing.T, want, got complex128, tol float64, msg string) {
	t.Helper()
	require.InDelta(t, real(want), real(got), tol*(1+cmplx.Abs(want)), "%s: real part of %v vs %v", msg, got, want)
	require.InDelta(t, imag(want), imag(got), tol*(1+cmplx.Abs(want)), "%s: imaginary part of %v vs %v", msg, got, want)
}

// TestComplexArithmetic: ExpandComplex's arithmetic, as the evaluator
// evaluates it, against Go's complex128 on random c128 values: +, -, *, /
// (Smith), negate, abs, real, imag, complex, conj (complex(real, -imag)),
// converts, compare, select, the layout ops, a dot, a sum and a constant.
func TestComplexArithmetic(t *testing.T) {
	src := `HloModule cx
sum {
  p = c128[] parameter(0)
  q = c128[] parameter(1)
  ROOT s = c128[] add(p, q)
}
ENTRY e {
  a = c128[3,4] parameter(0)
  b = c128[3,4] parameter(1)
  x = f64[3,4] parameter(2)
  add = c128[3,4] add(a, b)
  sub = c128[3,4] subtract(a, b)
  mul = c128[3,4] multiply(a, b)
  div = c128[3,4] divide(a, b)
  neg = c128[3,4] negate(a)
  abs = f64[3,4] abs(a)
  re = f64[3,4] real(a)
  im = f64[3,4] imag(a)
  nim = f64[3,4] negate(im)
  conj = c128[3,4] complex(re, nim)
  cx = c128[3,4] convert(x)
  c64 = c64[3,4] convert(a)
  eq = pred[3,4] compare(a, a), direction=EQ
  ne = pred[3,4] compare(a, b), direction=NE
  sel = c128[3,4] select(ne, b, a)
  tr = c128[4,3] transpose(a), dimensions={1,0}
  sl = c128[2,2] slice(a), slice={[1:3], [0:4:2]}
  rs = c128[12] reshape(a)
  bc = c128[2,3,4] broadcast(a), dimensions={1,2}
  dot = c128[3,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  zero = c128[] constant((0.5, -1))
  s = c128[3] reduce(a, zero), dimensions={1}, to_apply=sum
  k = c128[2] constant({(1, 2), (3, -4.5)})
  ROOT t = (c128[3,4], c128[3,4], c128[3,4], c128[3,4], c128[3,4], f64[3,4], c128[3,4], c128[3,4], c64[3,4], pred[3,4], pred[3,4], c128[3,4], c128[4,3], c128[2,2], c128[12], c128[2,3,4], c128[3,3], c128[3], c128[2]) tuple(add, sub, mul, div, neg, abs, conj, cx, c64, eq, ne, sel, tr, sl, rs, bc, dot, s, k)
}
`
	m, err := hlo.Parse("cx.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("cx.hlo", m))
	args, err := eval.RandomArgs(m, 3)
	require.NoError(t, err)
	out, err := (&eval.Evaluator{File: "cx.hlo", M: m}).Run(args)
	require.NoError(t, err)
	a, b := complexOut(t, args[0]), complexOut(t, args[1])
	x := args[2].Data
	o := out.Tuple
	get := func(i int) []complex128 { return complexOut(t, o[i]) }
	for i := range 12 {
		nearC(t, a[i]+b[i], get(0)[i], 1e-15, "add")
		nearC(t, a[i]-b[i], get(1)[i], 1e-15, "subtract")
		nearC(t, a[i]*b[i], get(2)[i], 1e-15, "multiply")
		nearC(t, a[i]/b[i], get(3)[i], 1e-14, "divide")
		nearC(t, -a[i], get(4)[i], 0, "negate")
		require.InDelta(t, cmplx.Abs(a[i]), o[5].Data[i], 1e-15, "abs")
		nearC(t, cmplx.Conj(a[i]), get(6)[i], 0, "conj")
		nearC(t, complex(x[i], 0), get(7)[i], 0, "convert real to complex")
		nearC(t, complex(float64(float32(real(a[i]))), float64(float32(imag(a[i])))), get(8)[i], 0, "convert c128 to c64")
		require.Equal(t, 1.0, o[9].Data[i], "eq")
		require.Equal(t, 1.0, o[10].Data[i], "ne")
		nearC(t, b[i], get(11)[i], 0, "select")
		nearC(t, a[i], get(14)[i], 0, "reshape")
	}
	for i := range 3 {
		for j := range 4 {
			nearC(t, a[i*4+j], get(12)[j*3+i], 0, "transpose")
			for k := range 2 {
				nearC(t, a[i*4+j], get(15)[k*12+i*4+j], 0, "broadcast")
			}
		}
		var s complex128 = complex(0.5, -1)
		for j := range 4 {
			s += a[i*4+j]
		}
		nearC(t, s, get(17)[i], 1e-15, "reduce")
		for j := range 3 {
			var d complex128
			for k := range 4 {
				d += a[i*4+k] * b[j*4+k]
			}
			nearC(t, d, get(16)[i*3+j], 1e-15, "dot")
		}
	}
	for i, w := range []complex128{a[4], a[6], a[8], a[10]} {
		nearC(t, w, get(13)[i], 0, "slice")
	}
	require.Equal(t, []complex128{complex(1, 2), complex(3, -4.5)}, get(18), "constant")
}

// TestComplexFFT: fft of every type against a direct DFT in complex128
// (numpy's conventions: forward e^-2pi i kn/N, inverse scaled by 1/N,
// rfft's half spectrum, irfft's Hermitian reading), 1-D to 3-D.
func TestComplexFFT(t *testing.T) {
	dft := func(z []complex128, inverse bool) []complex128 {
		n := len(z)
		out := make([]complex128, n)
		sign := -1.0
		if inverse {
			sign = 1
		}
		for k := range n {
			for j := range n {
				out[k] += z[j] * cmplx.Exp(complex(0, sign*2*math.Pi*float64(j*k%n)/float64(n)))
			}
			if inverse {
				out[k] /= complex(float64(n), 0)
			}
		}
		return out
	}
	// A separable transform over the last dims of a row-major array.
	along := func(z []complex128, dims []int, d int, f func([]complex128) []complex128) []complex128 {
		stride := 1
		for _, v := range dims[d+1:] {
			stride *= v
		}
		n := dims[d]
		out := append([]complex128{}, z...)
		for base := range len(z) {
			if (base/stride)%n != 0 {
				continue
			}
			line := make([]complex128, n)
			for i := range n {
				line[i] = z[base+i*stride]
			}
			for i, v := range f(line) {
				out[base+i*stride] = v
			}
		}
		return out
	}
	for _, c := range []struct {
		typ        string
		in, out    string
		lengths    string
		dims       []int
		transforms int
	}{
		{"FFT", "c128[3,8]", "c128[3,8]", "{8}", []int{3, 8}, 1},
		{"IFFT", "c128[2,5,6]", "c128[2,5,6]", "{5,6}", []int{2, 5, 6}, 2},
		{"FFT", "c128[2,3,4,5]", "c128[2,3,4,5]", "{3,4,5}", []int{2, 3, 4, 5}, 3},
		{"RFFT", "f64[3,8]", "c128[3,5]", "{8}", []int{3, 8}, 1},
		{"RFFT", "f64[4,7]", "c128[4,4]", "{4,7}", []int{4, 7}, 2},
		{"IRFFT", "c128[3,5]", "f64[3,8]", "{8}", []int{3, 8}, 1},
		{"IRFFT", "c128[4,4]", "f64[4,7]", "{4,7}", []int{4, 7}, 2},
		// Direct up to 512 when the work is small (300, 256: one matrix
		// product); four-step beyond: 600 = 24 x 25, 1024 = 32 x 32,
		// 2048 = 32 x 64 (64 and 32 direct), 514 = 2 x 257 (257 prime,
		// direct); RFFT and IRFFT through the complex transform and the
		// Hermitian spectrum.
		{"FFT", "c128[2,300]", "c128[2,300]", "{300}", []int{2, 300}, 1},
		{"RFFT", "f64[3,256]", "c128[3,129]", "{256}", []int{3, 256}, 1},
		{"FFT", "c128[2,600]", "c128[2,600]", "{600}", []int{2, 600}, 1},
		{"IFFT", "c128[1024]", "c128[1024]", "{1024}", []int{1024}, 1},
		{"FFT", "c128[2048]", "c128[2048]", "{2048}", []int{2048}, 1},
		{"FFT", "c128[514]", "c128[514]", "{514}", []int{514}, 1},
		{"RFFT", "f64[2,600]", "c128[2,301]", "{600}", []int{2, 600}, 1},
		{"IRFFT", "c128[2,301]", "f64[2,600]", "{600}", []int{2, 600}, 1},
		{"IRFFT", "c128[3,129]", "f64[3,257]", "{3,257}", []int{3, 257}, 2},
	} {
		t.Run(fmt.Sprintf("%s %s %s", c.typ, c.in, c.lengths), func(t *testing.T) {
			src := fmt.Sprintf("HloModule f\nENTRY e {\n  z = %s parameter(0)\n  ROOT f = %s fft(z), fft_type=%s, fft_length=%s\n}\n", c.in, c.out, c.typ, c.lengths)
			m, err := hlo.Parse("f.hlo", src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("f.hlo", m))
			args, err := eval.RandomArgs(m, 5)
			require.NoError(t, err)
			out, err := (&eval.Evaluator{File: "f.hlo", M: m}).Run(args)
			require.NoError(t, err)
			dims := c.dims
			r := len(dims)
			var z []complex128
			switch c.typ {
			case "RFFT":
				for _, v := range args[0].Data {
					z = append(z, complex(v, 0))
				}
			case "IRFFT":
				// numpy's irfftn: the inverse DFT along the leading
				// transformed dims of the half spectrum, then along the
				// last of the full spectrum each row stands for.
				half := complexOut(t, args[0])
				n := dims[r-1]
				m := n/2 + 1
				hd := append(append([]int{}, dims[:r-1]...), m)
				for d := r - c.transforms; d < r-1; d++ {
					half = along(half, hd, d, func(l []complex128) []complex128 { return dft(l, true) })
				}
				for row := range len(half) / m {
					full := make([]complex128, n)
					for k := range n {
						if k < m {
							full[k] = half[row*m+k]
						} else {
							full[k] = cmplx.Conj(half[row*m+n-k])
						}
					}
					full[0] = complex(real(full[0]), 0)
					if n%2 == 0 {
						full[n/2] = complex(real(full[n/2]), 0)
					}
					z = append(z, dft(full, true)...)
				}
			default:
				z = complexOut(t, args[0])
			}
			inverse := c.typ == "IFFT"
			for d := r - c.transforms; d < r && c.typ != "IRFFT"; d++ {
				z = along(z, dims, d, func(l []complex128) []complex128 { return dft(l, inverse) })
			}
			switch c.typ {
			case "RFFT":
				got := complexOut(t, out)
				n, m := dims[r-1], dims[r-1]/2+1
				for row := range len(z) / n {
					for k := range m {
						nearC(t, z[row*n+k], got[row*m+k], 1e-11, "rfft")
					}
				}
			case "IRFFT":
				for i, w := range z {
					require.InDelta(t, 0, imag(w), 1e-11)
					require.InDelta(t, real(w), out.Data[i], 1e-11, "irfft element %d", i)
				}
			default:
				for i, g := range complexOut(t, out) {
					nearC(t, z[i], g, 1e-11, c.typ)
				}
			}
		})
	}
}

// TestFFTRefusals: lengths whose prime factor is too big for one matrix.
func TestFFTRefusals(t *testing.T) {
	m, err := hlo.Parse("f.hlo", "HloModule f\nENTRY e {\n  z = c64[1042] parameter(0)\n  ROOT f = c64[1042] fft(z), fft_type=FFT, fft_length={1042}\n}\n")
	require.NoError(t, err)
	require.ErrorContains(t, expand.ExpandComplex(m), "4:3: f: fft: an FFT of length 1042: its prime factor 521 is above 512")
}

// TestComplexMath: exp, log, sqrt and power of complex values against
// Go's cmplx (principal branches), on values in every quadrant, on the
// axes and at 0 (sqrt).
func TestComplexMath(t *testing.T) {
	src := `HloModule cm
ENTRY e {
  z = c128[10] constant({(1, 2), (-3, 4), (-0.5, -0.25), (2, -7), (0, 1), (0, -2), (-4, 0), (4, 0), (1e-3, 5), (-2, 1e-4)})
  w = c128[10] constant({(0.5, 0), (2, 1), (-1, 0.5), (0, 1), (3, 0), (1, -1), (0.5, 0.5), (2, 0), (1, 1), (-0.5, 2)})
  e = c128[10] exponential(z)
  l = c128[10] log(z)
  s = c128[10] sqrt(z)
  p = c128[10] power(z, w)
  zero = c128[] constant((0, 0))
  s0 = c128[] sqrt(zero)
  ROOT t = (c128[10], c128[10], c128[10], c128[10], c128[]) tuple(e, l, s, p, s0)
}
`
	m, err := hlo.Parse("cm.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("cm.hlo", m))
	out, err := (&eval.Evaluator{File: "cm.hlo", M: m}).Run(nil)
	require.NoError(t, err)
	z := []complex128{1 + 2i, -3 + 4i, -0.5 - 0.25i, 2 - 7i, 1i, -2i, -4, 4, 1e-3 + 5i, -2 + 1e-4i}
	w := []complex128{0.5, 2 + 1i, -1 + 0.5i, 1i, 3, 1 - 1i, 0.5 + 0.5i, 2, 1 + 1i, -0.5 + 2i}
	for i := range z {
		nearC(t, cmplx.Exp(z[i]), complexOut(t, out.Tuple[0])[i], 1e-14, fmt.Sprintf("exp %v", z[i]))
		nearC(t, cmplx.Log(z[i]), complexOut(t, out.Tuple[1])[i], 1e-14, fmt.Sprintf("log %v", z[i]))
		nearC(t, cmplx.Sqrt(z[i]), complexOut(t, out.Tuple[2])[i], 1e-14, fmt.Sprintf("sqrt %v", z[i]))
		nearC(t, cmplx.Pow(z[i], w[i]), complexOut(t, out.Tuple[3])[i], 1e-12, fmt.Sprintf("power %v %v", z[i], w[i]))
	}
	require.Equal(t, []float64{0, 0}, out.Tuple[4].Data, "sqrt 0")
}

// TestFFTDirectOrFourStep: a DFT of up to 512 points whose work is small
// (rows x n^2 up to 2^25 multiply-adds) is one matrix product per part (an
// RFFT of f32[16,256]: two dots, cosines and sines); a large batch of the
// same length takes the four steps, fewer operations in more kernels.
func TestFFTDirectOrFourStep(t *testing.T) {
	for _, tc := range []struct {
		rows int
		dots int // at most, for the direct product; more than it otherwise
		four bool
	}{{16, 2, false}, {4096, 2, true}} {
		m, err := hlo.Parse("f.hlo", fmt.Sprintf("HloModule f\nENTRY e {\n  z = f32[%d,256] parameter(0)\n  ROOT f = c64[%d,129] fft(z), fft_type=RFFT, fft_length={256}\n}\n", tc.rows, tc.rows))
		require.NoError(t, err)
		require.NoError(t, expand.ExpandComplex(m))
		dots := strings.Count(m.String(), " dot(")
		if tc.four {
			require.Greater(t, dots, tc.dots, "rows %d", tc.rows)
		} else {
			require.Equal(t, tc.dots, dots, "rows %d", tc.rows)
		}
	}
}
