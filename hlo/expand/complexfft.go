package expand

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"math"
	"strconv"
	"strings"
)

// An FFT as matrix products. A DFT of length n up to directDFT is one
// product with its n x n matrix of twiddle factors (a constant, computed in
// float64 and rounded once): the matrix unit's work, as XLA computes small
// FFTs on TPUs. A longer one is split as Cooley and Tukey's four-step
// algorithm does, n = n1 n2 with n1 the divisor nearest sqrt(n): the
// length-n1 DFTs of the n2 columns, a pointwise product with the n1 x n2
// twiddles w^(k1 j2), the length-n2 DFTs of the rows, and a transpose —
// recursively, so the constants are O(n) numbers and the work
// O(n (n1 + n2)). A length with a prime factor above maxDirectDFT is
// refused: its matrix alone would be that prime squared.
//
// Between directDFT and maxDirectDFT the matrix product is chosen when
// its work is small (rows * n^2 up to directDFTWork multiply-adds): the
// four-step algorithm's fewer operations come as a dozen or more small
// kernels (DFTs, twiddles, transposes), each paying a kernel's fixed cost,
// where the matrix product is one, reading a matrix of at most 2 MiB (an
// RFFT of f32[16,256]: 28 kernels and 35,215 cycles on tpuv4core as four
// steps, one dot as a matrix).
const (
	directDFT     = 128
	maxDirectDFT  = 512
	directDFTWork = 1 << 25
	maxFFTLength  = 1 << 20
)

// directPays says whether a DFT of length n over rows rows is one matrix
// product rather than four steps.
func directPays(rows, n int64) bool {
	return n <= directDFT || n <= maxDirectDFT && rows*n*n <= directDFTWork
}

// rowsBut is the product of dims other than d.
func rowsBut(dims []int64, d int) int64 {
	r := int64(1)
	for i, x := range dims {
		if i != d {
			r *= x
		}
	}
	return r
}

// expandFFT rewrites fft (fft_type FFT, IFFT, RFFT, IRFFT over the last
// len(fft_length) dims) into DFTs along each transformed dimension
// (separable: one 1-D transform per dimension). The inverse transforms
// scale by 1/n; RFFT is the first n/2+1 terms of the complex FFT of its
// real input (directly the half-spectrum matrix for short lengths); IRFFT
// reads the half spectrum as numpy does (Hermitian: the imaginary parts
// of the DC and Nyquist terms are ignored). op is the rewritten operand,
// orig its shape before.
func (x *rewriter) expandFFT(op *hlo.Instruction, orig *hlo.Shape) error {
	in := x.At
	typ, _ := in.Attr("fft_type")
	lv, _ := in.Attr("fft_length")
	lengths := parseIntList(lv)
	s := in.Shape
	r := len(orig.Dims)
	k := len(lengths)
	if k < 1 || k > 3 || k > r {
		return x.Errorf("fft_length %s: 1 to 3 transformed dims of a rank-%d operand", lv, r)
	}
	for _, n := range lengths {
		if n < 1 || n > maxFFTLength {
			return x.Errorf("an FFT of length %d: lengths 1 to %d are supported", n, maxFFTLength)
		}
		if p := largestPrimeFactor(n); p > maxDirectDFT {
			return x.Errorf("an FFT of length %d: its prime factor %d is above %d, the longest DFT Pulse computes as one matrix product", n, p, maxDirectDFT)
		}
	}
	first := r - k
	var err error
	switch typ {
	case "FFT", "IFFT":
		if !hlo.IsComplex(orig.Elem) || !hlo.EqualDims(orig.Dims, s.Dims) {
			return x.Errorf("%s maps a complex array to one of its shape", typ)
		}
		re, im := x.complexPart(op, 0), x.complexPart(op, 1)
		for d := first; d < r; d++ {
			if orig.Dims[d] != lengths[d-first] {
				return x.Errorf("dim %d is %d, fft_length says %d", d, orig.Dims[d], lengths[d-first])
			}
			re, im = x.dft(re, im, d, typ == "IFFT")
		}
		x.Finish(x.complexJoin(re, im))
	case "RFFT":
		last := lengths[k-1]
		if hlo.IsComplex(orig.Elem) || orig.Dims[r-1] != last || s.Dims[r-1] != last/2+1 {
			return x.Errorf("RFFT maps a real array whose last dim is fft_length's last (%d) to %d complex values", last, last/2+1)
		}
		var re, im *hlo.Instruction
		if directPays(rowsBut(orig.Dims, r-1), last) {
			re, im = x.realDFT(op, r-1, last)
		} else {
			zero := x.Broadcast(x.Constant(op.Shape.Elem, "0"), op.Shape.Dims, nil)
			re, im = x.dft(op, zero, r-1, false)
			re, im = x.SliceDim(re, r-1, 0, last/2+1), x.SliceDim(im, r-1, 0, last/2+1)
		}
		for d := first; d < r-1; d++ {
			re, im = x.dft(re, im, d, false)
		}
		x.Finish(x.complexJoin(re, im))
	case "IRFFT":
		last := lengths[k-1]
		if !hlo.IsComplex(orig.Elem) || hlo.IsComplex(s.Elem) || orig.Dims[r-1] != last/2+1 || s.Dims[r-1] != last {
			return x.Errorf("IRFFT maps %d complex values along the last dim to a real array of fft_length's last (%d)", last/2+1, last)
		}
		re, im := x.complexPart(op, 0), x.complexPart(op, 1)
		for d := first; d < r-1; d++ {
			re, im = x.dft(re, im, d, true)
		}
		if directPays(rowsBut(orig.Dims, r-1), last) {
			x.Finish(x.inverseRealDFT(re, im, r-1, last))
		} else {
			re, im = x.hermitian(re, im, r-1, last)
			re, _ = x.dft(re, im, r-1, true)
			x.Finish(re)
		}
	default:
		err = x.Errorf("fft_type %q", typ)
	}
	return err
}

