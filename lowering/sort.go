package lowering

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// sortKernel emits a sort along the last dimension whose rows fit SRAM
// (sortplan.go) as one kernel. Each operand loads into SRAM as [rows, np]
// (np: the row padded to a power of two), with an s32 position beside
// every element. The bitonic network then runs phase by phase, unrolled:
// in the phase of block size k and distance j, every element i with bit j
// clear meets its partner i+j, the pair ascending where bit k of i is clear
// and descending where it is set; each direction is one compare-exchange
// step over 4-D strided views of the rows ([rows, np/2k, k/2j, j], the
// pair's two sides j apart). A step copies the sides the comparator reads
// into contiguous tiles, evaluates the comparator both ways with the
// vector ops of its body, and swaps every operand where the pair is out of
// order: where the second goes before the first by the comparator, or
// neither does and its position is lower (so the sort is stable, as the
// evaluator's), padding (positions from n) always last. Everything runs on
// the vector unit in order, so no step waits for another; the results
// store once.
func (c *compiler) sortKernel(in *hlo.Instruction) (bool, error) {
	dims, ok := hlo.IntList(hlo.AttrOr(in, "dimensions", "{}"))
	if !ok || len(dims) != 1 || len(in.Operands) == 0 {
		return false, nil
	}
	name, _ := in.Attr("to_apply")
	cmp := c.m.Computation(strings.TrimPrefix(name, "%"))
	ops := make([]*value, len(in.Operands))
	var elems []string
	for i, o := range in.Operands {
		v := c.bufs[o.Name]
		if v == nil || v.tuple != nil || v.empty {
			return false, nil
		}
		ops[i] = v
		elems = append(elems, v.shape.Elem)
	}
	D := ops[0].shape.Dims
	if int(dims[0]) != len(D)-1 {
		return false, nil
	}
	n := D[len(D)-1]
	rows := ops[0].shape.Elems() / n
	positions := make([]bool, len(ops))
	for i, o := range in.Operands {
		positions[i] = c.positionsOperand(in, o, len(D)-1)
	}
	kp, keyed := planKeyedSort(cmp, elems, positions, c.usedResults(in), rows, n, c.chip.Memory.SRAMBytes/2, c.chip.XLU.Count)
	p, ok := planSort(cmp, elems, rows, n, c.chip.Memory.SRAMBytes/2)
	if !ok && !keyed {
		return false, nil
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return true, err
	}
	c.bufs[in.Name] = out
	outs := []*value{out}
	if in.Shape.IsTuple {
		outs = out.tuple
	}
	var bytes int64
	for _, v := range ops {
		bytes += 2 * v.shape.Bytes()
	}
	c.kernelHeader(in, "sort", 0, bytes)
	if keyed {
		if !kp.planComposite(c.chip.Memory.VRegBytes, c.chip.Memory.SRAMBytes) {
			kp.placeInRegisters(c.chip.Memory.VRegBytes)
		}
		c.keyedSortKernel(in, kp, ops, outs)
		return true, nil
	}
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	rowView := func(at int64, dt isa.DType, cols int64) string {
		return fmt.Sprintf("sram[%d]:%s[%d,%d]{%d,1}", at, dt, rows, cols, p.np)
	}
	// Load, pad, number.
	engines := max(c.chip.DMA.Engines, 1)
	emit("semset  s1, 0")
	for i, v := range ops {
		emit("dma     %s, hbm[%s+0]:%s[%d,%d] @%d signal s1", rowView(p.data[i], v.dt, n), v.tensor, v.dt, rows, n, i%engines)
		if p.np > n {
			emit("vfill   %s, 0", rowView(p.data[i]+n*int64(v.dt.Size()), v.dt, p.np-n))
		}
	}
	emit("viota   sram[%d]:s32[%d,%d], 1", p.pos, rows, p.np)
	emit("vfill   sram[%d]:s32[%d], %d", p.nfill, p.half, n)
	// The comparator's constants, filled once for every step (a step's
	// tiles are contiguous, so one fill serves every shape of p.half).
	consts := map[string]string{}
	for _, b := range cmp.Instructions {
		if b.Opcode == hlo.OpConstant {
			consts[b.Name] = b.Literal
			dt, _ := dtypeOf(b.Shape.Elem)
			emit("vfill   sram[%d]:%s[%d], %s", p.scratch[b.Name], dt, p.half, fillValue(b.Literal))
		}
	}
	emit("wait    s1, %d", len(ops))

	byName := map[string]*hlo.Instruction{}
	for _, b := range cmp.Instructions {
		byName[b.Name] = b
	}
	for k := int64(2); k <= p.np; k *= 2 {
		for j := k / 2; j >= 1; j /= 2 {
			blocks, dirs := max(p.np/(2*k), 1), int64(2)
			if k == p.np {
				dirs = 1
			}
			shape := []int64{rows, blocks, k / (2 * j), j}
			strides := []int64{p.np, 2 * k, 2 * j, 1}
			for d := range dirs {
				c.sortStep(in, p, ops, cmp, byName, consts, shape, strides, d*k, d*k+j, d == 1)
			}
		}
	}
	emit("barrier") // the network is done
	for i, v := range outs {
		emit("dma     hbm[%s+0]:%s[%d,%d], %s @%d", v.tensor, v.dt, rows, n, rowView(p.data[i], v.dt, n), i%engines)
	}
	emit("barrier")
	return true, nil
}

