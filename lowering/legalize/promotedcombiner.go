package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
)

// NarrowPromotedCombiners rewrites a combiner that widens its two
// parameters, applies one op and narrows the result back (XLA's CPU and
// GPU pipelines "promote" a bf16 scatter-add or reduce to f32 this way:
// convert, convert, add, convert) into that op on the parameters' own
// type, which the chip's vector unit computes directly. The two differ
// only where rounding the wide result twice would differ from rounding
// the exact one once; max and min not at all. Every computation of that
// form is rewritten in place, so each user (scatter, reduce, reduce-window,
// all-reduce) sees the one-op form its lowering knows.
func NarrowPromotedCombiners(m *hlo.Module) error {
	for _, c := range m.Computations {
		narrowPromoted(c)
	}
	return nil
}

// narrowPromoted rewrites c if it is p0, p1 (type T), convert(p0),
// convert(p1) (a wider float U), op(them) in U, convert back to T.
func narrowPromoted(c *hlo.Computation) {
	if len(c.Instructions) != 6 || c.Root == nil || c.Root.Opcode != hlo.OpConvert || len(c.Root.Operands) != 1 {
		return
	}
	byName := map[string]*hlo.Instruction{}
	var params [2]*hlo.Instruction
	for _, in := range c.Instructions {
		byName[in.Name] = in
		if in.Opcode == hlo.OpParameter && in.ParamNumber >= 0 && in.ParamNumber < 2 {
			params[in.ParamNumber] = in
		}
	}
	if params[0] == nil || params[1] == nil || params[0].Shape == nil || params[1].Shape == nil {
		return
	}
	narrow := params[0].Shape
	if params[1].Shape.Elem != narrow.Elem || len(narrow.Dims) != 0 || c.Root.Shape == nil || c.Root.Shape.Elem != narrow.Elem || !isFloat(narrow.Elem) {
		return
	}
	op := byName[c.Root.Operands[0].Name]
	if op == nil || len(op.Operands) != 2 || op.Shape == nil || !isFloat(op.Shape.Elem) || floatBits(op.Shape.Elem) <= floatBits(narrow.Elem) {
		return
	}
	switch op.Opcode {
	case hlo.OpAdd, hlo.OpMultiply, hlo.OpMaximum, hlo.OpMinimum:
	default:
		return
	}
	var from [2]string
	for i, o := range op.Operands {
		cv := byName[o.Name]
		if cv == nil || cv.Opcode != hlo.OpConvert || len(cv.Operands) != 1 {
			return
		}
		from[i] = cv.Operands[0].Name
	}
	if !(from[0] == params[0].Name && from[1] == params[1].Name || from[0] == params[1].Name && from[1] == params[0].Name) {
		return
	}
	root := &hlo.Instruction{Pos: op.Pos, Name: c.Root.Name, IsRoot: true, Shape: &hlo.Shape{Elem: narrow.Elem}, Opcode: op.Opcode,
		Operands: []*hlo.Operand{{Pos: op.Pos, Name: params[0].Name}, {Pos: op.Pos, Name: params[1].Name}}}
	c.Instructions = []*hlo.Instruction{params[0], params[1], root}
	c.Root = root
}

// floatBits is the width of a float type of 16 bits or more (0 for others).
func floatBits(elem string) int {
	if t, ok := hlo.LookupElem(elem); ok && t.Kind == hlo.KindFloat && t.Bits >= 16 { // the minifloats are not promoted
		return t.Bits
	}
	return 0
}

func isFloat(elem string) bool { return floatBits(elem) > 0 }
