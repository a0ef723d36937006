package lowering

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// A loop fusion whose root is a dynamic-update-slice (a KV cache's new
// row, a scan's stacked outputs) is one kernel when its start indices are
// scalar integer expressions of the fusion's scalar operands (JAX's
// index normalization: select(i < 0, i + n, i)) and its update an
// elementwise expression of operands of its own size: the sequencer
// computes the indices on its ALU from the scalars it loads into scalar
// memory, the vector unit computes the update in SRAM meanwhile, and one
// DMA per window piece writes it where the indices point, as XLA's
// in-place dynamic-update-slice fusion does. Split (split.go), the same
// fusion was a kernel for the update, one for each computed index and the
// copy, each a round trip through HBM: a KV-cache step's update took
// 1,028 cycles on tpuv4core.

// fusedUpdateHeader is what the kernel's header says it is.
const fusedUpdateHeader = "a dynamic-update-slice with its update and indices"

// maxFusedUpdateBytes bounds the update the kernel computes in one tile.
const maxFusedUpdateBytes = 1 << 20

// scalarExprRegs are the registers a fused update's index expressions may
// take (dynamicDMA's r1-r3 are the clamp's; r30 and up are the loops').
const firstExprReg, lastExprReg = 4, 24

// fusedUpdate is the plan of such a kernel: the update's instructions
// (parameters and constants among them) and each index's.
type fusedUpdate struct {
	src     *value             // the array updated
	update  []*hlo.Instruction // computing the update, in order
	updRoot *hlo.Instruction   // its value (through reshapes of the same elements)
	index   []*seqScalar       // each start index (seqscalar.go)
	n       int64              // the update's elements
}

