package legalize

import (
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// FoldBroadcastBatches rewrites a dot whose operand repeats an array along
// a batch dimension, reshape(broadcast(y)) where the broadcast adds a
// dimension of g just after y's dimension of h and the reshape merges the
// two into one batch dimension of h*g — how jnp.repeat gives each of
// grouped-query attention's query heads its key and value head — into a
// dot of y itself: the other operand's batch dimension is split into
// (h, g), g becoming one of its free dimensions, and the result is
// rearranged back (a reshape where g only moves past dimensions of 1, as
// for one query; otherwise a transpose, done only where it moves fewer
// bytes than the repeat). XLA fuses such a broadcast into the dot and
// reads each key once; materialized, the keys are written g times over
// and read back.
func FoldBroadcastBatches(m *hlo.Module) error {
	defs := map[*hlo.Instruction]map[string]*hlo.Instruction{}
	for _, c := range m.Computations {
		byName := map[string]*hlo.Instruction{}
		for _, in := range c.Instructions {
			byName[in.Name] = in
			if in.Opcode == hlo.OpDot {
				defs[in] = byName
			}
		}
	}
	err := rewriteEach(m, "dot", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if len(ops) != 2 || in.Shape.IsTuple {
			x.Out = append(x.Out, in)
			return nil
		}
		for s := range 2 {
			if x.foldBroadcastBatch(ops, s, defs[in]) {
				return nil
			}
		}
		x.Out = append(x.Out, in)
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range m.Computations {
		dropDead(c, hlo.OpReshape, hlo.OpBroadcast)
	}
	return nil
}

// repeatedBatch is what foldBroadcastBatch finds on one side of a dot.
type repeatedBatch struct {
	y    *hlo.Instruction // the array repeated
	p    int64            // the merged dimension of the operand (y's h)
	h, g int64
}

// repeated reports whether op is reshape(broadcast(y)) repeating y's
// dimension p g times in place.
func repeated(op *hlo.Instruction, byName map[string]*hlo.Instruction) (repeatedBatch, bool) {
	if op.Opcode != hlo.OpReshape || len(op.Operands) != 1 {
		return repeatedBatch{}, false
	}
	b := byName[op.Operands[0].Name]
	if b == nil || b.Opcode != hlo.OpBroadcast || len(b.Operands) != 1 || b.Shape == nil {
		return repeatedBatch{}, false
	}
	y := byName[b.Operands[0].Name]
	bd, err := hlo.ListAttr(b, "dimensions")
	if y == nil || y.Shape == nil || err != nil || len(bd) != len(y.Shape.Dims) || len(b.Shape.Dims) != len(bd)+1 {
		return repeatedBatch{}, false
	}
	// The one dimension the broadcast adds, just after y's dimension p.
	gpos := int64(len(bd))
	for i, d := range bd {
		if d != int64(i) {
			gpos = int64(i)
			break
		}
	}
	for i := gpos; i < int64(len(bd)); i++ {
		if bd[i] != i+1 {
			return repeatedBatch{}, false
		}
	}
	if gpos == 0 {
		return repeatedBatch{}, false
	}
	B, X := b.Shape.Dims, op.Shape.Dims
	h, g := B[gpos-1], B[gpos]
	want := append(append(append([]int64{}, B[:gpos-1]...), h*g), B[gpos+1:]...)
	if g < 2 || !slices.Equal(want, X) || !slices.Equal(y.Shape.Dims, append(append([]int64{}, B[:gpos]...), B[gpos+1:]...)) {
		return repeatedBatch{}, false
	}
	return repeatedBatch{y: y, p: gpos - 1, h: h, g: g}, true
}

// foldBroadcastBatch folds a repeated batch dimension of operand s of the
// dot x rewrites, if it has one.
func (x *rewriter) foldBroadcastBatch(ops []*hlo.Instruction, s int, byName map[string]*hlo.Instruction) bool {
	in := x.At
	r, ok := repeated(ops[s], byName)
	if !ok {
		return false
	}
	lb, lc, rb, rc, err := hlo.DotDims(in)
	if err != nil || len(lb) != len(rb) {
		return false
	}
	batch := [2][]int64{lb, rb}
	contracting := [2][]int64{lc, rc}
	k := slices.Index(batch[s], r.p)
	if k < 0 {
		return false
	}
	o := ops[1-s]
	q := batch[1-s][k]
	if o.Shape.Dims[q] != r.h*r.g {
		return false
	}
	// The other operand with its dimension q split into (h, g).
	od := append(append(append([]int64{}, o.Shape.Dims[:q]...), r.h, r.g), o.Shape.Dims[q+1:]...)
	shift := func(ds []int64) []int64 {
		out := make([]int64, len(ds))
		for i, d := range ds {
			out[i] = d
			if d > q {
				out[i] = d + 1
			}
		}
		return out
	}
	batch[1-s], contracting[1-s] = shift(batch[1-s]), shift(contracting[1-s])
	opDims := [2][]int64{}
	opDims[s], opDims[1-s] = r.y.Shape.Dims, od
	// The new result: batch dims, then each side's free dims in order.
	var dims []int64
	for _, d := range batch[0] {
		dims = append(dims, opDims[0][d])
	}
	gAt := int64(-1) // where g lands in the new result
	for side := range 2 {
		for d := range opDims[side] {
			if slices.Contains(batch[side], int64(d)) || slices.Contains(contracting[side], int64(d)) {
				continue
			}
			if side == 1-s && int64(d) == q+1 {
				gAt = int64(len(dims))
			}
			dims = append(dims, opDims[side][d])
		}
	}
	// Bring g next to h (batch dim k), then merge them.
	perm := make([]int64, 0, len(dims))
	for i := range int64(len(dims)) {
		if i == gAt {
			continue
		}
		perm = append(perm, i)
		if i == int64(k) {
			perm = append(perm, gAt)
		}
	}
	between := int64(1)
	for i := int64(k) + 1; i < gAt; i++ {
		between *= dims[i]
	}
	// A transpose back moves the whole result; the repeat it saves moves
	// y g-1 extra times. A prompt's scores (T x S per head) outweigh its
	// keys (S x D): there the repeat stays.
	if between != 1 && hlo.Prod(in.Shape.Dims) >= (r.g-1)*hlo.Prod(r.y.Shape.Dims) {
		return false
	}
	var attrs []string
	for _, a := range in.Attrs {
		switch a.Key {
		case "lhs_contracting_dims", "rhs_contracting_dims", "lhs_batch_dims", "rhs_batch_dims":
		default:
			attrs = append(attrs, a.Key, a.Value)
		}
	}
	attrs = append(attrs, "lhs_batch_dims", hlo.IntsText(batch[0]), "lhs_contracting_dims", hlo.IntsText(contracting[0]),
		"rhs_batch_dims", hlo.IntsText(batch[1]), "rhs_contracting_dims", hlo.IntsText(contracting[1]))
	newOps := make([]*hlo.Instruction, 2)
	newOps[s], newOps[1-s] = r.y, x.Reshape(o, od)
	t := x.Emit("dot", in.Shape.Elem, dims, newOps, attrs...)
	if between != 1 {
		t = x.Transpose(t, perm)
	}
	x.Reshape(t, in.Shape.Dims)
	return true
}

// dropDead removes the instructions of c with one of the opcodes that
// nothing uses any more (they compute nothing else).
func dropDead(c *hlo.Computation, opcodes ...string) {
	for {
		used := map[string]bool{}
		for _, in := range c.Instructions {
			for _, o := range in.Operands {
				used[o.Name] = true
			}
		}
		n := len(c.Instructions)
		c.Instructions = slices.DeleteFunc(c.Instructions, func(in *hlo.Instruction) bool {
			return slices.Contains(opcodes, in.Opcode) && !used[in.Name] && !in.IsRoot && c.Root != in
		})
		if len(c.Instructions) == n {
			return
		}
	}
}
