package hlo

import (
	"math"
	"math/bits"
	"sort"

	"github.com/pulse-sim/pulse/isa"
)

// Small floating-point formats (the f8 and f4 types of XLA and ml_dtypes).
// Each is described by its bit fields and its special values; a table of
// every code's value is built once and drives rounding and bit casts, so the
// two cannot disagree.

// special says how a small float spends its special codes.
type special uint8

const (
	ieee   special = iota // top exponent: inf (mantissa 0) and NaN
	fn                    // finite: only the all-ones code (either sign) is NaN, no inf
	fnuz                  // finite, unsigned zero: 0x80 is NaN, no -0, no inf
	finite                // no inf, no NaN (f4e2m1fn): overflow saturates
)

type minifloat struct {
	bits, exp, man, bias int
	kind                 special

	value []float64 // value of every code
	pos   []int     // codes of the finite values >= 0, ascending by value (+0 first)
	nan   uint64    // the canonical NaN code (if any)
}

var minifloats = map[string]*minifloat{
	"f8e5m2":        {bits: 8, exp: 5, man: 2, bias: 15, kind: ieee},
	"f8e4m3":        {bits: 8, exp: 4, man: 3, bias: 7, kind: ieee},
	"f8e3m4":        {bits: 8, exp: 3, man: 4, bias: 3, kind: ieee},
	"f8e4m3fn":      {bits: 8, exp: 4, man: 3, bias: 7, kind: fn},
	"f8e4m3fnuz":    {bits: 8, exp: 4, man: 3, bias: 8, kind: fnuz},
	"f8e5m2fnuz":    {bits: 8, exp: 5, man: 2, bias: 16, kind: fnuz},
	"f8e4m3b11fnuz": {bits: 8, exp: 4, man: 3, bias: 11, kind: fnuz},
	"f4e2m1fn":      {bits: 4, exp: 2, man: 1, bias: 1, kind: finite},
}

func init() {
	for _, f := range minifloats {
		f.build()
	}
}

func (f *minifloat) build() {
	n := 1 << f.bits
	f.value = make([]float64, n)
	expMask := uint64(1)<<f.exp - 1
	manMask := uint64(1)<<f.man - 1
	for c := range uint64(n) {
		sign := c >> (f.exp + f.man) & 1
		e := c >> f.man & expMask
		m := c & manMask
		var v float64
		switch {
		case f.kind == ieee && e == expMask && m == 0:
			v = math.Inf(1)
		case f.kind == ieee && e == expMask, f.kind == fn && e == expMask && m == manMask,
			f.kind == fnuz && sign == 1 && e == 0 && m == 0:
			v = math.NaN()
			if f.nan == 0 || sign == 0 {
				f.nan = c
			}
		case e == 0:
			v = math.Ldexp(float64(m), 1-f.bias-f.man)
		default:
			v = math.Ldexp(1+float64(m)/float64(manMask+1), int(e)-f.bias)
		}
		if sign == 1 {
			v = -v
		}
		f.value[c] = v
		if sign == 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
			f.pos = append(f.pos, int(c))
		}
	}
	sort.Slice(f.pos, func(i, j int) bool { return f.value[f.pos[i]] < f.value[f.pos[j]] })
}

// round returns x rounded to the nearest value of the format, ties to the
// even code; beyond the largest finite value by half an ulp or more it is
// inf (ieee), NaN (fn, fnuz) or the largest value (finite), as ml_dtypes
// converts.
func (f *minifloat) round(x float64) float64 {
	if x != x {
		return math.NaN()
	}
	a := math.Abs(x)
	top := f.pos[len(f.pos)-1]
	maxv := f.value[top]
	ulp := maxv - f.value[f.pos[len(f.pos)-2]]
	var r float64
	switch mid := maxv + ulp/2; {
	case a > mid || a == mid && top&1 == 1:
		switch f.kind {
		case ieee:
			r = math.Inf(1)
		case finite:
			r = maxv
		default:
			return math.NaN()
		}
	case a >= maxv:
		r = maxv
	default:
		i := sort.Search(len(f.pos), func(i int) bool { return f.value[f.pos[i]] >= a })
		hi := f.pos[i]
		r = f.value[hi]
		if i > 0 && r != a {
			lo := f.pos[i-1]
			dl, dh := a-f.value[lo], r-a
			if dl < dh || dl == dh && lo&1 == 0 {
				r = f.value[lo]
			}
		}
	}
	if f.kind == fnuz && r == 0 {
		return 0
	}
	return math.Copysign(r, x)
}

