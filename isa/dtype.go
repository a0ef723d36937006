package isa

import (
	"fmt"
	"math"
)

// DType is the element type of a tile. The numbering is part of the binary
// encoding (layout table) and must not change.
type DType uint8

const (
	DTypeInvalid DType = iota
	F32
	BF16
	F16
	S32
	S8
	U8
	Pred
	U32
	S64
	U64
	S16
	U16
	F64
	// The 8-bit floats (minifloat.go), stored one per byte: loads widen
	// them exactly, stores round to nearest even as ml_dtypes converts.
	F8E5M2
	F8E4M3FN
	F8E4M3FNUZ
	F8E5M2FNUZ
	F8E4M3B11FNUZ
	F8E4M3
	F8E3M4
	// The 4-bit integers, stored one per byte (not packed two per byte as
	// XLA's TPU layouts do): loads sign- or zero-extend the low nibble,
	// stores saturate to the 4-bit range as every integer store does.
	S4
	U4
	// The MX formats' scale and element types (minifloat.go), stored one
	// per byte as the 8-bit floats are: f8e8m0fnu (powers of two, no
	// sign, no zero) and f4e2m1fn (not packed two per byte).
	F8E8M0FNU
	F4E2M1FN
	numDTypes
)

var dtypeNames = [...]string{"invalid", "f32", "bf16", "f16", "s32", "s8", "u8", "pred", "u32", "s64", "u64", "s16", "u16", "f64",
	"f8e5m2", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz", "f8e4m3", "f8e3m4", "s4", "u4", "f8e8m0fnu", "f4e2m1fn"}
var dtypeSizes = [...]int{0, 4, 2, 2, 4, 1, 1, 1, 4, 8, 8, 2, 2, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}

// DTypes lists every valid dtype in encoding order.
func DTypes() []DType {
	return []DType{F32, BF16, F16, S32, S8, U8, Pred, U32, S64, U64, S16, U16, F64,
		F8E5M2, F8E4M3FN, F8E4M3FNUZ, F8E5M2FNUZ, F8E4M3B11FNUZ, F8E4M3, F8E3M4, S4, U4, F8E8M0FNU, F4E2M1FN}
}

// IsF8 reports whether d is one of the 8-bit float formats an MXU may
// multiply (the MX scale type f8e8m0fnu is not one).
func (d DType) IsF8() bool { return d >= F8E5M2 && d <= F8E3M4 }

// IsMinifloat reports whether d is a small float stored one per byte and
// rounded by its Minifloat table: the 8-bit floats, f8e8m0fnu, f4e2m1fn.
func (d DType) IsMinifloat() bool { return d.IsF8() || d == F8E8M0FNU || d == F4E2M1FN }

// f8 is a small float dtype's format.
func (d DType) f8() *Minifloat { return Minifloats[d.String()] }

func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Valid reports whether d is a defined dtype.
func (d DType) Valid() bool { return d > DTypeInvalid && d < numDTypes }

// Width is the element's width in bits: 8 times Size, except for the
// 4-bit types, stored one per byte.
func (d DType) Width() int {
	if d == S4 || d == U4 || d == F4E2M1FN {
		return 4
	}
	return 8 * d.Size()
}

// Size is the element size in bytes.
func (d DType) Size() int {
	if d.Valid() {
		return dtypeSizes[d]
	}
	return 0
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool {
	return d == F32 || d == BF16 || d == F16 || d == F64 || d.IsMinifloat()
}

// IsInt reports whether d is an integer type (pred counts as integer).
func (d DType) IsInt() bool {
	return d == S32 || d == S8 || d == U8 || d == Pred || d == U32 || d == S64 || d == U64 || d == S16 || d == U16 || d == S4 || d == U4
}

// IsWide reports whether d is a 64-bit integer. Its values travel as
// their two's-complement bits in the float64 (math.Float64frombits), since
// a float64 cannot hold every 64-bit integer; see Bits and FromBits.
func (d DType) IsWide() bool { return d == S64 || d == U64 }

// IsSigned reports whether integer type d is signed.
func (d DType) IsSigned() bool { return d == S32 || d == S8 || d == S64 || d == S16 || d == S4 }

// Bits returns the two's-complement bits of value v of integer dtype d,
// sign- or zero-extended to 64 bits.
func Bits(d DType, v float64) uint64 {
	switch d {
	case S64, U64:
		return math.Float64bits(v)
	case U32, U16, U8, Pred:
		return uint64(v)
	}
	return uint64(int64(v))
}

// FromBits is the value of integer dtype d whose bits are the low bits of
// u (the rest are dropped: integer conversions wrap).
func FromBits(d DType, u uint64) float64 {
	switch d {
	case S64, U64:
		return math.Float64frombits(u)
	case U32:
		return float64(uint32(u))
	case S32:
		return float64(int32(u))
	case S16:
		return float64(int16(u))
	case U16:
		return float64(uint16(u))
	case S8:
		return float64(int8(u))
	case U8:
		return float64(uint8(u))
	case S4:
		return float64(int8(uint8(u)<<4) >> 4)
	case U4:
		return float64(u & 15)
	case Pred:
		if u != 0 {
			return 1
		}
		return 0
	}
	return 0
}

// FromNumber carries number x as a value of dtype d: 64-bit integers
// become their bits (x truncated toward zero and saturated, NaN 0); other
// dtypes carry x as it is.
func FromNumber(d DType, x float64) float64 {
	switch d {
	case S64:
		switch {
		case x != x:
			x = 0
		case x >= 1<<63:
			return FromBits(d, math.MaxInt64)
		case x < -(1 << 63):
			return FromBits(d, 1<<63)
		}
		return FromBits(d, uint64(int64(x)))
	case U64:
		switch {
		case x != x || x <= 0:
			return FromBits(d, 0)
		case x >= 1<<64:
			return FromBits(d, math.MaxUint64)
		}
		return FromBits(d, uint64(x))
	}
	return x
}

// IntValue is the numeric value of v of integer dtype d, rounded to the
// nearest float64 for 64-bit integers beyond 2^53.
func IntValue(d DType, v float64) float64 {
	switch d {
	case S64:
		return float64(int64(math.Float64bits(v)))
	case U64:
		return float64(math.Float64bits(v))
	}
	return v
}

// ParseDType parses a dtype name as printed by String.
func ParseDType(s string) (DType, bool) {
	for i, n := range dtypeNames {
		if i > 0 && n == s {
			return DType(i), true
		}
	}
	return DTypeInvalid, false
}

// --- Conversions. Every value the machine computes is carried as a float64,
// which holds every f64, f32, f16, bf16, s32 and u32 value exactly (64-bit
// integers travel as their bits: see IsWide). Stores round it to the
// destination dtype with the rules below (docs/isa.md, "Numerics").

// F32ToBF16 rounds an f32 to bf16, round-to-nearest-even; NaN stays a quiet NaN.
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN
		return uint16(b>>16) | 0x0040
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BF16ToF32 widens a bf16 exactly.
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToF16 rounds an f32 to IEEE binary16, round-to-nearest-even, with
// subnormals; values beyond the range become infinities.
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// Result is subnormal (or zero): value = m * 2^-24.
		if exp == 0 {
			return sign // f32 subnormals are far below f16's range
		}
		m := uint64(man | 0x800000)
		s := uint(126 - exp) // m >> s is the f16 subnormal mantissa
		if s > 40 {
			return sign
		}
		q := m >> s
		rem := m & (1<<s - 1)
		half := uint64(1) << (s - 1)
		if rem > half || rem == half && q&1 == 1 {
			q++
		}
		return sign | uint16(q)
	}
	r := sign | uint16(e)<<10 | uint16(man>>13)
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++ // may carry into the exponent, up to infinity: correct
	}
	return r
}

