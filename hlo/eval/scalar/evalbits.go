package scalar

import (
	"math"
	"math/bits"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Bits returns the bit pattern of one element of type elem (x already
// rounded to the type): IEEE encodings for floats, two's complement for
// integers (a wide one's carried bits).
func Bits(elem string, x float64) uint64 {
	switch elem {
	case hlo.F64:
		return math.Float64bits(x)
	case hlo.F32:
		return uint64(math.Float32bits(float32(x)))
	case hlo.BF16:
		return uint64(isa.F32ToBF16(float32(x)))
	case hlo.F16:
		return uint64(isa.F32ToF16(float32(x)))
	case hlo.Pred:
		if x != 0 {
			return 1
		}
		return 0
	}
	if f := isa.Minifloats[elem]; f != nil {
		return f.Code(x)
	}
	if hlo.IsWide(elem) {
		return math.Float64bits(x) // carried as their bits
	}
	return uint64(int64(x)) & mask(hlo.ElemBits(elem))
}

// WideNumber is the number a carried s64/u64 value stands for, rounded
// to a float64 (other types' values are numbers already).
func WideNumber(elem string, x float64) float64 {
	switch elem {
	case hlo.S64:
		return float64(int64(math.Float64bits(x)))
	case hlo.U64:
		return float64(math.Float64bits(x))
	}
	return x
}

// FromBits is elemBits' inverse.
func FromBits(elem string, b uint64) float64 {
	switch elem {
	case hlo.F64:
		return math.Float64frombits(b)
	case hlo.F32:
		return float64(math.Float32frombits(uint32(b)))
	case hlo.BF16:
		return float64(isa.BF16ToF32(uint16(b)))
	case hlo.F16:
		return float64(isa.F16ToF32(uint16(b)))
	case hlo.Pred:
		if b != 0 {
			return 1
		}
		return 0
	}
	if f := isa.Minifloats[elem]; f != nil {
		return f.Value(b)
	}
	if hlo.IsWide(elem) {
		return math.Float64frombits(b)
	}
	bits := hlo.ElemBits(elem)
	b &= mask(bits)
	if hlo.IsUnsigned(elem) {
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

// BitOp evaluates the bit-level elementwise ops on two's complement
// patterns of the operand type. Shift amounts are read as unsigned; a shift
// by the width or more gives 0 (or the sign for an arithmetic right shift),
// as XLA defines it.
func BitOp(op, elem string, x, y float64) float64 {
	n := hlo.ElemBits(elem)
	a, s := Bits(elem, x), Bits(elem, y)
	var r uint64
	switch op {
	case hlo.OpShiftLeft:
		if s < uint64(n) {
			r = a << s
		}
	case hlo.OpShiftRightLogical:
		if s < uint64(n) {
			r = a >> s
		}
	case hlo.OpShiftRightArithmetic:
		signed := int64(a<<(64-n)) >> (64 - n)
		if s >= uint64(n) {
			s = uint64(n) - 1
		}
		r = uint64(signed >> s)
	case hlo.OpPopcnt:
		r = uint64(bits.OnesCount64(a))
	case hlo.OpCountLeadingZeros:
		r = uint64(n - bits.Len64(a))
	}
	return FromBits(elem, r&mask(n))
}

// ReducePrecision is XLA's reduce-precision: the mantissa rounds to nearest
// even at manBits; with fewer exponent bits than the type, values above the
// reduced range become infinities and values below its smallest normal
// become zeros of the same sign (XLA keeps no denormals here). NaN stays NaN.
func ReducePrecision(x float64, elem string, expBits, manBits int) float64 {
	if x != x {
		return x
	}
	srcExp, srcMan := 11, 52
	switch elem {
	case hlo.F32:
		srcExp, srcMan = 8, 23
	case hlo.BF16:
		srcExp, srcMan = 8, 7
	case hlo.F16:
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

// TotalOrderCmp compares two floats in IEEE's total order (-NaN < -inf <
// ... < -0 < +0 < ... < inf < NaN), for compare with type=TOTALORDER: -1, 0
// or 1.
func TotalOrderCmp(x, y float64) float64 {
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

// NextAfter is chlo.next_after in elem's own format: the representable
// value after x in the direction of y (y when they are equal; NaN when
// either is). From zero it steps to the smallest subnormal of y's sign.
func NextAfter(elem string, x, y float64) float64 {
	switch {
	case x != x || y != y:
		return math.NaN()
	case x == y:
		return y
	case elem == hlo.F64:
		return math.Nextafter(x, y)
	case elem == hlo.F32:
		return float64(math.Nextafter32(float32(x), float32(y)))
	}
	b := Bits(elem, x)
	w := hlo.ElemBits(elem)
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
	return FromBits(elem, b)
}

// BesselI1e is the exponentially scaled modified Bessel function of the
// first kind of order one, I1(x) e^-|x| (chlo.bessel_i1e): its power series
// (all terms of one sign: no cancellation) up to |x| = 40, then Hankel's
// asymptotic expansion, whose terms there fall below 1e-17 before they grow.
func BesselI1e(x float64) float64 {
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