// fusedDynamicUpdate lowers fusion in (body, root: a dynamic-update-slice)
// as one kernel, or returns false with nothing emitted when the fusion is
// not of that form.
func (c *compiler) fusedDynamicUpdate(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) (bool, error) {
	p, ok := c.planFusedUpdate(in, body, root)
	if !ok {
		return false, nil
	}
	src := p.src
	upd := root.Operands[1]
	var updShape *hlo.Shape
	for _, b := range body {
		if b.Name == upd.Name {
			updShape = b.Shape
		}
	}
	dims, sizes := src.shape.Dims, updShape.Dims
	esize := int64(src.dt.Size())
	if prod(dims)*esize > registerReach {
		return false, nil // dynamicDMA's table of offsets: not here
	}
	// A kernel that computes is a loop kernel; one that only moves its
	// update (an operand) a copy, as the split path's DMA-only kernel.
	kind := "copy"
	if p.flops() > 0 {
		kind = "loop"
	}
	inPlace := c.ownsAfter(src)
	if inPlace {
		c.bufs[in.Name] = &value{tensor: src.tensor, addr: src.addr, shape: in.Shape, dt: src.dt}
		c.kernelHeaderSaying(in, kind, p.flops(), 2*updShape.Bytes(), fusedUpdateHeader)
	} else {
		out, err := c.alloc(in, in.Shape, "")
		if err != nil {
			return true, err
		}
		c.bufs[in.Name] = out
		c.kernelHeaderSaying(in, kind, p.flops(), 2*in.Shape.Bytes()+2*updShape.Bytes(), fusedUpdateHeader)
		c.flatCopy(in, out, src, 0)
		c.loc(in)
		fmt.Fprintln(&c.out, "        barrier") // the copy lands before the update
	}
	out := c.bufs[in.Name]
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	// The update in SRAM: every value of its expression a flat [n] tile.
	tiles := map[string]int64{}
	var mem sramLayout
	tileOf := func(name string, dt isa.DType) string {
		at, ok := tiles[name]
		if !ok {
			at = mem.take(p.n * int64(dt.Size()))
			tiles[name] = at
		}
		return fmt.Sprintf("sram[%d]:%s[%d]", at, dt, p.n)
	}
	dtOf := func(b *hlo.Instruction) isa.DType { dt, _ := dtypeOf(b.Shape.Elem); return dt }
	byName := map[string]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
	}
	// alias: reshapes and bitcasts of the update's values are the same tile.
	alias := map[string]string{}
	resolve := func(name string) string {
		for alias[name] != "" {
			name = alias[name]
		}
		return name
	}
	consts := map[string]string{}
	emit("semset  s0, 0")
	emit("semset  s1, 0")
	emit("semset  s2, 0")
	loads := 0
	var ops []*hlo.Instruction
	// direct: the update's operands in VMEM, read where they lie (a
	// TPU's vector loads) rather than copied into a tile by DMA.
	direct := map[string]*value{}
	for _, b := range p.update {
		switch {
		case b.Opcode == hlo.OpParameter:
			v := c.bufs[in.Operands[b.ParamNumber].Name]
			if isResident(v.tensor) && v.dt == dtOf(b) {
				direct[b.Name] = v
				continue
			}
			emit("dma     %s, %s @%d signal s1", tileOf(b.Name, v.dt), view{v: v, strides: []int64{1}}.operand([]int64{p.n}), loads%max(c.chip.DMA.Engines, 1))
			loads++
		case b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast:
			alias[b.Name] = b.Operands[0].Name
		case b.Opcode == hlo.OpBroadcast || b.Opcode == hlo.OpConstant:
			lit, err := c.scalarLiteral(scalarConstant(b, byName))
			if err != nil {
				return true, err
			}
			consts[b.Name] = lit
			ops = append(ops, b)
		default:
			ops = append(ops, b)
		}
	}
	scratch := map[string]isa.DType{} // an expansion's scratch tiles
	for _, b := range ops {
		for i, elem := range expansionScratch(b) {
			dt, ok := dtypeOf(elem)
			if !ok {
				return true, c.fail(b, "element type %s has no Pulse dtype", elem)
			}
			scratch[scratchName(b.Name, i)] = dt
		}
	}
	tile := func(name string) string {
		if dt, ok := scratch[name]; ok {
			return tileOf(name, dt)
		}
		b := byName[resolve(name)]
		if v := direct[b.Name]; v != nil {
			return view{v: v, strides: []int64{1}}.operand([]int64{p.n})
		}
		return tileOf(b.Name, dtOf(b))
	}
	for i, b := range ops {
		sync := ""
		if i == 0 && loads > 0 {
			sync = fmt.Sprintf(" wait s1:%d", loads)
		}
		if i == len(ops)-1 {
			sync += " signal s2"
		}
		c.loc(in)
		c.vectorOp(b, tile, consts, sync)
	}
	if mem.end > c.chip.Memory.SRAMBytes {
		return true, c.fail(in, "internal error: the update's tiles exceed SRAM")
	}
	// The indices, on the sequencer: each leaf scalar into scalar memory,
	// each expression into registers, then clamped into the offset.
	slot := c.loadSeqLeaves(in, p.index, condWord)
	roots := make([]int, len(p.index))
	next := firstExprReg
	for i, idx := range p.index {
		roots[i], next = c.computeSeqScalar(in, idx, slot, next)
	}
	emit("li      r3, 0")
	st := hlo.Strides(dims)
	for i, idx := range p.index {
		r := roots[i]
		if idx.elem == "u32" {
			// An unsigned start past the s32 range is past every
			// dimension: saturated, as loadInt does, before the clamp.
			c.nlabel++
			ok := fmt.Sprintf("u%d_ok", c.nlabel)
			emit("bge     r%d, r0, %s", r, ok)
			emit("li      r%d, 0x7fffffff", r)
			fmt.Fprintf(&c.out, "%s:\n", ok)
		}
		emit("maxi    r1, r%d, 0", r)
		emit("mini    r1, r1, %d", dims[i]-sizes[i])
		emit("muli    r1, r1, %d", st[i]*esize)
		emit("add     r3, r3, r1")
	}
	win, wst := mergeDims(sizes, [][]int64{hlo.Strides(dims), hlo.Strides(sizes)})
	updName := resolve(p.updRoot.Name)
	if isResident(out.tensor) && len(win) <= 4 {
		// The result in VMEM: the vector unit writes the update where
		// the indices point, after the ops that computed it (it runs
		// them in order); r3 is formed before the sequencer issues it.
		sync := ""
		if len(ops) == 0 && loads > 0 {
			sync = fmt.Sprintf(" wait s1:%d", loads)
		}
		src := fmt.Sprintf("sram[%d]:%s[%s]{%s}", tiles[updName], out.dt, joinDims(win), joinDims(wst[1]))
		if v := direct[updName]; v != nil {
			src = view{v: v, strides: wst[1]}.operand(win)
		}
		emit("vcopy   hbm[r3+%s]:%s[%s]{%s}, %s%s", out.tensor, out.dt, joinDims(win), joinDims(wst[0]), src, sync)
		emit("barrier")
		return true, nil
	}
	if len(ops) > 0 {
		emit("wait    s2, 1") // the update is computed
	} else if loads > 0 {
		emit("wait    s1, %d", loads) // the update is an operand, loaded
	}
	if v := direct[updName]; v != nil {
		// The update is an operand in VMEM stored as it is: into a tile
		// for the DMA below.
		emit("vcopy   %s, %s signal s2", tileOf(updName, v.dt), view{v: v, strides: []int64{1}}.operand([]int64{p.n}))
		emit("wait    s2, 1")
	}
	updAt := tiles[resolve(p.updRoot.Name)]
	for e, pc := range c.windowPieces(win, esize) {
		emit("dma     hbm[r3+%s+%d]:%s[%s]{%s}, sram[%d]:%s[%s]{%s} @%d", out.tensor, pc.off*lead(wst[0])*esize, out.dt, joinDims(pc.dims), joinDims(wst[0]),
			updAt+pc.off*lead(wst[1])*esize, out.dt, joinDims(pc.dims), joinDims(wst[1]), e%c.chip.DMA.Engines)
	}
	emit("barrier")
	return true, nil
}