// F16ToF32 widens a binary16 exactly.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		v := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// Round rounds v to what dtype d can hold, following the cast rules:
// floats round to nearest even (via f32 for bf16/f16); float-to-integer
// truncates toward zero and saturates, NaN becoming 0; integer-to-integer
// saturates; pred is 1 for any non-zero value (NaN included).
func Round(d DType, v float64) float64 {
	switch d {
	case F32:
		return float64(float32(v))
	case BF16:
		return float64(BF16ToF32(F32ToBF16(float32(v))))
	case F16:
		return float64(F16ToF32(F32ToF16(float32(v))))
	case S32:
		return saturate(v, math.MinInt32, math.MaxInt32)
	case S16:
		return saturate(v, math.MinInt16, math.MaxInt16)
	case U16:
		return saturate(v, 0, math.MaxUint16)
	case S8:
		return saturate(v, math.MinInt8, math.MaxInt8)
	case U8:
		return saturate(v, 0, math.MaxUint8)
	case S4:
		return saturate(v, -8, 7)
	case U4:
		return saturate(v, 0, 15)
	case U32:
		return saturate(v, 0, math.MaxUint32)
	case S64, U64:
		return v // already bits: see IsWide
	case F64:
		return v
	case Pred:
		if v != 0 {
			return 1
		}
		return 0
	}
	if d.IsMinifloat() {
		return d.f8().Round(v)
	}
	return v
}

