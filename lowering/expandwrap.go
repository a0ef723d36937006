package lowering

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// 4-, 8- and 16-bit integer arithmetic wraps around in XLA; the vector unit
// computes in s32 and saturates when it stores a narrower type. So the op
// runs into an s32 scratch tile and is wrapped to the type's width there —
// the low byte, sign-extended for s8: ((v + 128) & 255) - 128, and the same
// with 4 or 16 bits — before the store, which
// then has nothing to saturate. Shifts right take the variant whose s32
// form agrees with the 8-bit one (logical for u8, arithmetic for s8).

var wrapOps = map[string]string{
	"add": "vadd", "subtract": "vsub", "multiply": "vmul", "divide": "vdiv",
	"negate": "vneg", "abs": "vabs", "shift-left": "vshl", "power": "vpow",
}

// expansionOf is b's expansion: its op's own, or for 4-, 8- or 16-bit
// integer arithmetic the op in s32 wrapped back to the type's width.
func expansionOf(b *hlo.Instruction) (expansion, bool) {
	if b.Opcode == hlo.OpReducePrecision && precisionHolds(b) {
		// A format with at least the type's exponent and mantissa bits
		// changes nothing (f32 to f64's 11 and 52).
		return expansion{emit: func(dst string, args, t []string) []string {
			return []string{"vcopy   " + dst + ", " + args[0]}
		}}, true
	}
	if b.Opcode == hlo.OpRemainder {
		if dt, ok := dtypeOf(b.Shape.Elem); ok && dt.IsInt() && !dt.IsWide() && dt != isa.U32 && dt != isa.Pred {
			return remainderInt(dt), true
		}
		if dt, ok := dtypeOf(b.Shape.Elem); ok && (dt == isa.S64 || dt == isa.U64 || dt == isa.U32) {
			return remainderWide(dt), true
		}
	}
	if b.Opcode == hlo.OpPopcnt {
		if dt, ok := dtypeOf(b.Shape.Elem); ok && dt.IsInt() && !dt.IsWide() && dt != isa.Pred {
			return popcnt(dt), true
		}
	}
	if e, ok := expansions[b.Opcode]; ok {
		return e, true
	}
	dt, ok := dtypeOf(b.Shape.Elem)
	if !ok || dt != isa.S8 && dt != isa.U8 && dt != isa.S16 && dt != isa.U16 && dt != isa.S4 && dt != isa.U4 {
		return expansion{}, false
	}
	mn, ok := wrapOps[b.Opcode]
	switch {
	case b.Opcode == hlo.OpConvert && narrowConvert(b):
		mn, ok = "vcvt", true
	case b.Opcode == hlo.OpShiftRightArithmetic && !dt.IsSigned():
		return sraUnsigned(dt), true
	case b.Opcode == hlo.OpShiftRightLogical && !dt.IsSigned():
		mn, ok = "vshr", true
	case b.Opcode == hlo.OpNot && !dt.IsSigned():
		mn, ok = "vnot", true // ~x of a u8 is negative in s32
	case b.Opcode == hlo.OpShiftRightArithmetic && dt.IsSigned():
		mn, ok = "vsra", true
	}
	if !ok {
		return expansion{}, false
	}
	return expansion{scratch: []string{"s32", "s32"}, emit: func(dst string, args, t []string) []string {
		v, k := t[0], t[1]
		seq := []string{fmt.Sprintf("%-7s %s, %s", mn, v, strings.Join(args, ", "))}
		return append(seq, wrapInto(dt, dst, v, k)...)
	}}, true
}

// wrapInto wraps the s32 tile v to dt's 8 or 16 bits and stores it into
// dst (k is an s32 scratch tile of v's shape): the low bits, sign-extended
// for a signed type, ((v + half) & mask) - half.
func wrapInto(dt isa.DType, dst, v, k string) []string {
	half := 1 << (dt.Width() - 1) // 8, 128 or 32768
	mask := fmt.Sprint(2*half - 1)
	var seq []string
	if dt.IsSigned() {
		seq = append(seq,
			"vfill   "+k+", "+fmt.Sprint(half), "vadd    "+v+", "+v+", "+k,
			"vfill   "+k+", "+mask, "vand    "+v+", "+v+", "+k,
			"vfill   "+k+", "+fmt.Sprint(-half), "vadd    "+v+", "+v+", "+k)
	} else {
		seq = append(seq, "vfill   "+k+", "+mask, "vand    "+v+", "+v+", "+k)
	}
	return append(seq, "vcvt    "+dst+", "+v)
}

// sraUnsigned: an arithmetic shift of u8 or u16 bits shifts in copies of
// their top bit, as XLA's does: the value sign-extended in s32
// (((v + half) & mask) - half), shifted arithmetically (the sign fills at
// and past the width), and wrapped back to the unsigned width.
func sraUnsigned(dt isa.DType) expansion {
	half := 1 << (dt.Width() - 1)
	mask := fmt.Sprint(2*half - 1)
	return expansion{scratch: []string{"s32", "s32"}, emit: func(dst string, args, t []string) []string {
		v, k := t[0], t[1]
		return []string{
			"vcvt    " + v + ", " + args[0],
			"vfill   " + k + ", " + fmt.Sprint(half), "vadd    " + v + ", " + v + ", " + k,
			"vfill   " + k + ", " + mask, "vand    " + v + ", " + v + ", " + k,
			"vfill   " + k + ", " + fmt.Sprint(-half), "vadd    " + v + ", " + v + ", " + k,
			"vsra    " + v + ", " + v + ", " + args[1],
			"vfill   " + k + ", " + mask, "vand    " + v + ", " + v + ", " + k,
			"vcvt    " + dst + ", " + v,
		}
	}}
}