// flops counts the update's elementwise ops.
func (p *fusedUpdate) flops() int64 {
	var f int64
	for _, b := range p.update {
		if hlo.IsElementwise(b.Opcode) {
			f += p.n
		}
	}
	return f
}

// scalarConstant is the scalar constant a broadcast (or a constant) fills
// with.
func scalarConstant(b *hlo.Instruction, byName map[string]*hlo.Instruction) *hlo.Instruction {
	for b.Opcode == hlo.OpBroadcast || b.Opcode == hlo.OpReshape {
		b = byName[b.Operands[0].Name]
	}
	return b
}

// planFusedUpdate checks the fusion's form (see fusedDynamicUpdate).
func (c *compiler) planFusedUpdate(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) (*fusedUpdate, bool) {
	if root == nil || root.Opcode != hlo.OpDynamicUpdateSlice || len(root.Operands) < 3 || in.Shape.IsTuple {
		return nil, false
	}
	byName := map[string]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
	}
	param := func(name string) *value {
		b := byName[name]
		if b == nil || b.Opcode != hlo.OpParameter || int(b.ParamNumber) >= len(in.Operands) {
			return nil
		}
		v := c.bufs[in.Operands[b.ParamNumber].Name]
		if v == nil || v.tuple != nil || v.empty {
			return nil
		}
		return v
	}
	src := param(root.Operands[0].Name)
	upd := byName[root.Operands[1].Name]
	if src == nil || upd == nil || upd.Shape == nil || upd.Shape.IsTuple {
		return nil, false
	}
	p := &fusedUpdate{src: src, n: upd.Shape.Elems()}
	if p.n == 0 || upd.Shape.Bytes() > maxFusedUpdateBytes || upd.Shape.Elem != src.shape.Elem {
		return nil, false
	}
	// The update: elementwise ops of values of n elements, read from
	// parameters of n elements (through reshapes) or filled with a scalar
	// constant; no parameter of it may be the array updated (in place, the
	// update would read what it writes).
	need := map[string]bool{}
	var walk func(b *hlo.Instruction) bool
	walk = func(b *hlo.Instruction) bool {
		if b == nil || b.Shape == nil || b.Shape.IsTuple || b.Shape.Elems() != p.n {
			return false
		}
		if need[b.Name] {
			return true
		}
		need[b.Name] = true
		switch {
		case b.Opcode == hlo.OpParameter:
			v := param(b.Name)
			return v != nil && v.tensor != src.tensor && v.shape.Elems() == p.n
		case b.Opcode == hlo.OpBroadcast || b.Opcode == hlo.OpConstant:
			k := scalarConstant(b, byName)
			return k != nil && k.Opcode == hlo.OpConstant && len(k.Shape.Dims) == 0 && c.fillableScalar(k)
		case b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast:
			return walk(byName[b.Operands[0].Name])
		case hlo.IsElementwise(b.Opcode):
			if err := c.checkElementwise(b, func(n string) string {
				if x := byName[n]; x != nil && x.Shape != nil {
					return x.Shape.Elem
				}
				return ""
			}); err != nil {
				return false
			}
			for _, o := range b.Operands {
				if !walk(byName[o.Name]) {
					return false
				}
			}
			return true
		}
		return false
	}
	if !walk(upd) {
		return nil, false
	}
	for _, b := range body {
		if need[b.Name] {
			p.update = append(p.update, b)
		}
	}
	p.updRoot = upd
	// The indices: scalar expressions the sequencer computes.
	regs := 0
	for _, o := range root.Operands[2:] {
		idx, _, ok := c.seqScalarOf(in, byName[o.Name], byName)
		if !ok {
			return nil, false
		}
		regs += len(idx.order)
		p.index = append(p.index, idx)
	}
	if len(p.index) != len(src.shape.Dims) || regs > lastExprReg-firstExprReg+1 {
		return nil, false
	}
	return p, true
}