// code returns the bit pattern of a value of the format (already rounded).
func (f *minifloat) code(x float64) uint64 {
	if x != x {
		return f.nan
	}
	neg := math.Signbit(x)
	for _, c := range f.pos {
		if f.value[c] == math.Abs(x) {
			if neg && (f.kind != fnuz || x != 0) {
				return uint64(c) | 1<<(f.exp+f.man)
			}
			return uint64(c)
		}
	}
	if math.IsInf(x, 0) && f.kind == ieee {
		c := (uint64(1)<<f.exp - 1) << f.man
		if neg {
			c |= 1 << (f.exp + f.man)
		}
		return c
	}
	return f.nan
}

// elemBits returns the bit pattern of one element of type elem (x already
// rounded to the type): IEEE encodings for floats, two's complement for
// integers.
func elemBits(elem string, x float64) uint64 {
	switch elem {
	case "f64":
		return math.Float64bits(x)
	case "f32":
		return uint64(math.Float32bits(float32(x)))
	case "bf16":
		return uint64(isa.F32ToBF16(float32(x)))
	case "f16":
		return uint64(isa.F32ToF16(float32(x)))
	case "pred":
		if x != 0 {
			return 1
		}
		return 0
	}
	if f := minifloats[elem]; f != nil {
		return f.code(x)
	}
	if IsWide(elem) {
		return math.Float64bits(x) // carried as their bits
	}
	return uint64(int64(x)) & mask(ElemBits(elem))
}

// IsWide tells whether elem is s64 or u64, whose values the evaluator
// carries as their bit patterns in a float64's bits (math.Float64frombits),
// as the machine does (isa.DType.IsWide): a float64's 53 bits cannot hold
// them as numbers. Ops that read numbers decode them (WideNumber).
func IsWide(elem string) bool { return elem == "s64" || elem == "u64" }

// Bits returns the two's-complement bits of x, a value of integer type
// elem (a wide one's carried bits).
func Bits(elem string, x float64) uint64 { return elemBits(elem, x) }

// WideNumber is the number a carried s64/u64 value stands for, rounded
// to a float64 (other types' values are numbers already).
func WideNumber(elem string, x float64) float64 {
	switch elem {
	case "s64":
		return float64(int64(math.Float64bits(x)))
	case "u64":
		return float64(math.Float64bits(x))
	}
	return x
}

// wideFromNumber carries number v as a value of s64 or u64: truncated,
// saturated to the type's range (NaN is 0), as a conversion from a float
// does.
func wideFromNumber(elem string, v float64) float64 {
	v = math.Trunc(v)
	var b uint64
	switch {
	case v != v:
	case elem == "u64" && v <= 0:
	case elem == "u64" && v >= 0x1p64:
		b = math.MaxUint64
	case elem == "u64":
		b = uint64(v)
	case v >= 0x1p63:
		b = math.MaxInt64
	case v <= -0x1p63:
		b = 1 << 63
	default:
		b = uint64(int64(v))
	}
	return math.Float64frombits(b)
}

// intAt reads element i of an integer array as an int64 (an index).
func intAt(v *Value, i int64) int64 {
	if IsWide(v.Shape.Elem) {
		return int64(math.Float64bits(v.Data[i]))
	}
	return int64(v.Data[i])
}

// fromBits is elemBits' inverse.
func fromBits(elem string, b uint64) float64 {
	switch elem {
	case "f64":
		return math.Float64frombits(b)
	case "f32":
		return float64(math.Float32frombits(uint32(b)))
	case "bf16":
		return float64(isa.BF16ToF32(uint16(b)))
	case "f16":
		return float64(isa.F16ToF32(uint16(b)))
	case "pred":
		if b != 0 {
			return 1
		}
		return 0
	}
	if f := minifloats[elem]; f != nil {
		return f.value[b&mask(f.bits)]
	}
	if IsWide(elem) {
		return math.Float64frombits(b)
	}
	bits := ElemBits(elem)
	b &= mask(bits)
	if isUnsigned(elem) {
		return float64(b)
	}
	shift := 64 - bits
	return float64(int64(b<<shift) >> shift)
}

func mask(bits int) uint64 {
	if bits >= 64 {
		return math.MaxUint64
	}
	return 1<<bits - 1
}

// bitOp evaluates the bit-level elementwise ops on two's complement
// patterns of the operand type. Shift amounts are read as unsigned; a shift
// by the width or more gives 0 (or the sign for an arithmetic right shift),
// as XLA defines it.
func bitOp(op, elem string, x, y float64) float64 {
	n := ElemBits(elem)
	a, s := elemBits(elem, x), elemBits(elem, y)
	var r uint64
	switch op {
	case "shift-left":
		if s < uint64(n) {
			r = a << s
		}
	case "shift-right-logical":
		if s < uint64(n) {
			r = a >> s
		}
	case "shift-right-arithmetic":
		signed := int64(a<<(64-n)) >> (64 - n)
		if s >= uint64(n) {
			s = uint64(n) - 1
		}
		r = uint64(signed >> s)
	case "popcnt":
		r = uint64(bits.OnesCount64(a))
	case "count-leading-zeros":
		r = uint64(n - bits.Len64(a))
	}
	return fromBits(elem, r&mask(n))
}

