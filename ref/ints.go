package ref

import (
	"math"

	"github.com/pulse-sim/pulse/isa"
)

// Integer arithmetic. The vector unit computes integers in one of four
// types: s32 (for s32, s8, u8 and pred operands, as it always has), u32,
// s64 and u64 (whose operands must all be of that type). Every operation
// works on two's-complement bits and wraps, as XLA's integer ops do; the
// result is carried as a value of the compute type (isa.FromBits).

// intType is the integer type an operation on a and b computes in, or
// DTypeInvalid when the operands do not share one.
func intType(a, b isa.DType) isa.DType {
	wideOrUnsigned := func(d isa.DType) bool { return d == isa.U32 || d.IsWide() }
	switch {
	case !a.IsInt() || !b.IsInt():
		return isa.DTypeInvalid
	case !wideOrUnsigned(a) && !wideOrUnsigned(b):
		return isa.S32
	case a == b:
		return a
	}
	return isa.DTypeInvalid
}

// width is the bit width an integer compute type wraps at.
func width(ct isa.DType) uint64 {
	if ct.IsWide() {
		return 64
	}
	return 32
}

// signed reads bits x of compute type ct as a signed number.
func signed(ct isa.DType, x uint64) int64 {
	if width(ct) == 32 {
		return int64(int32(x))
	}
	return int64(x)
}

// unsigned reads bits x of compute type ct as an unsigned number.
func unsigned(ct isa.DType, x uint64) uint64 {
	if width(ct) == 32 {
		return uint64(uint32(x))
	}
	return x
}

// less compares two values of compute type ct.
func less(ct isa.DType, x, y uint64) bool {
	if ct.IsSigned() {
		return signed(ct, x) < signed(ct, y)
	}
	return unsigned(ct, x) < unsigned(ct, y)
}

// IntBinary applies a binary function to a and b, values of dtypes da and
// db, computing in ct (from intType).
func IntBinary(fn uint8, ct isa.DType, a, b float64, da, db isa.DType) float64 {
	x, y := isa.Bits(da, a), isa.Bits(db, b)
	w := width(ct)
	var r uint64
	switch fn {
	case isa.VAdd:
		r = x + y
	case isa.VSub:
		r = x - y
	case isa.VMul:
		r = x * y
	case isa.VDiv:
		// XLA: x/0 is -1 (all ones); MIN/-1 is MIN; otherwise truncating.
		switch {
		case unsigned(ct, y) == 0:
			r = math.MaxUint64
		case ct.IsSigned():
			sx, sy := signed(ct, x), signed(ct, y)
			if sy == -1 {
				r = uint64(-sx) // MIN/-1 wraps to MIN
			} else {
				r = uint64(sx / sy)
			}
		default:
			r = unsigned(ct, x) / unsigned(ct, y)
		}
	case isa.VMax:
		r = x
		if less(ct, x, y) {
			r = y
		}
	case isa.VMin:
		r = x
		if less(ct, y, x) {
			r = y
		}
	case isa.VPow:
		r = intPow(ct, x, y)
	case isa.VAnd:
		r = x & y
	case isa.VOr:
		r = x | y
	case isa.VXor:
		r = x ^ y
	case isa.VShl:
		if unsigned(ct, y) < w {
			r = x << unsigned(ct, y)
		}
	case isa.VShr:
		if unsigned(ct, y) < w {
			r = unsigned(ct, x) >> unsigned(ct, y)
		}
	case isa.VSra:
		s := min(unsigned(ct, y), w-1)
		r = uint64(signed(ct, x) >> s)
	}
	return isa.FromBits(ct, r)
}