// scalarALUType are the types whose scalar ops the sequencer's 32-bit ALU
// computes as XLA does (wrapping at 32 bits).
var scalarALUType = map[string]bool{hlo.S32: true, "u32": true, hlo.Pred: true}

// scalarALUOps are the ops scalarOp computes.
var scalarALUOps = hlo.OpSet("add subtract multiply maximum minimum compare select clamp and or xor not negate convert reshape bitcast")

// scalarOpOK: the sequencer computes b as XLA does (signed min and max
// only of s32; compares of 32-bit integers or preds; converts among the
// 32-bit integers and pred).
func scalarOpOK(b *hlo.Instruction, byName map[string]*hlo.Instruction) bool {
	opElem := func(i int) string {
		if x := byName[b.Operands[i].Name]; x != nil && x.Shape != nil {
			return x.Shape.Elem
		}
		return ""
	}
	switch b.Opcode {
	case hlo.OpMaximum, hlo.OpMinimum, hlo.OpClamp:
		return b.Shape.Elem == hlo.S32
	case hlo.OpCompare:
		if t, _ := b.Attr("type"); t == "TOTALORDER" || t == "FLOAT" {
			return false
		}
		return scalarALUType[opElem(0)]
	case hlo.OpConvert, hlo.OpReshape, hlo.OpBitcast:
		return scalarALUType[opElem(0)] && (b.Opcode != hlo.OpBitcast || opElem(0) != hlo.Pred)
	}
	return true
}

// intLiteral reads a scalar integer or pred constant.
func intLiteral(b *hlo.Instruction) (int64, bool) {
	s := strings.TrimSpace(b.Literal)
	switch s {
	case "true":
		return 1, true
	case "false":
		return 0, true
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		u, err := strconv.ParseUint(s, 10, 32)
		return int64(int32(u)), err == nil
	}
	return v, v >= -1<<31 && v < 1<<32
}

