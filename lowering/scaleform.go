package lowering

import (
	"math"
	"slices"
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
)

// Scalar constants as immediates. An elementwise multiply, add or subtract
// of a floating-point array and a broadcast scalar constant (a GELU's 0.5
// and 0.044715, an optimizer's betas, a layer norm's epsilon) is one
// vscale, dst = x * a + b, reading x alone, instead of a vector operation
// reading x and a tile filled with the constant: XLA's TPU code takes such
// scalars from scalar registers, and a filled tile costs a fill per tile
// (in a dot's epilogue) and SRAM bandwidth on every read. vscale computes
// in f32 with a rounding after each step, as vmul and vadd do, so the bits
// are the same: x*c is x*c + -0 (-0 keeps a product's sign of zero), x+c is
// x*1 + c, x-c is x*1 + -c, c-x is x*-1 + c.

// scaleForm is such an operation: its array operand and immediates.
type scaleForm struct {
	x    string
	a, b string // as the assembler reads them
}

// scaleFormOf reports whether b is such an operation, consts holding the
// scalar constants by name.
func scaleFormOf(b *hlo.Instruction, consts map[string]string) (scaleForm, bool) {
	if len(b.Operands) != 2 || b.Shape == nil || b.Shape.IsTuple {
		return scaleForm{}, false
	}
	switch b.Opcode {
	case hlo.OpMultiply, hlo.OpAdd, hlo.OpSubtract:
	default:
		return scaleForm{}, false
	}
	switch b.Shape.Elem {
	case hlo.F32, hlo.BF16, hlo.F16:
	default:
		return scaleForm{}, false
	}
	l0, c0 := consts[b.Operands[0].Name]
	l1, c1 := consts[b.Operands[1].Name]
	if c0 == c1 {
		return scaleForm{}, false // both constants, or neither
	}
	lit, x, constFirst := l1, b.Operands[0].Name, false
	if c0 {
		lit, x, constFirst = l0, b.Operands[1].Name, true
	}
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || float64(float32(v)) != v {
		return scaleForm{}, false
	}
	switch {
	case b.Opcode == hlo.OpMultiply:
		return scaleForm{x: x, a: f32imm(v), b: "-0"}, true
	case b.Opcode == hlo.OpAdd:
		return scaleForm{x: x, a: "1", b: f32imm(v)}, true
	case constFirst: // c - x
		return scaleForm{x: x, a: "-1", b: f32imm(v)}, true
	default: // x - c
		return scaleForm{x: x, a: "1", b: f32imm(-v)}, true
	}
}

// immediateOnly lists the constants of consts that every reader in body
// takes as an immediate (scaleFormOf) and that are none of results: their
// tiles need no fill.
func immediateOnly(body []*hlo.Instruction, consts map[string]string, results ...string) map[string]bool {
	readers := map[string]int{}
	asImm := map[string]int{}
	for _, b := range body {
		f, ok := scaleFormOf(b, consts)
		for _, o := range b.Operands {
			readers[o.Name]++
			if ok && o.Name != f.x {
				asImm[o.Name]++
			}
		}
	}
	out := map[string]bool{}
	for name := range consts {
		if readers[name] > 0 && readers[name] == asImm[name] && !slices.Contains(results, name) {
			out[name] = true
		}
	}
	return out
}
