package scalar

import (
	"math"
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// IntPower is XLA's integer power: by squaring, wrapping (the low 64 bits
// are exact; rounding to the element type wraps them further); a negative
// exponent gives 0 except for bases 1 and -1. Not math.Pow: 4294967295^33
// as u32 is 4294967295, which a float64 power has long lost.
func IntPower(x, y float64) float64 {
	if y < 0 {
		switch x {
		case 1:
			return 1
		case -1:
			if math.Mod(y, 2) == 0 {
				return 1
			}
			return -1
		}
		return 0
	}
	bits := func(v float64) uint64 {
		if v >= 0x1p63 {
			return uint64(v)
		}
		return uint64(int64(v))
	}
	b, r := bits(x), uint64(1)
	for e := bits(y); e > 0; e >>= 1 {
		if e&1 == 1 {
			r *= b
		}
		b *= b
	}
	return float64(int64(r))
}

// Rounder returns round for one element type, decided once.
func Rounder(elem string) func(float64) float64 {
	switch elem {
	case hlo.F32:
		return func(x float64) float64 { return float64(float32(x)) }
	case hlo.F64:
		return func(x float64) float64 { return x }
	case hlo.BF16:
		return func(x float64) float64 { return float64(isa.BF16ToF32(isa.F32ToBF16(float32(x)))) }
	}
	return func(x float64) float64 { return hlo.Round(elem, x) }
}

// Convert is XLA's convert: float to integer truncates and saturates (NaN
// becomes 0); other conversions round as round does.
func Convert(from, to string, x float64) float64 {
	switch {
	case hlo.IsWide(from) && hlo.IsWide(to):
		return x // the same bits, read with the other sign
	case hlo.IsWide(from) && to == "pred":
		if math.Float64bits(x) != 0 {
			return 1
		}
		return 0
	case hlo.IsWide(from) && !hlo.IsFloat(to):
		return FromBits(to, math.Float64bits(x)) // the low bits
	case hlo.IsWide(from):
		b := math.Float64bits(x)
		if from == "s64" {
			// float32 of the int64 rounds once, as XLA's convert.
			if to == "f64" {
				return float64(int64(b))
			}
			return hlo.Round(to, float64(float32(int64(b))))
		}
		if to == "f64" {
			return float64(b)
		}
		return hlo.Round(to, float64(float32(b)))
	case hlo.IsWide(to) && !hlo.IsFloat(from):
		return math.Float64frombits(uint64(int64(x))) // sign-extended
	case hlo.IsWide(to):
		return hlo.WideFromNumber(to, x)
	}
	if hlo.IsFloat(from) && !hlo.IsFloat(to) && to != "pred" {
		if x != x {
			return 0
		}
		bits := hlo.ElemBits(to)
		lo, hi := -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)-1
		if hlo.IsUnsigned(to) {
			lo, hi = 0, math.Ldexp(1, bits)-1
		}
		return math.Max(lo, math.Min(hi, math.Trunc(x)))
	}
	return hlo.Round(to, x)
}

// WideLiteral reads an s64/u64 literal exactly (an integer in range; a
// fraction or a float form falls back to the number).
func WideLiteral(elem, f string) (uint64, bool) {
	if elem == hlo.U64 {
		u, err := strconv.ParseUint(f, 10, 64)
		if err == nil {
			return u, true
		}
	}
	v, err := strconv.ParseInt(f, 10, 64)
	if err != nil {
		return 0, false
	}
	return uint64(v), true
}

// Digamma is the logarithmic derivative of the gamma function: the
// recurrence psi(x) = psi(x+1) - 1/x up to x >= 6, then the asymptotic
// series; reflection for negative x; poles (0, -1, -2, ...) give NaN, as
// CHLO's digamma does.
func Digamma(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, -1) {
		return math.NaN()
	}
	if x <= 0 {
		if x == math.Floor(x) {
			return math.NaN()
		}
		return Digamma(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	r := 0.0
	for x < 6 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	t := f * (-1.0/12 + f*(1.0/120+f*(-1.0/252+f*(1.0/240+f*(-1.0/132+f*(691.0/32760-f/12))))))
	return r + math.Log(x) - 0.5/x + t
}

// WidePower is XLA's integer power on 64 bits: by squaring, wrapping; a
// negative exponent gives 0 except for bases 1 and -1.
func WidePower(a, b uint64, signed bool) uint64 {
	if signed && int64(b) < 0 {
		switch int64(a) {
		case 1:
			return 1
		case -1:
			if b%2 == 0 {
				return 1
			}
			return math.MaxUint64
		}
		return 0
	}
	r := uint64(1)
	for ; b > 0; b >>= 1 {
		if b&1 == 1 {
			r *= a
		}
		a *= a
	}
	return r
}