// reducePrecision is XLA's reduce-precision: the mantissa rounds to nearest
// even at manBits; with fewer exponent bits than the type, values above the
// reduced range become infinities and values below its smallest normal
// become zeros of the same sign (XLA keeps no denormals here). NaN stays NaN.
func reducePrecision(x float64, elem string, expBits, manBits int) float64 {
	if x != x {
		return x
	}
	srcExp, srcMan := 11, 52
	switch elem {
	case "f32":
		srcExp, srcMan = 8, 23
	case "bf16":
		srcExp, srcMan = 8, 7
	case "f16":
		srcExp, srcMan = 5, 10
	}
	if manBits < srcMan {
		b := math.Float64bits(x)
		shift := uint(52 - manBits)
		lsb := b >> shift & 1
		b = (b + (1<<(shift-1) - 1 + lsb)) &^ (1<<shift - 1)
		x = math.Float64frombits(b)
	}
	if expBits < srcExp && x != 0 && !math.IsInf(x, 0) {
		_, e := math.Frexp(x)
		e-- // x = 1.f * 2^e
		maxExp := 1<<(expBits-1) - 1
		minExp := 2 - 1<<(expBits-1)
		switch {
		case e > maxExp:
			return math.Copysign(math.Inf(1), x)
		case e < minExp:
			return math.Copysign(0, x)
		}
	}
	return x
}

// totalOrderCmp compares two floats in IEEE's total order (-NaN < -inf <
// ... < -0 < +0 < ... < inf < NaN), for compare with type=TOTALORDER: -1, 0
// or 1.
func totalOrderCmp(x, y float64) float64 {
	key := func(v float64) int64 {
		b := int64(math.Float64bits(v))
		if b < 0 {
			b ^= math.MaxInt64 // negatives: larger magnitude, smaller key; -0 just below +0
		}
		return b
	}
	a, b := key(x), key(y)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// nextAfter is chlo.next_after in elem's own format: the representable
// value after x in the direction of y (y when they are equal; NaN when
// either is). From zero it steps to the smallest subnormal of y's sign.
func nextAfter(elem string, x, y float64) float64 {
	switch {
	case x != x || y != y:
		return math.NaN()
	case x == y:
		return y
	case elem == "f64":
		return math.Nextafter(x, y)
	case elem == "f32":
		return float64(math.Nextafter32(float32(x), float32(y)))
	}
	b := elemBits(elem, x)
	w := ElemBits(elem)
	sign := uint64(1) << (w - 1)
	switch {
	case x == 0:
		b = 1
		if y < 0 {
			b |= sign
		}
	case (x < y) == (x > 0):
		b++ // away from zero
	default:
		b--
	}
	return fromBits(elem, b)
}

// besselI1e is the exponentially scaled modified Bessel function of the
// first kind of order one, I1(x) e^-|x| (chlo.bessel_i1e): its power series
// (all terms of one sign: no cancellation) up to |x| = 40, then Hankel's
// asymptotic expansion, whose terms there fall below 1e-17 before they grow.
func besselI1e(x float64) float64 {
	ax := math.Abs(x)
	switch {
	case x != x:
		return x
	case math.IsInf(x, 0):
		return math.Copysign(0, x)
	case ax <= 40:
		// I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!)
		h := x / 2
		term, sum := h, h
		for k := 1; k < 500; k++ {
			term *= h * h / float64(k*(k+1))
			sum += term
			if math.Abs(term) <= 1e-17*math.Abs(sum) {
				break
			}
		}
		return sum * math.Exp(-ax)
	}
	// I1(x) e^-x ~ 1/sqrt(2 pi x) * sum_k (-1)^k a_k(1) / x^k, with
	// a_k(nu) = prod_{j=1..k} (4nu^2 - (2j-1)^2) / (k! 8^k).
	term, sum := 1.0, 1.0
	for k := 1; k < 60; k++ {
		next := -term * (4 - float64((2*k-1)*(2*k-1))) / (float64(k) * 8 * ax)
		if math.Abs(next) >= math.Abs(term) {
			break
		}
		term = next
		sum += term
		if math.Abs(term) <= 1e-17*math.Abs(sum) {
			break
		}
	}
	return math.Copysign(sum/math.Sqrt(2*math.Pi*ax), x)
}
