package hlo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxFFTLength bounds each transformed dimension: Pulse computes a DFT as
// a product with an n x n matrix of twiddle factors (exact to the part
// type's rounding of each factor), whose size and O(n^2) work grow with
// n. XLA's FFT library is O(n log n).
const maxFFTLength = 2048

// expandFFT rewrites fft (fft_type FFT, IFFT, RFFT, IRFFT over the last
// len(fft_length) dims) into DFT matrix products along each transformed
// dimension: separable, so one 1-D transform per dimension. The inverse
// transforms scale by 1/n (folded into their factors), IRFFT reads the
// half spectrum as numpy does (Hermitian: the imaginary parts of the DC
// and Nyquist terms are ignored). op is the rewritten operand, orig its
// shape before.
func (x *rewriter) expandFFT(op *Instruction, orig *Shape) error {
	in := x.at
	typ, _ := in.Attr("fft_type")
	lv, _ := in.Attr("fft_length")
	lengths := parseIntList(lv)
	s := in.Shape
	r := len(orig.Dims)
	k := len(lengths)
	if k < 1 || k > 3 || k > r {
		return x.errorf("fft_length %s: 1 to 3 transformed dims of a rank-%d operand", lv, r)
	}
	for _, n := range lengths {
		if n < 1 || n > maxFFTLength {
			return x.errorf("an FFT of length %d: Pulse computes each dim as a DFT matrix product, for lengths 1 to %d", n, maxFFTLength)
		}
	}
	first := r - k
	switch typ {
	case "FFT", "IFFT":
		if !IsComplex(orig.Elem) || !equalDims(orig.Dims, s.Dims) {
			return x.errorf("%s maps a complex array to one of its shape", typ)
		}
		re, im := x.complexPart(op, 0), x.complexPart(op, 1)
		for d := first; d < r; d++ {
			if orig.Dims[d] != lengths[d-first] {
				return x.errorf("dim %d is %d, fft_length says %d", d, orig.Dims[d], lengths[d-first])
			}
			re, im = x.dft(re, im, d, typ == "IFFT")
		}
		x.finish(x.complexJoin(re, im))
	case "RFFT":
		last := lengths[k-1]
		if IsComplex(orig.Elem) || orig.Dims[r-1] != last || s.Dims[r-1] != last/2+1 {
			return x.errorf("RFFT maps a real array whose last dim is fft_length's last (%d) to %d complex values", last, last/2+1)
		}
		re, im := x.realDFT(op, r-1, last)
		for d := first; d < r-1; d++ {
			re, im = x.dft(re, im, d, false)
		}
		x.finish(x.complexJoin(re, im))
	case "IRFFT":
		last := lengths[k-1]
		if !IsComplex(orig.Elem) || IsComplex(s.Elem) || orig.Dims[r-1] != last/2+1 || s.Dims[r-1] != last {
			return x.errorf("IRFFT maps %d complex values along the last dim to a real array of fft_length's last (%d)", last/2+1, last)
		}
		re, im := x.complexPart(op, 0), x.complexPart(op, 1)
		for d := first; d < r-1; d++ {
			re, im = x.dft(re, im, d, true)
		}
		x.finish(x.inverseRealDFT(re, im, r-1, last))
	default:
		return x.errorf("fft_type %q", typ)
	}
	return nil
}

// matrixConstant is an n x m constant of elem with f(i, j) as its values
// (computed in float64, rounded once).
func (x *rewriter) matrixConstant(elem string, n, m int64, f func(i, j int64) float64) *Instruction {
	var b strings.Builder
	b.WriteString("{")
	bits := 64
	if elem == "f32" {
		bits = 32
	}
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{")
		for j := range m {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatFloat(round(elem, f(i, j)), 'g', -1, bits))
		}
		b.WriteString("}")
	}
	b.WriteString("}")
	c := x.emit("constant", elem, []int64{n, m}, nil)
	c.Literal = b.String()
	return c
}

// along applies matrix M [n, m] to dim d of a (whose size is n): the dot
// contracting d, the new dim moved back to d.
func (x *rewriter) along(a *Instruction, d int, M *Instruction) *Instruction {
	ad := a.Shape.Dims
	r := len(ad)
	var dims []int64
	for i, v := range ad {
		if i != d {
			dims = append(dims, v)
		}
	}
	dims = append(dims, M.Shape.Dims[1])
	p := x.emit("dot", a.Shape.Elem, dims, []*Instruction{a, M},
		"lhs_contracting_dims", fmt.Sprintf("{%d}", d), "rhs_contracting_dims", "{0}")
	// The result's dims: a's without d, then the new one; put it at d.
	perm := make([]int64, 0, r)
	for i := range r {
		switch {
		case i < d:
			perm = append(perm, int64(i))
		case i == d:
			perm = append(perm, int64(r-1))
		default:
			perm = append(perm, int64(i-1))
		}
	}
	return x.transpose(p, perm)
}

// twiddles are cos and sin of 2 pi i j / n, times scale.
func twiddles(n int64, scale float64) (c, s func(i, j int64) float64) {
	angle := func(i, j int64) float64 { return 2 * math.Pi * float64((i*j)%n) / float64(n) }
	return func(i, j int64) float64 { return scale * math.Cos(angle(i, j)) },
		func(i, j int64) float64 { return scale * math.Sin(angle(i, j)) }
}

// dft is the complex DFT of (re, im) along d: forward
// Y = sum z (cos - i sin), inverse (1/n) sum z (cos + i sin).
func (x *rewriter) dft(re, im *Instruction, d int, inverse bool) (*Instruction, *Instruction) {
	n := re.Shape.Dims[d]
	elem := re.Shape.Elem
	scale := 1.0
	if inverse {
		scale = 1 / float64(n)
	}
	cf, sf := twiddles(n, scale)
	C := x.matrixConstant(elem, n, n, cf)
	S := x.matrixConstant(elem, n, n, sf)
	rc, rs, ic, is := x.along(re, d, C), x.along(re, d, S), x.along(im, d, C), x.along(im, d, S)
	if inverse {
		return x.binary("subtract", rc, is), x.binary("add", ic, rs)
	}
	return x.binary("add", rc, is), x.binary("subtract", ic, rs)
}

// realDFT is the half spectrum (n/2+1 terms) of real a along d.
func (x *rewriter) realDFT(a *Instruction, d int, n int64) (*Instruction, *Instruction) {
	elem := a.Shape.Elem
	cf, sf := twiddles(n, 1)
	C := x.matrixConstant(elem, n, n/2+1, cf)
	S := x.matrixConstant(elem, n, n/2+1, func(i, j int64) float64 { return -sf(i, j) })
	return x.along(a, d, C), x.along(a, d, S)
}

// inverseRealDFT is the real signal of n values whose half spectrum
// (n/2+1 terms) is (re, im) along d: (1/n) sum over k of w_k (re cos -
// im sin), w_k 1 for the DC and Nyquist terms and 2 for the others.
func (x *rewriter) inverseRealDFT(re, im *Instruction, d int, n int64) *Instruction {
	elem := re.Shape.Elem
	m := n/2 + 1
	w := func(k int64) float64 {
		if k == 0 || n%2 == 0 && k == n/2 {
			return 1
		}
		return 2
	}
	cf, sf := twiddles(n, 1/float64(n))
	C := x.matrixConstant(elem, m, n, func(k, j int64) float64 { return w(k) * cf(k, j) })
	S := x.matrixConstant(elem, m, n, func(k, j int64) float64 { return w(k) * sf(k, j) })
	return x.binary("subtract", x.along(re, d, C), x.along(im, d, S))
}