// sortStep emits one compare-exchange step: the pairs at element offsets
// lo and hi of views of the given shape and strides, ascending (the
// smaller, by the comparator, to lo) or descending.
func (c *compiler) sortStep(in *hlo.Instruction, p *sortPlan, ops []*value, cmp *hlo.Computation, byName map[string]*hlo.Instruction,
	consts map[string]string, shape, strides []int64, lo, hi int64, descending bool) {
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	dims := joinDims(shape)
	view := func(base int64, dt isa.DType, off int64) string {
		return fmt.Sprintf("sram[%d]:%s[%s]{%s}", base+off*int64(dt.Size()), dt, dims, joinDims(strides))
	}
	flat := func(at int64, dt isa.DType) string { return fmt.Sprintf("sram[%d]:%s[%s]", at, dt, dims) }
	// Contiguous copies of both sides of what the comparator reads, and
	// of the positions (the last of lo and hi).
	for u, i := range p.used {
		emit("vcopy   %s, %s", flat(p.lo[u], ops[i].dt), view(p.data[i], ops[i].dt, lo))
		emit("vcopy   %s, %s", flat(p.hi[u], ops[i].dt), view(p.data[i], ops[i].dt, hi))
	}
	pl, ph := p.lo[len(p.used)], p.hi[len(p.used)]
	emit("vcopy   %s, %s", flat(pl, isa.S32), view(p.pos, isa.S32, lo))
	emit("vcopy   %s, %s", flat(ph, isa.S32), view(p.pos, isa.S32, hi))
	copyOf := map[int]int{} // operand -> its copies' index
	for u, i := range p.used {
		copyOf[i] = u
	}
	// evaluate emits the comparator with its first argument from side a
	// (lo or hi copies) into root.
	evaluate := func(aLo bool, root int64) {
		var addrOf func(name string) int64
		addrOf = func(name string) int64 {
			b := byName[name]
			switch {
			case b == cmp.Root:
				return root
			case b.Opcode == hlo.OpParameter:
				num := p.cmpParams[name]
				u := copyOf[num/2]
				if (num%2 == 0) == aLo {
					return p.lo[u]
				}
				return p.hi[u]
			case b.Opcode == hlo.OpBitcastConvert:
				return addrOf(b.Operands[0].Name) // the same bytes, read as another type
			}
			return p.scratch[name]
		}
		tile := func(name string) string {
			b := byName[name]
			dt, _ := dtypeOf(b.Shape.Elem)
			return flat(addrOf(name), dt)
		}
		for _, b := range cmp.Instructions {
			if b.Opcode == hlo.OpParameter || b.Opcode == hlo.OpConstant || b.Opcode == hlo.OpBitcastConvert && b != cmp.Root {
				continue
			}
			c.loc(in)
			c.vectorOp(b, tile, consts, "")
		}
	}
	// r0: cmp(lo, hi); r1: cmp(hi, lo).
	evaluate(true, p.roots[0])
	evaluate(false, p.roots[1])
	// x goes before y when the comparator says so, or neither goes first
	// and x's position is lower; padding never goes first. Ascending, the
	// pair swaps when hi goes before lo; descending, when lo goes before hi.
	xy, yx, px, py := p.roots[1], p.roots[0], ph, pl
	if descending {
		xy, yx, px, py = p.roots[0], p.roots[1], pl, ph
	}
	m := p.masks
	pred := func(at int64) string { return flat(at, isa.Pred) }
	s32 := func(at int64) string { return flat(at, isa.S32) }
	emit("vcmp.lt %s, %s, %s", pred(m[0]), s32(px), s32(py))       // x's position lower
	emit("vnot    %s, %s", pred(m[1]), pred(yx))                   // y does not go first
	emit("vand    %s, %s, %s", pred(m[0]), pred(m[0]), pred(m[1])) // a tie that x's position breaks
	emit("vor     %s, %s, %s", pred(m[0]), pred(m[0]), pred(xy))   // x goes first
	emit("vcmp.ge %s, %s, %s", pred(m[2]), s32(py), s32(p.nfill))  // y is padding
	emit("vor     %s, %s, %s", pred(m[0]), pred(m[0]), pred(m[2]))
	emit("vcmp.lt %s, %s, %s", pred(m[3]), s32(px), s32(p.nfill))  // x is not padding
	emit("vand    %s, %s, %s", pred(m[0]), pred(m[0]), pred(m[3])) // swap
	swap := pred(m[0])
	// Swap every operand and the positions where the pair is out of order.
	for i, v := range ops {
		L, H := view(p.data[i], v.dt, lo), view(p.data[i], v.dt, hi)
		if u, ok := copyOf[i]; ok {
			emit("vsel    %s, %s, %s", L, swap, flat(p.hi[u], v.dt))
			emit("vsel    %s, %s, %s", H, swap, flat(p.lo[u], v.dt))
			continue
		}
		emit("vcopy   %s, %s", flat(p.temp, v.dt), L)
		emit("vsel    %s, %s, %s", L, swap, H)
		emit("vsel    %s, %s, %s", H, swap, flat(p.temp, v.dt))
	}
	emit("vsel    %s, %s, %s", view(p.pos, isa.S32, lo), swap, s32(ph))
	emit("vsel    %s, %s, %s", view(p.pos, isa.S32, hi), swap, s32(pl))
}
