package isa

import (
	"math"
	"sort"
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
	e8m0                  // powers of two only: no sign, no zero, no inf; 0xFF is NaN (f8e8m0fnu)
)

type Minifloat struct {
	bits, exp, man, bias int
	kind                 special

	value []float64 // value of every code (Value)
	pos   []int     // codes of the finite values >= 0, ascending by value (+0 first)
	nan   uint64    // the canonical NaN code (if any)
}

// Minifloats are the small float formats by their XLA names.
var Minifloats = map[string]*Minifloat{
	"f8e5m2":        {bits: 8, exp: 5, man: 2, bias: 15, kind: ieee},
	"f8e4m3":        {bits: 8, exp: 4, man: 3, bias: 7, kind: ieee},
	"f8e3m4":        {bits: 8, exp: 3, man: 4, bias: 3, kind: ieee},
	"f8e4m3fn":      {bits: 8, exp: 4, man: 3, bias: 7, kind: fn},
	"f8e4m3fnuz":    {bits: 8, exp: 4, man: 3, bias: 8, kind: fnuz},
	"f8e5m2fnuz":    {bits: 8, exp: 5, man: 2, bias: 16, kind: fnuz},
	"f8e4m3b11fnuz": {bits: 8, exp: 4, man: 3, bias: 11, kind: fnuz},
	"f4e2m1fn":      {bits: 4, exp: 2, man: 1, bias: 1, kind: finite},
	"f8e8m0fnu":     {bits: 8, exp: 8, man: 0, bias: 127, kind: e8m0},
}

func init() {
	for _, f := range Minifloats {
		f.build()
	}
}

func (f *Minifloat) build() {
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
		case f.kind == e8m0 && e == expMask:
			v = math.NaN()
			f.nan = c
		case f.kind == e8m0:
			v = math.Ldexp(1, int(e)-f.bias) // no subnormals: 0x00 is 2^-127
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

// Round returns x rounded to the nearest value of the format, ties to the
// even code; beyond the largest finite value by half an ulp or more it is
// inf (ieee), NaN (fn, fnuz) or the largest value (finite), as ml_dtypes
// converts.
func (f *Minifloat) Round(x float64) float64 {
	if x != x {
		return math.NaN()
	}
	if f.kind == e8m0 {
		return roundE8M0(x)
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

// Code returns the bit pattern of a value of the format (already rounded).
func (f *Minifloat) Code(x float64) uint64 {
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

// Value is the value of code c (its low Bits bits).
func (f *Minifloat) Value(c uint64) float64 { return f.value[c&(1<<f.bits-1)] }

// Bits is the format's width.
func (f *Minifloat) Bits() int { return f.bits }

// HasInf reports whether the format has infinities (the IEEE-like ones);
// the others overflow to NaN or saturate.
func (f *Minifloat) HasInf() bool { return f.kind == ieee }

// Ulp is the spacing of the format's values at x: at its magnitude's
// binade, or the subnormal spacing below the smallest normal value.
func (f *Minifloat) Ulp(x float64) float64 {
	sub := math.Ldexp(1, 1-f.bias-f.man)
	if x == 0 {
		return sub
	}
	_, e := math.Frexp(x) // |x| in [2^(e-1), 2^e)
	return max(math.Ldexp(1, e-1-f.man), sub)
}

// MaxFinite is the format's largest finite value.
func (f *Minifloat) MaxFinite() float64 { return f.value[f.pos[len(f.pos)-1]] }

// roundE8M0 converts x to f8e8m0fnu as ml_dtypes does (without
// saturation): zero, negative numbers, infinities and NaN become NaN; the
// others round their significand to nearest even at no fraction bits,
// which takes every tie (1.5 x 2^k) up, since the kept bit is the implicit
// one; a value below 2^-127 rounds as a subnormal would, to 0x00 (2^-127)
// or 0x01; beyond 2^127 it is NaN.
func roundE8M0(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return math.NaN()
	}
	b := math.Float64bits(x)
	exp := int(b>>52) & 0x7FF
	frac := b & (1<<52 - 1)
	var k int    // unbiased exponent
	var m uint64 // significand with its leading 1 at bit 52
	if exp != 0 {
		k, m = exp-1023, 1<<52|frac
	} else { // a subnormal double: normalize
		z := 64 - 52 - bitsLen(frac)
		m, k = frac<<(z+1), -1022-(z+1)
	}
	base := k + 127 - 1 // the biased exponent, minus the leading 1 added back below
	shift := min(52+max(0, -base), 54)
	bias := (m>>shift)&1 + (uint64(1)<<(shift-1) - 1)
	code := (m+bias)>>shift + uint64(max(0, base))
	if base >= 128+127 || code > 0xFE {
		return math.NaN()
	}
	return math.Ldexp(1, int(code)-127)
}

// bitsLen is the position of the highest set bit of x, plus one.
func bitsLen(x uint64) int {
	n := 0
	for ; x != 0; x >>= 1 {
		n++
	}
	return n
}