// narrowConvert reports whether convert b narrows an s32, s16, u16, s8 or
// u8 operand to a smaller integer type, which wraps in XLA (the vector
// unit's conversion among these saturates). checkElementwise writes the
// operand's type on the operand.
func narrowConvert(b *hlo.Instruction) bool {
	if len(b.Operands) != 1 || b.Operands[0].Shape == nil {
		return false
	}
	fd, ok1 := dtypeOf(b.Operands[0].Shape.Elem)
	td, ok2 := dtypeOf(b.Shape.Elem)
	legacy := func(d isa.DType) bool {
		return d == isa.S32 || d == isa.S16 || d == isa.U16 || d == isa.S8 || d == isa.U8 || d == isa.S4 || d == isa.U4
	}
	return ok1 && ok2 && legacy(fd) && legacy(td) && convertWraps(fd, td)
}

// convertWraps tells whether an integer conversion from fd to td can meet
// a value td cannot hold, which XLA wraps (keeps the low bits of) and the
// vector unit would saturate: a narrower target, or a change of sign that
// does not widen an unsigned type into a signed one (s8 -1 is u16 65535,
// u8 255 is s8 -1).
func convertWraps(fd, td isa.DType) bool {
	switch {
	case td.Width() < fd.Width():
		return true
	case fd.IsSigned() && !td.IsSigned():
		return true
	case !fd.IsSigned() && td.IsSigned():
		return td.Width() == fd.Width()
	}
	return false
}

// expansionScratch is the element types of b's scratch tiles (none when
// it is not expanded).
func expansionScratch(b *hlo.Instruction) []string {
	e, _ := expansionOf(b)
	return e.scratch
}

// precisionHolds reports whether reduce-precision b's format holds every
// value of its type: at least its exponent and mantissa bits.
func precisionHolds(b *hlo.Instruction) bool {
	var e, m int
	ea, _ := b.Attr("exponent_bits")
	ma, _ := b.Attr("mantissa_bits")
	if _, err := fmt.Sscan(ea, &e); err != nil {
		return false
	}
	if _, err := fmt.Sscan(ma, &m); err != nil {
		return false
	}
	switch b.Shape.Elem {
	case hlo.F32:
		return e >= 8 && m >= 23
	case hlo.BF16:
		return e >= 8 && m >= 7
	case hlo.F16:
		return e >= 5 && m >= 10
	}
	return false
}

// remainderInt: x - (x / y) y in s32 with the vector unit's truncating
// division, which gives XLA's x % 0 = x and MIN % -1 = 0 (x / 0 is -1, and
// MIN / -1 wraps to MIN); 8- and 16-bit results wrap back as arithmetic
// does.
func remainderInt(dt isa.DType) expansion {
	wrap, _ := expansionOf(&hlo.Instruction{Opcode: "subtract", Shape: &hlo.Shape{Elem: dt.String()}})
	return expansion{scratch: []string{"s32", "s32", "s32", "s32"}, emit: func(dst string, args, t []string) []string {
		q, r := t[0], t[1]
		seq := []string{
			"vdiv    " + q + ", " + args[0] + ", " + args[1],
			"vmul    " + q + ", " + q + ", " + args[1],
			"vcvt    " + r + ", " + args[0],
		}
		if dt.Size() < 4 {
			return append(seq, wrap.emit(dst, []string{r, q}, t[2:])...)
		}
		return append(seq, "vsub    "+dst+", "+r+", "+q)
	}}
}

// remainderWide: x - (x / y) y in s64, u64 or u32 (whose values do not
// all fit remainderInt's s32), the vector unit's truncating division
// giving x % 0 = x (x / 0 is all ones) and, in s64, MIN % -1 = 0, as in
// s32 (remainderInt).
func remainderWide(dt isa.DType) expansion {
	return expansion{scratch: []string{dt.String()}, emit: func(dst string, args, t []string) []string {
		q := t[0]
		return []string{
			"vdiv    " + q + ", " + args[0] + ", " + args[1],
			"vmul    " + q + ", " + q + ", " + args[1],
			"vsub    " + dst + ", " + args[0] + ", " + q,
		}
	}}
}

// popcnt counts the set bits of each element's own width, SWAR style on s32
// lanes: pairs, nibbles, bytes, then the bytes summed by a multiply.
func popcnt(dt isa.DType) expansion {
	mask := fmt.Sprint(uint32(1<<dt.Width() - 1))
	if dt.Size() == 4 {
		mask = "-1"
	}
	return expansion{scratch: []string{"s32", "s32", "s32"}, emit: func(dst string, args, t []string) []string {
		v, a, k := t[0], t[1], t[2]
		step := func(shift, m string) []string { // v = (v & m) + ((v >> shift) & m)
			return []string{
				"vfill   " + k + ", " + shift,
				"vshr    " + a + ", " + v + ", " + k,
				"vfill   " + k + ", " + m,
				"vand    " + a + ", " + a + ", " + k,
				"vand    " + v + ", " + v + ", " + k,
				"vadd    " + v + ", " + v + ", " + a,
			}
		}
		seq := []string{
			"vcvt    " + v + ", " + args[0],
			"vfill   " + k + ", " + mask,
			"vand    " + v + ", " + v + ", " + k, // the element's own bits
		}
		seq = append(seq, step("1", "1431655765")...) // 0x55555555
		seq = append(seq, step("2", "858993459")...)  // 0x33333333
		seq = append(seq, step("4", "252645135")...)  // 0x0f0f0f0f
		seq = append(seq,
			"vfill   "+k+", 16843009", // 0x01010101
			"vmul    "+v+", "+v+", "+k,
			"vfill   "+k+", 24",
			"vshr    "+v+", "+v+", "+k,
			"vcvt    "+dst+", "+v,
		)
		return seq
	}}
}