// scalarOp emits b, a scalar instruction, into register r: its operands
// are in reg, or (leaves) in scalar memory at slot.
func (c *compiler) scalarOp(at, b *hlo.Instruction, r int, reg map[string]int, slot map[string]int64, byName map[string]*hlo.Instruction) {
	emit := func(format string, a ...any) {
		c.loc(at)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	o := func(i int) int { return reg[b.Operands[i].Name] }
	unsigned := func(i int) bool {
		x := byName[b.Operands[i].Name]
		return x != nil && x.Shape != nil && x.Shape.Elem == "u32"
	}
	switch b.Opcode {
	case hlo.OpParameter:
		dt, _ := dtypeOf(b.Shape.Elem)
		if dt == isa.U32 {
			emit("ld      r%d, [r0+%#x]", r, slot[b.Name]) // its bits: loadInt saturates
			return
		}
		c.loadInt(at, slot[b.Name], dt)
		emit("add     r%d, r1, r0", r)
	case hlo.OpConstant:
		v, _ := intLiteral(b)
		emit("li      r%d, %d", r, int32(v))
	case hlo.OpAdd:
		emit("add     r%d, r%d, r%d", r, o(0), o(1))
	case hlo.OpSubtract:
		emit("sub     r%d, r%d, r%d", r, o(0), o(1))
	case hlo.OpMultiply:
		emit("mul     r%d, r%d, r%d", r, o(0), o(1))
	case hlo.OpMaximum:
		emit("max     r%d, r%d, r%d", r, o(0), o(1))
	case hlo.OpMinimum:
		emit("min     r%d, r%d, r%d", r, o(0), o(1))
	case hlo.OpClamp:
		emit("max     r%d, r%d, r%d", r, o(1), o(0))
		emit("min     r%d, r%d, r%d", r, r, o(2))
	case hlo.OpAnd, hlo.OpOr, hlo.OpXor:
		emit("%-7s r%d, r%d, r%d", b.Opcode, r, o(0), o(1))
	case hlo.OpNot:
		if b.Shape.Elem == hlo.Pred {
			emit("xori    r%d, r%d, 1", r, o(0))
		} else {
			emit("xori    r%d, r%d, -1", r, o(0))
		}
	case hlo.OpNegate:
		emit("sub     r%d, r0, r%d", r, o(0))
	case hlo.OpSelect:
		// on_false + pred * (on_true - on_false), wrapping as the values do.
		emit("sub     r%d, r%d, r%d", r, o(1), o(2))
		emit("mul     r%d, r%d, r%d", r, r, o(0))
		emit("add     r%d, r%d, r%d", r, r, o(2))
	case hlo.OpCompare:
		lt := "slt"
		if unsigned(0) {
			lt = "sltu"
		}
		a, bb := o(0), o(1)
		switch dir, _ := b.Attr("direction"); dir {
		case "LT":
			emit("%-7s r%d, r%d, r%d", lt, r, a, bb)
		case "GT":
			emit("%-7s r%d, r%d, r%d", lt, r, bb, a)
		case "LE":
			emit("%-7s r%d, r%d, r%d", lt, r, bb, a)
			emit("xori    r%d, r%d, 1", r, r)
		case "GE":
			emit("%-7s r%d, r%d, r%d", lt, r, a, bb)
			emit("xori    r%d, r%d, 1", r, r)
		case "EQ":
			emit("seq     r%d, r%d, r%d", r, a, bb)
		default:
			emit("sne     r%d, r%d, r%d", r, a, bb)
		}
	case hlo.OpConvert:
		if b.Shape.Elem == hlo.Pred {
			emit("sne     r%d, r%d, r0", r, o(0))
		} else {
			emit("add     r%d, r%d, r0", r, o(0))
		}
	default: // reshape, bitcast: the same bits
		emit("add     r%d, r%d, r0", r, o(0))
	}
}
