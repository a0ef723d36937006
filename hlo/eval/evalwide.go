package eval

import (
	"math"
	"math/bits"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
)

// wideElementwise evaluates an elementwise op whose computation type ct is
// s64 or u64 on the values' carried bits (IsWide): exact and wrapping, as
// XLA's integer arithmetic, where a float64 number would round beyond
// 2^53. Division follows XLA: x/0 is -1 (all ones), MIN/-1 is MIN, x%0 is
// x.
func (e *Evaluator) wideElementwise(in *hlo.Instruction, ops []*Value, ct string, out *Value) (*Value, error) {
	signed := ct == "s64"
	less := func(a, b uint64) bool {
		if signed {
			return int64(a) < int64(b)
		}
		return a < b
	}
	dir, _ := in.Attr("direction")
	at := func(k, i int) uint64 { return math.Float64bits(ops[k].Data[i]) }
	for i := range out.Data {
		var a, b uint64
		if len(ops) > 0 && hlo.IsWide(ops[0].Shape.Elem) {
			a = at(0, i)
		}
		if len(ops) > 1 && hlo.IsWide(ops[1].Shape.Elem) {
			b = at(1, i)
		}
		var r uint64
		switch in.Opcode {
		case hlo.OpAdd:
			r = a + b
		case hlo.OpSubtract:
			r = a - b
		case hlo.OpMultiply:
			r = a * b
		case hlo.OpDivide:
			switch {
			case b == 0:
				r = math.MaxUint64
			case signed && a == 1<<63 && int64(b) == -1:
				r = a
			case signed:
				r = uint64(int64(a) / int64(b))
			default:
				r = a / b
			}
		case hlo.OpRemainder:
			switch {
			case b == 0:
				r = a
			case signed && a == 1<<63 && int64(b) == -1:
				r = 0
			case signed:
				r = uint64(int64(a) % int64(b))
			default:
				r = a % b
			}
		case hlo.OpMaximum:
			r = a
			if less(a, b) {
				r = b
			}
		case hlo.OpMinimum:
			r = a
			if less(b, a) {
				r = b
			}
		case hlo.OpAnd:
			r = a & b
		case hlo.OpOr:
			r = a | b
		case hlo.OpXor:
			r = a ^ b
		case hlo.OpNot:
			r = ^a
		case hlo.OpNegate:
			r = -a
		case hlo.OpAbs:
			r = a
			if signed && int64(a) < 0 {
				r = -a
			}
		case hlo.OpSign:
			switch {
			case a == 0:
			case signed && int64(a) < 0:
				r = math.MaxUint64
			default:
				r = 1
			}
		case hlo.OpPower:
			r = scalar.WidePower(a, b, signed)
		case hlo.OpShiftLeft, hlo.OpShiftRightLogical, hlo.OpShiftRightArithmetic:
			n := uint64(64)
			switch {
			case in.Opcode == hlo.OpShiftLeft && b < n:
				r = a << b
			case in.Opcode == hlo.OpShiftRightLogical && b < n:
				r = a >> b
			case in.Opcode == hlo.OpShiftRightArithmetic:
				r = uint64(int64(a) >> min(b, n-1))
			}
		case hlo.OpPopcnt:
			r = uint64(bits.OnesCount64(a))
		case hlo.OpCountLeadingZeros:
			r = uint64(bits.LeadingZeros64(a))
		case hlo.OpCompare:
			var ok bool
			switch dir {
			case "EQ":
				ok = a == b
			case "NE":
				ok = a != b
			case "LT":
				ok = less(a, b)
			case "LE":
				ok = !less(b, a)
			case "GT":
				ok = less(b, a)
			case "GE":
				ok = !less(a, b)
			default:
				return nil, e.Fail(in, "unknown direction %q", dir)
			}
			if ok {
				out.Data[i] = 1
			}
			continue
		case hlo.OpConvert:
			out.Data[i] = scalar.Convert(ct, out.Shape.Elem, ops[0].Data[i])
			continue
		case hlo.OpCopy:
			out.Data[i] = ops[0].Data[i]
			continue
		case hlo.OpSelect:
			if ops[0].Data[i] != 0 {
				out.Data[i] = ops[1].Data[i]
			} else {
				out.Data[i] = ops[2].Data[i]
			}
			continue
		case hlo.OpClamp:
			lo, x, hi := a, b, at(2, i)
			r = x
			if less(r, lo) {
				r = lo
			}
			if less(hi, r) {
				r = hi
			}
		default:
			return nil, e.Fail(in, "not defined for %s", ct)
		}
		out.Data[i] = math.Float64frombits(r)
	}
	return out, nil
}
