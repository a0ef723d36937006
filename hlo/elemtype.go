package hlo

import (
	"math"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/isa"
)

func IsFloat(elem string) bool {
	return strings.HasPrefix(elem, "f") || strings.HasPrefix(elem, "bf") || strings.HasPrefix(elem, "c")
}

func IsUnsigned(elem string) bool { return strings.HasPrefix(elem, "u") }

// Round brings an arithmetic result to the element type: floats round to
// nearest even (through f32 for bf16 and f16), integers wrap, pred is x != 0.
func Round(elem string, x float64) float64 {
	switch elem {
	case "f32":
		return float64(float32(x))
	case "bf16":
		return isa.Round(isa.BF16, x)
	case "f16":
		return isa.Round(isa.F16, x)
	case "f64":
		return x
	case "pred":
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
func IsWide(elem string) bool { return elem == "s64" || elem == "u64" }

// ElemBits is the size of an element type in bits (0 for token/opaque).
func ElemBits(elem string) int {
	switch elem {
	case "pred", "s8", "u8", "f8e5m2", "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e3m4", "f8e5m2fnuz", "f8e4m3fnuz", "f8e8m0fnu":
		return 8
	case "s1", "u1":
		return 1
	case "s2", "u2":
		return 2
	case "s4", "u4", "f4e2m1fn":
		return 4
	case "s16", "u16", "f16", "bf16":
		return 16
	case "s32", "u32", "f32":
		return 32
	case "s64", "u64", "f64", "c64":
		return 64
	case "c128":
		return 128
	}
	return 0
}

// WideFromNumber carries number v as a value of s64 or u64: truncated,
// saturated to the type's range (NaN is 0), as a conversion from a float
// does.
func WideFromNumber(elem string, v float64) float64 {
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

// IsComplex reports whether elem is a complex type.
func IsComplex(elem string) bool { return elem == "c64" || elem == "c128" }

// ComplexPart is the part type of a complex type (f32 for c64).
func ComplexPart(elem string) string {
	if elem == "c128" {
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

func IsFloatElem(elem string) bool {
	return strings.HasPrefix(elem, "f") || strings.HasPrefix(elem, "bf")
}
