package lowering

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// A while loop's condition that is a scalar integer expression of the
// loop state's scalars (a counter against its bound: i < n) is computed
// by the sequencer itself: it loads those scalars into scalar memory and
// evaluates the expression on its ALU (scalarOp), as XLA's TPU backend
// keeps such scalar computations on the scalar core. As a kernel it was a
// vector-unit kernel writing a pred to HBM and a DMA reading it back, two
// of HBM's round trips an iteration for a comparison.

// scalarCondition emits the condition cond of a loop whose state is state
// into r1, or returns false with nothing emitted when it is not such an
// expression.
func (c *compiler) scalarCondition(at *hlo.Instruction, cond *hlo.Computation, state *value) (bool, error) {
	if state == nil || state.tuple == nil && state.shape == nil {
		return false, nil
	}
	var order []*hlo.Instruction // the expression, operands first
	leaves := map[string]*value{}
	seen := map[*hlo.Instruction]bool{}
	// visit adds b (of computation comp, whose parameters are args: the
	// outer instructions a fusion's parameters stand for, nil for the
	// condition's own) and what it reads to order.
	var visit func(b *hlo.Instruction, comp *hlo.Computation, args []*hlo.Instruction) bool
	visit = func(b *hlo.Instruction, comp *hlo.Computation, args []*hlo.Instruction) bool {
		if b == nil || b.Shape == nil || b.Shape.IsTuple || b.Shape.Elems() != 1 {
			return false
		}
		if seen[b] {
			return true
		}
		seen[b] = true
		def := func(name string) *hlo.Instruction {
			for _, x := range comp.Instructions {
				if x.Name == name {
					return x
				}
			}
			return nil
		}
		switch {
		case b.Opcode == hlo.OpParameter && args != nil:
			// A fusion's parameter: the outer value, under this name.
			if int(b.ParamNumber) >= len(args) || !visit(args[b.ParamNumber], cond, nil) {
				return false
			}
			order = append(order, &hlo.Instruction{Pos: b.Pos, Name: b.Name, Opcode: hlo.OpReshape, Shape: b.Shape,
				Operands: []*hlo.Operand{{Pos: b.Pos, Name: args[b.ParamNumber].Name}}})
			return true
		case b.Opcode == hlo.OpGetTupleElement:
			p := def(b.Operands[0].Name)
			i, ok := tupleIndex(b)
			if p == nil || p.Opcode != hlo.OpParameter || args != nil || state.tuple == nil || !ok || i >= len(state.tuple) {
				return false
			}
			v := state.tuple[i]
			if v == nil || v.tuple != nil || v.empty || v.shape.Elems() != 1 || !scalarALUType[v.shape.Elem] && !(v.dt.IsInt() && v.dt.Size() <= 4) {
				return false
			}
			leaves[b.Name] = v
			// A leaf: a parameter the sequencer loads (scalarOp).
			order = append(order, &hlo.Instruction{Pos: b.Pos, Name: b.Name, Opcode: hlo.OpParameter, Shape: b.Shape})
			return true
		case b.Opcode == hlo.OpFusion:
			name, _ := b.Attr("calls")
			fc := c.m.Computation(strings.TrimPrefix(name, "%"))
			if fc == nil || fc.Root == nil {
				return false
			}
			var outer []*hlo.Instruction
			for _, o := range b.Operands {
				x := def(o.Name)
				if x == nil {
					return false
				}
				outer = append(outer, x)
			}
			if !visit(fc.Root, fc, outer) {
				return false
			}
			order = append(order, &hlo.Instruction{Pos: b.Pos, Name: b.Name, Opcode: hlo.OpReshape, Shape: b.Shape,
				Operands: []*hlo.Operand{{Pos: b.Pos, Name: fc.Root.Name}}})
			return true
		case b.Opcode == hlo.OpConstant:
			if _, ok := intLiteral(b); !ok || !scalarALUType[b.Shape.Elem] {
				return false
			}
		case scalarALUOps[b.Opcode] && scalarALUType[b.Shape.Elem]:
			byName := map[string]*hlo.Instruction{}
			for _, o := range b.Operands {
				byName[o.Name] = def(o.Name)
			}
			if !scalarOpOK(b, byName) {
				return false
			}
			for _, o := range b.Operands {
				if !visit(byName[o.Name], comp, args) {
					return false
				}
			}
		default:
			return false
		}
		order = append(order, b)
		return true
	}
	if cond.Root == nil || cond.Root.Shape == nil || cond.Root.Shape.Elem != hlo.Pred || !visit(cond.Root, cond, nil) {
		return false, nil
	}
	if len(order) > lastExprReg-firstExprReg+1 {
		return false, nil
	}
	expr := &seqScalar{root: cond.Root.Name, elem: hlo.Pred, order: order, leaves: map[string]seqLeaf{}}
	for n, v := range leaves {
		expr.leaves[n] = seqLeaf{v: v}
	}
	slot := c.loadSeqLeaves(at, []*seqScalar{expr}, condWord)
	r, _ := c.computeSeqScalar(at, expr, slot, firstExprReg)
	c.loc(at)
	fmt.Fprintf(&c.out, "        add     r1, r%d, r0\n", r)
	return true, nil
}

// tupleIndex is a get-tuple-element's index.
func tupleIndex(b *hlo.Instruction) (int, bool) {
	v, ok := hlo.IntList("{" + hlo.AttrOr(b, "index", "") + "}")
	if !ok || len(v) != 1 || v[0] < 0 {
		return 0, false
	}
	return int(v[0]), true
}