// intPow is XLA's integer power: wrapping; a negative signed exponent
// gives 0 except for bases 1 and -1.
func intPow(ct isa.DType, x, y uint64) uint64 {
	if ct.IsSigned() && signed(ct, y) < 0 {
		switch signed(ct, x) {
		case 1:
			return 1
		case -1:
			if y&1 == 0 {
				return 1
			}
			return math.MaxUint64
		}
		return 0
	}
	r := uint64(1)
	for e := unsigned(ct, y); e > 0; e >>= 1 {
		if e&1 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

// IntCompare compares values of dtypes da and db in compute type ct.
func IntCompare(fn uint8, ct isa.DType, a, b float64, da, db isa.DType) bool {
	x, y := isa.Bits(da, a), isa.Bits(db, b)
	x, y = isa.Bits(ct, isa.FromBits(ct, x)), isa.Bits(ct, isa.FromBits(ct, y))
	switch fn {
	case isa.CmpEq:
		return x == y
	case isa.CmpNe:
		return x != y
	case isa.CmpLt:
		return less(ct, x, y)
	case isa.CmpLe:
		return !less(ct, y, x)
	case isa.CmpGt:
		return less(ct, y, x)
	case isa.CmpGe:
		return !less(ct, x, y)
	}
	return false
}

// IntUnary applies the integer meaning of a unary function to x, a value
// of u32, s64 or u64 dtype d; ok is false for functions that have none.
func IntUnary(fn uint8, d isa.DType, x float64) (r float64, ok bool) {
	u := isa.Bits(d, x)
	switch fn {
	case isa.FnNone, isa.FnFloor, isa.FnCeil, isa.FnRound:
		return x, true
	case isa.FnNeg:
		return isa.FromBits(d, -u), true
	case isa.FnAbs:
		if d.IsSigned() && signed(d, u) < 0 {
			return isa.FromBits(d, -u), true
		}
		return x, true
	case isa.FnRelu:
		if d.IsSigned() && signed(d, u) < 0 {
			return isa.FromBits(d, 0), true
		}
		return x, true
	case isa.FnSign:
		switch {
		case u == 0:
			return x, true
		case d.IsSigned() && signed(d, u) < 0:
			return isa.FromBits(d, math.MaxUint64), true
		}
		return isa.FromBits(d, 1), true
	case isa.FnNot:
		return isa.FromBits(d, ^u), true
	}
	return 0, false
}

// IntReduce folds vals, values of dtype d, in index order in compute type
// ct.
func IntReduce(fn uint8, ct isa.DType, vals []float64, d isa.DType) float64 {
	bin := map[uint8]uint8{isa.RedSum: isa.VAdd, isa.RedMax: isa.VMax, isa.RedMin: isa.VMin, isa.RedAnd: isa.VAnd, isa.RedOr: isa.VOr}[fn]
	acc := isa.FromBits(ct, isa.Bits(d, vals[0]))
	for _, v := range vals[1:] {
		acc = IntBinary(bin, ct, acc, v, ct, d)
	}
	return acc
}

// Convert converts x of dtype from to dtype to by the cast rules: floats
// to integers truncate toward zero and saturate (NaN is 0); integers to
// integers wrap when either is a 64-bit or u32 type (and saturate among
// the older s32, s8 and u8, as they always have); integers to floats round
// to nearest even.
func Convert(from, to isa.DType, x float64) float64 {
	wideOrU32 := func(d isa.DType) bool { return d.IsWide() || d == isa.U32 }
	if !wideOrU32(from) && !wideOrU32(to) {
		return isa.Round(to, x)
	}
	switch {
	case to == isa.Pred:
		if from.IsInt() {
			return b2f(isa.Bits(from, x) != 0)
		}
		return isa.Round(to, x)
	case from.IsFloat() && to.IsWide():
		return isa.FromNumber(to, x)
	case from.IsFloat(): // to u32
		return isa.Round(to, x)
	case to.IsInt():
		return isa.FromBits(to, isa.Bits(from, x))
	case from == isa.S64 && to == isa.F64:
		return float64(int64(isa.Bits(from, x)))
	case from == isa.U64 && to == isa.F64:
		return float64(isa.Bits(from, x))
	case from == isa.S64:
		return isa.Round(to, float64(float32(int64(isa.Bits(from, x)))))
	case from == isa.U64:
		return isa.Round(to, float64(float32(isa.Bits(from, x))))
	}
	return isa.Round(to, x) // from u32: exact in float64
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// wideOrU32 reports whether d is one of the integer types that compute
// apart from s32 (and never mix with other types).
func wideOrU32(d isa.DType) bool { return d.IsWide() || d == isa.U32 }

// computeType is the type a vector binary or comparison computes in: f64
// when an operand is f64, f32 when an operand is another float, an integer
// type (intType) otherwise.
func computeType(info *isa.OpInfo, a, b isa.DType) (isa.DType, error) {
	bitwise := info.Code == isa.CodeVBin && (info.Func == isa.VAnd || info.Func == isa.VOr ||
		info.Func == isa.VXor || info.Func == isa.VShl || info.Func == isa.VShr || info.Func == isa.VSra)
	if !a.IsInt() || !b.IsInt() {
		switch {
		case bitwise:
			return 0, dtypeErr(info, "%s needs integer or pred operands, got %s and %s", info.Mnemonic, a, b)
		case a.IsWide() || b.IsWide():
			return 0, dtypeErr(info, "%s mixes %s with %s: convert first (vcvt)", info.Mnemonic, a, b)
		case a == isa.F64 || b == isa.F64:
			return isa.F64, nil // the other operand widens exactly
		}
		return isa.F32, nil
	}
	ct := intType(a, b)
	if ct == isa.DTypeInvalid {
		return 0, dtypeErr(info, "%s mixes %s with %s: operands of u32, s64 and u64 must share the dtype", info.Mnemonic, a, b)
	}
	return ct, nil
}

// reducer returns the fold of a reduction over values of dtype src.
func (m *Machine) reducer(info *isa.OpInfo, src, dst isa.DType) (func([]float64) float64, error) {
	if src.IsInt() {
		ct := intType(src, src)
		if wideOrU32(ct) && dst != ct {
			return nil, dtypeErr(info, "%s of %s writes %s, but dst is %s", info.Mnemonic, src, src, dst)
		}
		return func(v []float64) float64 { return IntReduce(info.Func, ct, v, src) }, nil
	}
	if info.Func == isa.RedAnd || info.Func == isa.RedOr {
		return nil, dtypeErr(info, "%s needs integer or pred operands, got %s", info.Mnemonic, src)
	}
	ct := isa.F32
	if src == isa.F64 {
		ct = isa.F64
	}
	return func(v []float64) float64 { return Reduce(ct, info.Func, v) }, nil
}
