package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"slices"
)

// FoldDotTransposes folds a transpose that feeds a dot into the dot's
// dimension numbers, as XLA's TransposeFolding does: dot(transpose(y), w)
// reads y itself, its dims renamed through the permutation, so the
// transpose is neither a kernel nor a copy of y (the compiler's dot reads
// an operand in whichever order its dims lie; lowering/dot.go). A fold is
// made only when it keeps the dot's result the same array: the operand's
// free dims keep their relative order (they index the result in that
// order), and only when the dot stays one the compiler reads as strided
// runs (awkward, as for CanonicalizeDots). The transpose stays for its
// other users, if any, and goes when it has none.
func FoldDotTransposes(m *hlo.Module, awkward func(l, r, lb, lc, rb, rc []int64) bool) error {
	for _, c := range m.Computations {
		byName := map[string]*hlo.Instruction{}
		for _, in := range c.Instructions {
			byName[in.Name] = in
			if in.Opcode != hlo.OpDot || len(in.Operands) != 2 {
				continue
			}
			foldDotOperands(in, byName, awkward)
		}
		dropDeadTransposes(c)
	}
	return nil
}

// dropDeadTransposes removes the transposes of c that nothing uses any
// more (a transpose computes nothing else).
func dropDeadTransposes(c *hlo.Computation) {
	used := map[string]bool{}
	for _, in := range c.Instructions {
		for _, o := range in.Operands {
			used[o.Name] = true
		}
	}
	c.Instructions = slices.DeleteFunc(c.Instructions, func(in *hlo.Instruction) bool {
		return in.Opcode == hlo.OpTranspose && !used[in.Name] && !in.IsRoot && c.Root != in
	})
}

// foldDotOperands folds the transposes that feed dot, lhs first.
func foldDotOperands(dot *hlo.Instruction, byName map[string]*hlo.Instruction, awkward func(l, r, lb, lc, rb, rc []int64) bool) {
	for side := range 2 {
		ops := [2]*hlo.Instruction{byName[dot.Operands[0].Name], byName[dot.Operands[1].Name]}
		if ops[0] == nil || ops[1] == nil || !arrayDot(dot, ops[:]) {
			return
		}
		t := ops[side]
		if t.Opcode != hlo.OpTranspose || len(t.Operands) != 1 {
			continue
		}
		y := byName[t.Operands[0].Name]
		perm, ok := hlo.IntList(hlo.AttrOr(t, "dimensions", ""))
		if y == nil || y.Shape == nil || y.Shape.IsTuple || !ok || len(perm) != len(y.Shape.Dims) || len(perm) != len(t.Shape.Dims) {
			continue
		}
		lb, lc, rb, rc, err := hlo.DotDims(dot)
		if err != nil {
			return
		}
		batch, contr := &lb, &lc
		if side == 1 {
			batch, contr = &rb, &rc
		}
		// The transposed operand's free dims, read in y's order, must
		// come in the same order.
		free := hlo.FreeDims(len(perm), *batch, *contr)
		moved := make([]int64, len(free))
		for i, d := range free {
			moved[i] = perm[d]
		}
		if !slices.IsSorted(moved) {
			continue
		}
		through := func(dims []int64) []int64 {
			out := make([]int64, len(dims))
			for i, d := range dims {
				if d < 0 || d >= int64(len(perm)) {
					return nil
				}
				out[i] = perm[d]
			}
			return out
		}
		nb, nc := through(*batch), through(*contr)
		if len(nb) != len(*batch) || len(nc) != len(*contr) {
			continue
		}
		*batch, *contr = nb, nc
		shapes := [2][]int64{ops[0].Shape.Dims, ops[1].Shape.Dims}
		shapes[side] = y.Shape.Dims
		if awkward(shapes[0], shapes[1], lb, lc, rb, rc) {
			continue
		}
		dot.Operands[side].Name = y.Name
		if dot.Operands[side].Shape != nil { // the long form writes the operand's shape: it is y's now
			dot.Operands[side].Shape = y.Shape
		}
		for i := range dot.Attrs {
			switch dot.Attrs[i].Key {
			case "lhs_batch_dims":
				dot.Attrs[i].Value = hlo.IntsText(lb)
			case "lhs_contracting_dims":
				dot.Attrs[i].Value = hlo.IntsText(lc)
			case "rhs_batch_dims":
				dot.Attrs[i].Value = hlo.IntsText(rb)
			case "rhs_contracting_dims":
				dot.Attrs[i].Value = hlo.IntsText(rc)
			}
		}
	}
}
