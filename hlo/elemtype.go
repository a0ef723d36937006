package hlo

import (
	"math"
	"math/big"
	"slices"
	"strconv"

	"github.com/pulse-sim/pulse/isa"
)

// ElemKind is the kind of an element type.
type ElemKind uint8

const (
	KindOther    ElemKind = iota // token, opaque: no numbers
	KindPred                     // pred: 0 or 1
	KindSigned                   // s1 ... s64
	KindUnsigned                 // u1 ... u64
	KindFloat                    // f16, bf16, f32, f64 and the minifloats (f8..., f4e2m1fn)
	KindComplex                  // c64, c128: pairs of f32 or f64
)

// Element type names as constants, for the places that compare a shape's
// element type (s.Elem == F32).
const (
	Pred          = "pred"
	S1            = "s1"
	S2            = "s2"
	S4            = "s4"
	S8            = "s8"
	S16           = "s16"
	S32           = "s32"
	S64           = "s64"
	U1            = "u1"
	U2            = "u2"
	U4            = "u4"
	U8            = "u8"
	U16           = "u16"
	U32           = "u32"
	U64           = "u64"
	F16           = "f16"
	BF16          = "bf16"
	F32           = "f32"
	F64           = "f64"
	F8E5M2        = "f8e5m2"
	F8E4M3        = "f8e4m3"
	F8E4M3FN      = "f8e4m3fn"
	F8E4M3B11FNUZ = "f8e4m3b11fnuz"
	F8E3M4        = "f8e3m4"
	F8E5M2FNUZ    = "f8e5m2fnuz"
	F8E4M3FNUZ    = "f8e4m3fnuz"
	F8E8M0FNU     = "f8e8m0fnu"
	F4E2M1FN      = "f4e2m1fn"
	C64           = "c64"
	C128          = "c128"
	Token         = "token"
	Opaque        = "opaque"
)

// ElemType is one row of the element-type table: every element type HLO
// text may name, its size and its kind. The parser, the predicates below,
// literal checks and integer ranges all read this one table.
type ElemType struct {
	Name string
	Bits int // 0 for token and opaque
	Kind ElemKind
}

var elemTable = []ElemType{
	{Pred, 8, KindPred},
	{S1, 1, KindSigned}, {S2, 2, KindSigned}, {S4, 4, KindSigned}, {S8, 8, KindSigned},
	{S16, 16, KindSigned}, {S32, 32, KindSigned}, {S64, 64, KindSigned},
	{U1, 1, KindUnsigned}, {U2, 2, KindUnsigned}, {U4, 4, KindUnsigned}, {U8, 8, KindUnsigned},
	{U16, 16, KindUnsigned}, {U32, 32, KindUnsigned}, {U64, 64, KindUnsigned},
	{F16, 16, KindFloat}, {BF16, 16, KindFloat}, {F32, 32, KindFloat}, {F64, 64, KindFloat},
	{F8E5M2, 8, KindFloat}, {F8E4M3, 8, KindFloat}, {F8E4M3FN, 8, KindFloat}, {F8E4M3B11FNUZ, 8, KindFloat},
	{F8E3M4, 8, KindFloat}, {F8E5M2FNUZ, 8, KindFloat}, {F8E4M3FNUZ, 8, KindFloat}, {F8E8M0FNU, 8, KindFloat},
	{F4E2M1FN, 4, KindFloat},
	{C64, 64, KindComplex}, {C128, 128, KindComplex},
	{Token, 0, KindOther}, {Opaque, 0, KindOther}, {"opaque_type", 0, KindOther},
}

var elemByName = func() map[string]ElemType {
	m := make(map[string]ElemType, len(elemTable))
	for _, t := range elemTable {
		m[t.Name] = t
	}
	return m
}()

// LookupElem gives the table's row for elem; ok is false for a name that
// is no element type.
func LookupElem(elem string) (t ElemType, ok bool) {
	t, ok = elemByName[elem]
	return t, ok
}

// IsInteger reports whether t is a signed or unsigned integer type (pred
// is not).
func (t ElemType) IsInteger() bool { return t.Kind == KindSigned || t.Kind == KindUnsigned }

// IntRange is the range of pred (0..1) or an integer type; nil for the
// others.
func (t ElemType) IntRange() (lo, hi *big.Int) {
	one := big.NewInt(1)
	switch t.Kind {
	case KindPred:
		return big.NewInt(0), big.NewInt(1)
	case KindUnsigned:
		return big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(one, uint(t.Bits)), one)
	case KindSigned:
		h := new(big.Int).Lsh(one, uint(t.Bits-1))
		return new(big.Int).Neg(h), h.Sub(h, one)
	}
	return nil, nil
}

