package fusion

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
)

// windowConcat returns the operand side (0 lhs, 1 rhs) of dot and the
// slices it is made of when that operand is a convolution's windows side
// by side (the compiler's flattened-grid convolution and its weight
// gradient): [rows, T*F] = concatenate along dim 1 (the lhs's contracting
// dim, the rhs's free dim) of row slices X[base : base+rows, 0:F] of one
// 2-D array X, read only by the dot and the concatenate. The dot's fusion
// takes them, so that its kernel reads the windows from X in place rather
// than from a copy nine times X's size; nil otherwise.
func windowConcat(dot *hlo.Instruction, side int, byName map[string]*hlo.Instruction, users map[string][]*hlo.Instruction) []*hlo.Instruction {
	if len(dot.Operands) != 2 {
		return nil
	}
	pre := []string{"lhs", "rhs"}[side]
	cd, _ := hlo.IntList(hlo.AttrOr(dot, pre+"_contracting_dims", "{}"))
	bd, _ := hlo.IntList(hlo.AttrOr(dot, pre+"_batch_dims", "{}"))
	cat := byName[dot.Operands[side].Name]
	if cat == nil || cat.Opcode != hlo.OpConcatenate || len(bd) != 0 || len(cd) != 1 || cd[0] != int64(1-side) ||
		cat.Shape == nil || len(cat.Shape.Dims) != 2 || !onlyUser(users[cat.Name], dot) {
		return nil
	}
	if d, _ := hlo.IntList(hlo.AttrOr(cat, "dimensions", "{}")); len(d) != 1 || d[0] != 1 {
		return nil
	}
	out := []*hlo.Instruction{cat}
	var src string
	for _, o := range cat.Operands {
		s := byName[o.Name]
		if s == nil || s.Opcode != hlo.OpSlice || len(s.Operands) != 1 || !onlyUser(users[s.Name], cat) {
			return nil
		}
		x := byName[s.Operands[0].Name]
		if x == nil || x.Shape == nil || len(x.Shape.Dims) != 2 {
			return nil
		}
		// The array flattened to rows (reshapes, duplicated into each
		// slice as cheap producers are) is taken in with its slice.
		key := x.Name
		for r, u := x, s; r.Opcode == hlo.OpReshape && len(r.Operands) == 1; {
			key = r.Operands[0].Name + fmt.Sprint(x.Shape.Dims)
			if !onlyUser(users[r.Name], u) {
				break
			}
			out = append(out, r)
			next := byName[r.Operands[0].Name]
			if next == nil {
				break
			}
			r, u = next, r
		}
		if src != "" && src != key {
			return nil
		}
		src = key
		sd := hlo.SliceDims(s)
		if len(sd) != 2 || sd[0].Stride != 1 || sd[1].Stride != 1 || sd[1].Start != 0 || s.Shape.Dims[1] != x.Shape.Dims[1] {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// onlyUser reports whether every user in us is u (a value read twice by
// one instruction lists it twice).
func onlyUser(us []*hlo.Instruction, u *hlo.Instruction) bool {
	for _, x := range us {
		if x != u {
			return false
		}
	}
	return len(us) > 0
}

// OperandBroadcast reports whether p, operand side of dot, is a broadcast
// that only adds the dot's leading batch dims of that operand: the same
// array for every batch, which the dot kernel reads with a batch stride
// of zero.
func OperandBroadcast(dot *hlo.Instruction, side int, p *hlo.Instruction) bool {
	if p.Opcode != hlo.OpBroadcast || len(p.Operands) != 1 || p.Shape == nil || p.Shape.IsTuple {
		return false
	}
	pre := []string{"lhs", "rhs"}[side]
	bd, _ := hlo.IntList(hlo.AttrOr(dot, pre+"_batch_dims", "{}"))
	dims, _ := hlo.IntList(hlo.AttrOr(p, "dimensions", "{}"))
	k := len(bd)
	if k == 0 || len(dims)+k != len(p.Shape.Dims) {
		return false
	}
	for i, b := range bd {
		if b != int64(i) {
			return false
		}
	}
	for i, d := range dims {
		if d != int64(k+i) {
			return false
		}
	}
	return true
}