// largestPrimeFactor of n >= 1 (1 for 1).
func largestPrimeFactor(n int64) int64 {
	p := int64(1)
	for f := int64(2); f*f <= n; f++ {
		for n%f == 0 {
			p, n = f, n/f
		}
	}
	return max(p, n)
}

// split is n's divisor nearest sqrt(n) from below (1 for a prime).
func split(n int64) int64 {
	for f := int64(math.Sqrt(float64(n))); f > 1; f-- {
		if n%f == 0 {
			return f
		}
	}
	return 1
}

// matrixConstant is an n x m constant of elem with f(i, j) as its values
// (computed in float64, rounded once).
func (x *rewriter) matrixConstant(elem string, n, m int64, f func(i, j int64) float64) *hlo.Instruction {
	var b strings.Builder
	b.WriteString("{")
	bits := 64
	if elem == hlo.F32 {
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
			b.WriteString(strconv.FormatFloat(hlo.Round(elem, f(i, j)), 'g', -1, bits))
		}
		b.WriteString("}")
	}
	b.WriteString("}")
	c := x.Emit("constant", elem, []int64{n, m}, nil)
	c.Literal = b.String()
	return c
}

// along applies matrix M [n, m] to dim d of a (whose size is n): the dot
// contracting d, the new dim moved back to d.
func (x *rewriter) along(a *hlo.Instruction, d int, M *hlo.Instruction) *hlo.Instruction {
	ad := a.Shape.Dims
	r := len(ad)
	var dims []int64
	for i, v := range ad {
		if i != d {
			dims = append(dims, v)
		}
	}
	dims = append(dims, M.Shape.Dims[1])
	p := x.Emit("dot", a.Shape.Elem, dims, []*hlo.Instruction{a, M},
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
	return x.Transpose(p, perm)
}

// angle is 2 pi ((i j) mod n) / n: exact in the product's reduction.
func angle(i, j, n int64) float64 { return 2 * math.Pi * float64((i*j)%n) / float64(n) }

// dft is the complex DFT of (re, im) along d: forward
// Y = sum z (cos - i sin), inverse (1/n) sum z (cos + i sin).
func (x *rewriter) dft(re, im *hlo.Instruction, d int, inverse bool) (*hlo.Instruction, *hlo.Instruction) {
	n := re.Shape.Dims[d]
	if n1 := split(n); !directPays(rowsBut(re.Shape.Dims, d), n) && n1 > 1 {
		return x.fourStep(re, im, d, n1, n/n1, inverse)
	}
	elem := re.Shape.Elem
	scale := 1.0
	if inverse {
		scale = 1 / float64(n)
	}
	C := x.matrixConstant(elem, n, n, func(i, j int64) float64 { return scale * math.Cos(angle(i, j, n)) })
	S := x.matrixConstant(elem, n, n, func(i, j int64) float64 { return scale * math.Sin(angle(i, j, n)) })
	rc, rs, ic, is := x.along(re, d, C), x.along(re, d, S), x.along(im, d, C), x.along(im, d, S)
	if inverse {
		return x.Binary("subtract", rc, is), x.Binary("add", ic, rs)
	}
	return x.Binary("add", rc, is), x.Binary("subtract", ic, rs)
}

// fourStep is the DFT of length n = n1 n2 along d: with j = j1 n2 + j2
// and k = k1 + n1 k2, X[k] = sum over j2 of w_n2^(j2 k2) w_n^(j2 k1)
// (sum over j1 of x[j1, j2] w_n1^(j1 k1)).
func (x *rewriter) fourStep(re, im *hlo.Instruction, d int, n1, n2 int64, inverse bool) (*hlo.Instruction, *hlo.Instruction) {
	dims := re.Shape.Dims
	n := n1 * n2
	two := append(append(append([]int64{}, dims[:d]...), n1, n2), dims[d+1:]...)
	re, im = x.Reshape(re, two), x.Reshape(im, two)
	re, im = x.dft(re, im, d, inverse) // over j1, for each j2: [k1, j2]
	// The twiddles w_n^(k1 j2) = cos - i sin (forward), cos + i sin.
	sign := -1.0
	if inverse {
		sign = 1
	}
	elem := re.Shape.Elem
	tc := x.matrixConstant(elem, n1, n2, func(k1, j2 int64) float64 { return math.Cos(angle(k1, j2, n)) })
	ts := x.matrixConstant(elem, n1, n2, func(k1, j2 int64) float64 { return sign * math.Sin(angle(k1, j2, n)) })
	at := []int64{int64(d), int64(d + 1)}
	c, s := x.Broadcast(tc, two, at), x.Broadcast(ts, two, at)
	re, im = x.Binary("subtract", x.Binary("multiply", re, c), x.Binary("multiply", im, s)),
		x.Binary("add", x.Binary("multiply", re, s), x.Binary("multiply", im, c))
	re, im = x.dft(re, im, d+1, inverse) // over j2, for each k1: [k1, k2]
	// k = k1 + n1 k2: k2 major.
	perm := make([]int64, len(two))
	for i := range perm {
		perm[i] = int64(i)
	}
	perm[d], perm[d+1] = int64(d+1), int64(d)
	re, im = x.Transpose(re, perm), x.Transpose(im, perm)
	return x.Reshape(re, dims), x.Reshape(im, dims)
}

// realDFT is the half spectrum (n/2+1 terms) of real a along d.
func (x *rewriter) realDFT(a *hlo.Instruction, d int, n int64) (*hlo.Instruction, *hlo.Instruction) {
	elem := a.Shape.Elem
	C := x.matrixConstant(elem, n, n/2+1, func(i, j int64) float64 { return math.Cos(angle(i, j, n)) })
	S := x.matrixConstant(elem, n, n/2+1, func(i, j int64) float64 { return -math.Sin(angle(i, j, n)) })
	return x.along(a, d, C), x.along(a, d, S)
}

// inverseRealDFT is the real signal of n values whose half spectrum
// (n/2+1 terms) is (re, im) along d: (1/n) sum over k of w_k (re cos -
// im sin), w_k 1 for the DC and Nyquist terms and 2 for the others.
func (x *rewriter) inverseRealDFT(re, im *hlo.Instruction, d int, n int64) *hlo.Instruction {
	elem := re.Shape.Elem
	m := n/2 + 1
	w := func(k int64) float64 {
		if k == 0 || n%2 == 0 && k == n/2 {
			return 1
		}
		return 2
	}
	C := x.matrixConstant(elem, m, n, func(k, j int64) float64 { return w(k) * math.Cos(angle(k, j, n)) / float64(n) })
	S := x.matrixConstant(elem, m, n, func(k, j int64) float64 { return w(k) * math.Sin(angle(k, j, n)) / float64(n) })
	return x.Binary("subtract", x.along(re, d, C), x.along(im, d, S))
}

// hermitian is the full spectrum of n terms a half spectrum (n/2+1 terms
// along d) stands for: X[k] for k > n/2 is conj(X[n-k]).
func (x *rewriter) hermitian(re, im *hlo.Instruction, d int, n int64) (*hlo.Instruction, *hlo.Instruction) {
	m := n/2 + 1
	if n-m == 0 {
		return re, im
	}
	tail := func(v *hlo.Instruction) *hlo.Instruction {
		t := x.SliceDim(v, d, 1, n-m)
		return x.Emit("reverse", v.Shape.Elem, t.Shape.Dims, []*hlo.Instruction{t}, "dimensions", hlo.IntsText([]int64{int64(d)}))
	}
	tr, ti := tail(re), tail(im)
	ti = x.Emit("negate", ti.Shape.Elem, ti.Shape.Dims, []*hlo.Instruction{ti})
	return x.Concatenate([]*hlo.Instruction{re, tr}, d), x.Concatenate([]*hlo.Instruction{im, ti}, d)
}