// Bounds are the literals of t's least and greatest values, the
// identities of maximum and minimum: false and true for pred, the integer
// range, the infinities for floats, or the largest finite values of an
// 8-bit float without infinities (f8e4m3fn and the fnuz types, where "inf"
// would round to NaN); ok is false for complex, token and opaque.
func (t ElemType) Bounds() (lo, hi string, ok bool) {
	switch t.Kind {
	case KindPred:
		return "false", "true", true
	case KindSigned, KindUnsigned:
		l, h := t.IntRange()
		return l.String(), h.String(), true
	case KindFloat:
		if f := isa.Minifloats[t.Name]; f != nil && !f.HasInf() {
			m := strconv.FormatFloat(f.MaxFinite(), 'g', -1, 64)
			return "-" + m, m, true
		}
		return "-inf", "inf", true
	}
	return "", "", false
}

func kindOf(elem string) ElemKind { return elemByName[elem].Kind }

// IsFloat reports whether elem is a floating-point or complex type (both
// hold non-integer values; IsRealFloat excludes complex).
func IsFloat(elem string) bool { k := kindOf(elem); return k == KindFloat || k == KindComplex }

// IsRealFloat reports whether elem is a floating-point type, not complex.
func IsRealFloat(elem string) bool { return kindOf(elem) == KindFloat }

// IsUnsigned reports whether elem is an unsigned integer type.
func IsUnsigned(elem string) bool { return kindOf(elem) == KindUnsigned }

// IsInteger reports whether elem is a signed or unsigned integer type.
func IsInteger(elem string) bool { t := elemByName[elem]; return t.IsInteger() }

// Round brings an arithmetic result to the element type: floats round to
// nearest even (through f32 for bf16 and f16), integers wrap, pred is x != 0.
func Round(elem string, x float64) float64 {
	switch elem {
	case F32:
		return float64(float32(x))
	case BF16:
		return isa.Round(isa.BF16, x)
	case F16:
		return isa.Round(isa.F16, x)
	case F64:
		return x
	case Pred:
		if x != 0 {
			return 1
		}
		return 0
	}
	if f := isa.Minifloats[elem]; f != nil {
		return f.Round(x)
	}
	bits := ElemBits(elem)
	if IsWide(elem) {
		// round's x is a number (an iota's index, a bound); the value
		// is carried as its bits.
		return WideFromNumber(elem, x)
	}
	if bits == 0 || bits > 64 || x != x {
		return math.Trunc(x) // (complex types: not evaluated)
	}
	v := int64(math.Trunc(x))
	if IsUnsigned(elem) {
		return float64(uint64(v) & (1<<bits - 1))
	}
	shift := 64 - bits
	return float64(v << shift >> shift)
}

// IsWide tells whether elem is s64 or u64, whose values the evaluator
// carries as their bit patterns in a float64's bits (math.Float64frombits),
// as the machine does (isa.DType.IsWide): a float64's 53 bits cannot hold
// them as numbers. Ops that read numbers decode them (WideNumber).
func IsWide(elem string) bool { return elem == S64 || elem == U64 }

// ElemBits is the size of an element type in bits (0 for token, opaque
// and names that are no element type).
func ElemBits(elem string) int { return elemByName[elem].Bits }

// WideFromNumber carries number v as a value of s64 or u64: truncated,
// saturated to the type's range (NaN is 0), as a conversion from a float
// does.
func WideFromNumber(elem string, v float64) float64 {
	v = math.Trunc(v)
	var b uint64
	switch {
	case v != v:
	case elem == U64 && v <= 0:
	case elem == U64 && v >= 0x1p64:
		b = math.MaxUint64
	case elem == U64:
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

// IsComplex reports whether elem is a complex type.
func IsComplex(elem string) bool { return kindOf(elem) == KindComplex }

// ComplexPart is the part type of a complex type (f32 for c64).
func ComplexPart(elem string) string {
	if elem == C128 {
		return "f64"
	}
	return "f32"
}

// HasComplex reports whether any instruction of m has a complex shape.
func HasComplex(m *Module) bool {
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if ShapeHasComplex(in.Shape) {
				return true
			}
		}
	}
	return false
}

func ShapeHasComplex(s *Shape) bool {
	if s == nil {
		return false
	}
	if s.IsTuple {
		return slices.ContainsFunc(s.Tuple, ShapeHasComplex)
	}
	return IsComplex(s.Elem)
}

// RealShape is s with each complex array made an array of its part type
// with a trailing dimension of 2 (innermost in the layout); other shapes
// are returned as they are.
func RealShape(s *Shape) *Shape {
	if !ShapeHasComplex(s) {
		return s
	}
	if s.IsTuple {
		t := &Shape{IsTuple: true}
		for _, e := range s.Tuple {
			t.Tuple = append(t.Tuple, RealShape(e))
		}
		return t
	}
	r := &Shape{Elem: ComplexPart(s.Elem), Dims: append(append([]int64{}, s.Dims...), 2)}
	if s.DimKinds != nil {
		r.DimKinds = append(append([]DimKind{}, s.DimKinds...), Static)
	}
	if s.Layout != nil {
		l := *s.Layout
		l.MinorToMajor = append([]int64{int64(len(s.Dims))}, s.Layout.MinorToMajor...)
		r.Layout = &l
	}
	return r
}