func saturate(v, lo, hi float64) float64 {
	if v != v {
		return 0
	}
	v = math.Trunc(v)
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// StoreElem writes v, already rounded with Round, as dtype d into b (little endian).
func StoreElem(d DType, b []byte, v float64) {
	switch d {
	case F32:
		u := math.Float32bits(float32(v))
		b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	case BF16:
		u := F32ToBF16(float32(v))
		b[0], b[1] = byte(u), byte(u>>8)
	case F16:
		u := F32ToF16(float32(v))
		b[0], b[1] = byte(u), byte(u>>8)
	case S32:
		u := uint32(int32(v))
		b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	case S16:
		u := uint16(int16(v))
		b[0], b[1] = byte(u), byte(u>>8)
	case U16:
		u := uint16(v)
		b[0], b[1] = byte(u), byte(u>>8)
	case S8, S4:
		b[0] = byte(int8(v))
	case U8, Pred, U4:
		b[0] = byte(uint8(v))
	case U32:
		u := uint32(v)
		b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	case S64, U64, F64:
		u := math.Float64bits(v)
		for i := range 8 {
			b[i] = byte(u >> (8 * i))
		}
	default:
		if d.IsMinifloat() {
			b[0] = byte(d.f8().Code(v))
		}
	}
}

// LoadElem reads one element of dtype d from b.
func LoadElem(d DType, b []byte) float64 {
	switch d {
	case F32:
		return float64(math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24))
	case BF16:
		return float64(BF16ToF32(uint16(b[0]) | uint16(b[1])<<8))
	case F16:
		return float64(F16ToF32(uint16(b[0]) | uint16(b[1])<<8))
	case S32:
		return float64(int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24))
	case S16:
		return float64(int16(uint16(b[0]) | uint16(b[1])<<8))
	case U16:
		return float64(uint16(b[0]) | uint16(b[1])<<8)
	case S8:
		return float64(int8(b[0]))
	case U8:
		return float64(b[0])
	case S4:
		return float64(int8(b[0]<<4) >> 4)
	case U4:
		return float64(b[0] & 15)
	case Pred:
		if b[0] != 0 {
			return 1
		}
		return 0
	case U32:
		return float64(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
	case S64, U64, F64:
		var u uint64
		for i := range 8 {
			u |= uint64(b[i]) << (8 * i)
		}
		return math.Float64frombits(u)
	}
	if d.IsMinifloat() {
		return d.f8().Value(uint64(b[0]))
	}
	return 0
}
