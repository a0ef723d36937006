package lowering

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// The epilogue of a dot kernel: the fused elementwise ops applied to each
// [rows, cols] tile of the dot's [B, M, N] output while it sits in the
// accumulator.

type epiBuf struct {
	name string
	dt   isa.DType
	off  int64 // in the tile's buffer area
}

// epiLoad is an operand read from HBM per tile, with element strides over
// the output's [B, M, N] view (0 where broadcast).
type epiLoad struct {
	v          *value
	pB, pM, pN int64
}

type epilogue struct {
	c       *compiler
	in      *hlo.Instruction
	body    []*hlo.Instruction
	dot     *hlo.Instruction
	B, M, N int64
	bufs    []*epiBuf
	byName  map[string]*epiBuf
	loads   map[string]*epiLoad
	consts  map[string]string
	order   []*hlo.Instruction // vector work in order; the dot itself first (acc -> SRAM)
	root    *hlo.Instruction
	groups  [3][]int // output dims of the batch, row and column groups
	// rowBase and colBase place the tiles of a core's share of the
	// output (cores.go): tile positions are relative to them; B, M and N
	// stay the whole output's.
	rowBase, colBase int64
}

type epiTileAt struct {
	b, m0, n0, rows, cols int64
	acc                   string // the accumulator tile operand
	sram                  int64  // base of this tile's buffers
	// reg, when the tile is emitted in a loop over batches, row blocks
	// or column groups: the register ("rN+") adding the loop's offset to
	// an access advancing by the given bytes per batch, row and column
	// ("" outside loops).
	reg offReg
}

func newEpilogue(c *compiler, in *hlo.Instruction, body []*hlo.Instruction, dot, root *hlo.Instruction, B, M, N int64) *epilogue {
	return &epilogue{c: c, in: in, body: body, dot: dot, root: root, B: B, M: M, N: N,
		byName: map[string]*epiBuf{}, loads: map[string]*epiLoad{}, consts: map[string]string{}}
}

func (e *epilogue) addBuf(name, elem string, at *hlo.Instruction) error {
	dt, ok := dtypeOf(elem)
	if !ok {
		return e.c.fail(at, "element type %s has no Pulse dtype", elem)
	}
	b := &epiBuf{name: name, dt: dt}
	e.bufs = append(e.bufs, b)
	e.byName[name] = b
	return nil
}

func (e *epilogue) analyze() error {
	c, dot := e.c, e.dot
	dims := dot.Shape.Dims
	nb := 0
	if lb, _ := hlo.IntList(hlo.AttrOr(dot, "lhs_batch_dims", "{}")); lb != nil {
		nb = len(lb)
	}
	// The dot's operands converted on the way to the MXU (dotKernel) are
	// not the epilogue's.
	opConv := map[*hlo.Instruction]bool{}
	lhs := dot.Operands[0].Name
	for _, b := range e.body {
		for i, o := range dot.Operands {
			// Converted on the way (and broadcast over the batch: a
			// batch stride of zero, dotOperandView).
			if b.Name == o.Name && (b.Opcode == hlo.OpConvert || b.Opcode == hlo.OpBroadcast) {
				opConv[b] = true
				if i == 0 {
					lhs = b.Operands[0].Name
				}
			}
		}
	}
	// Windows side by side (dotwindows.go): the concatenate, its slices
	// and their reshapes are the operand's, read by the dot kernel in
	// place.
	byName := map[string]*hlo.Instruction{}
	for _, b := range e.body {
		byName[b.Name] = b
	}
	win := map[string]bool{}
	for side := range 2 {
		if _, ok := windowOperand(e.body, dot, side); ok {
			windowNames(win, byName, byName[dot.Operands[side].Name])
		}
	}
	for n := range win {
		opConv[byName[n]] = true
	}
	// The lhs's rank as the dot sees it.
	var lrank int
	if x := byName[dot.Operands[0].Name]; x != nil && x.Shape != nil && x.Opcode != hlo.OpParameter {
		lrank = len(x.Shape.Dims)
	} else if v := c.bufs[e.operandOf(lhs)]; v != nil && v.shape != nil {
		lrank = len(v.shape.Dims)
	} else {
		return c.fail(dot, "internal error: the dot's lhs has no value")
	}
	lc, _ := hlo.IntList(hlo.AttrOr(dot, "lhs_contracting_dims", "{}"))
	nlf := lrank - nb - len(lc)
	for j := range dims {
		switch {
		case j < nb:
			e.groups[0] = append(e.groups[0], j)
		case j < nb+nlf:
			e.groups[1] = append(e.groups[1], j)
		default:
			e.groups[2] = append(e.groups[2], j)
		}
	}
	same := func(s *hlo.Shape) bool {
		if len(s.Dims) != len(dims) {
			return false
		}
		for i := range dims {
			if s.Dims[i] != dims[i] {
				return false
			}
		}
		return true
	}
	// The dot's value moves from the accumulator to SRAM in its own type.
	if err := e.addBuf(dot.Name, dot.Shape.Elem, dot); err != nil {
		return err
	}
	e.order = append(e.order, dot)
	params := map[string]*value{}
	for _, b := range e.body {
		switch {
		case b == dot || opConv[b]:
		case b.Opcode == hlo.OpParameter:
			params[b.Name] = c.bufs[e.in.Operands[b.ParamNumber].Name]
			used := false
			for _, u := range e.body {
				if u == dot || opConv[u] || u.Opcode == hlo.OpBroadcast {
					continue
				}
				for _, o := range u.Operands {
					used = used || o.Name == b.Name
				}
			}
			if !used {
				continue
			}
			v := params[b.Name]
			if v == nil || v.tuple != nil || !same(v.shape) {
				return c.fail(b, "an epilogue operand must have the dot's shape %s", dot.Shape)
			}
			if err := e.addBuf(b.Name, v.shape.Elem, b); err != nil {
				return err
			}
			e.loads[b.Name] = &epiLoad{v: v, pB: e.M * e.N, pM: e.N, pN: 1}
		case b.Opcode == hlo.OpConstant:
			if len(b.Shape.Dims) != 0 || strings.TrimSpace(b.Literal) == "{...}" {
				return c.fail(b, "non-scalar constants in a dot epilogue are not lowered yet")
			}
			lit, err := c.scalarLiteral(b)
			if err != nil {
				return err
			}
			e.consts[b.Name] = lit
		case b.Opcode == hlo.OpBroadcast:
			x := b.Operands[0].Name
			if err := e.addBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			if lit, ok := e.consts[x]; ok {
				e.consts[b.Name] = lit
				e.order = append(e.order, b)
				continue
			}
			v := params[x]
			if v == nil {
				return c.fail(b, "broadcast of a computed value in a dot epilogue is not lowered yet")
			}
			pst := broadcastStrides(b, v, len(dims))
			var st [3]int64
			for gi, grp := range e.groups {
				s, ok := collapse(grp, pst, dims)
				if !ok {
					return c.fail(b, "this broadcast pattern is not lowered yet")
				}
				st[gi] = s
			}
			e.loads[b.Name] = &epiLoad{v: v, pB: st[0], pM: st[1], pN: st[2]}
		case hlo.IsElementwise(b.Opcode) || b.Opcode == hlo.OpCopy && copyKeepsLayout(b, e.body):
			if err := c.checkElementwise(b, func(n string) string {
				if v := params[n]; v != nil {
					return v.shape.Elem
				}
				for _, x := range e.body {
					if x.Name == n && x.Shape != nil {
						return x.Shape.Elem
					}
				}
				return ""
			}); err != nil {
				return err
			}
			if !same(b.Shape) {
				return c.fail(b, "shape %s differs from the dot's %s", b.Shape, dot.Shape)
			}
			if err := e.addBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			for i, elem := range expansionScratch(b) {
				if err := e.addBuf(scratchName(b.Name, i), elem, b); err != nil {
					return err
				}
			}
			e.order = append(e.order, b)
		default:
			return c.fail(b, "%s in a dot epilogue is not lowered yet", b.Opcode)
		}
	}
	if e.byName[e.root.Name] == nil {
		return c.fail(e.root, "the fusion's result is not computed in the epilogue")
	}
	// Constants every reader takes as an immediate need no tile, nor a
	// fill per tile.
	if imm := immediateOnly(e.body, e.consts, e.root.Name); len(imm) > 0 {
		e.order = slices.DeleteFunc(e.order, func(b *hlo.Instruction) bool { return imm[b.Name] })
		e.bufs = slices.DeleteFunc(e.bufs, func(b *epiBuf) bool { return imm[b.name] })
		for name := range imm {
			delete(e.byName, name)
		}
	}
	return nil
}

// operandOf returns the entry value name behind a body parameter name.
func (e *epilogue) operandOf(name string) string {
	for _, b := range e.body {
		if b.Name == name && b.Opcode == hlo.OpParameter {
			return e.in.Operands[b.ParamNumber].Name
		}
	}
	return name
}

// collapse folds a group of output dims into one stride, if the strides
// are those of a contiguous run (or all zero).
func collapse(grp []int, st []int64, dims []int64) (int64, bool) {
	if len(grp) == 0 {
		return 0, true
	}
	for i := 0; i+1 < len(grp); i++ {
		a, b := grp[i], grp[i+1]
		if st[a] != st[b]*dims[b] {
			return 0, false
		}
	}
	return st[grp[len(grp)-1]], true
}

func (e *epilogue) bytesPerRow(cols int64) int64 {
	var n int64
	for _, b := range e.bufs {
		n += cols * int64(b.dt.Size())
	}
	return n
}

// layout places the buffers for tiles of rows x cols; it returns the bytes
// one tile's buffers take.
func (e *epilogue) layout(rows, cols int64) int64 {
	var off int64
	for _, b := range e.bufs {
		b.off = off
		off += align64(rows * cols * int64(b.dt.Size()))
	}
	return off
}

// epiSync is how an epilogue tile synchronizes: its operands load on
// loadEng (signalling s15), its last vector op signals ready, and its
// store, on storeEng, waits for that and signals stored. A store in
// pieces (storeEngines set: one piece of rows per engine it gives) has
// each piece wait for one of the ready tokens and signal stored.
type epiSync struct {
	loadEng, storeEng int
	ready, stored     int
	pieces            int64
	storeEngine       func() int
}

func (e *epilogue) emit(t epiTileAt, sy epiSync, out *value) {
	c := e.c
	w := &c.out
	sramTile := func(name string) string {
		b := e.byName[name]
		return fmt.Sprintf("sram[%d]:%s[%d,%d]", t.sram+b.off, b.dt, t.rows, t.cols)
	}
	nloads := 0
	for _, b := range e.bufs {
		l := e.loads[b.name]
		if l == nil {
			continue
		}
		c.locName(e.body, b.name)
		esz := int64(l.v.dt.Size())
		fmt.Fprintf(w, "        dma     %s, hbm[%s%s+%d]:%s[%d,%d]{%d,%d} @%d signal s15\n", sramTile(b.name), t.reg(l.pB*esz, l.pM*esz, l.pN*esz), l.v.tensor,
			(t.b*l.pB+(e.rowBase+t.m0)*l.pM+(e.colBase+t.n0)*l.pN)*esz, l.v.dt, t.rows, t.cols, l.pM, l.pN, sy.loadEng)
		nloads++
	}
	// The work keeps its intermediate values in the vector registers
	// when a tile's fit them (epiRegs), else in the tile's SRAM buffers.
	regs := e.epiRegs(t.rows, t.cols, c.chip.Memory.VRegBytes)
	osz := int64(out.dt.Size())
	rb := e.byName[e.root.Name]
	// A result in VMEM is written where it lies by the last op, as a
	// TPU's vector stores write VMEM, not through an SRAM tile and a DMA
	// (each a descriptor and a copy on the kernel's last path); the last
	// op then signals what the stores would have.
	direct := isResident(out.tensor) && rb.dt == out.dt
	tile := func(name string) string {
		if at, ok := regs[name]; ok {
			return fmt.Sprintf("vreg[%d]:%s[%d,%d]", at, e.byName[name].dt, t.rows, t.cols)
		}
		if direct && name == e.root.Name {
			return fmt.Sprintf("hbm[%s%s+%d]:%s[%d,%d]{%d,1}", t.reg(e.M*e.N*osz, e.N*osz, osz), out.tensor,
				(t.b*e.M*e.N+(e.rowBase+t.m0)*e.N+e.colBase+t.n0)*osz, out.dt, t.rows, t.cols, e.N)
		}
		return sramTile(name)
	}
	for i, b := range e.order {
		sync := ""
		if i == 0 && nloads > 0 {
			sync = fmt.Sprintf(" wait s15:%d", nloads)
		}
		if i == len(e.order)-1 {
			done := sy.ready
			if direct {
				done = sy.stored
			}
			sync += fmt.Sprintf(" signal s%d:%d", done, max(sy.pieces, 1))
		}
		c.loc(b)
		if b == e.dot {
			op := "vcvt   "
			if e.byName[b.Name].dt == isa.F32 {
				op = "vcopy  "
			}
			fmt.Fprintf(w, "        %s %s, %s%s\n", op, tile(b.Name), t.acc, sync)
			continue
		}
		c.vectorOp(b, tile, e.consts, sync)
	}
	if direct {
		return
	}
	c.loc(e.root)
	for _, q := range splitRows(t.rows, max(sy.pieces, 1)) {
		eng := sy.storeEng
		if sy.storeEngine != nil {
			eng = sy.storeEngine()
		}
		fmt.Fprintf(w, "        dma     hbm[%s%s+%d]:%s[%d,%d]{%d,1}, sram[%d]:%s[%d,%d] @%d wait s%d signal s%d\n", t.reg(e.M*e.N*osz, e.N*osz, osz), out.tensor,
			(t.b*e.M*e.N+(e.rowBase+t.m0+q[0])*e.N+e.colBase+t.n0)*osz, out.dt, q[1], t.cols, e.N, t.sram+rb.off+q[0]*t.cols*int64(rb.dt.Size()), rb.dt, q[1], t.cols, eng, sy.ready, sy.stored)
	}
}

// epiRegs places the epilogue's intermediate values (neither loaded nor
// the stored result) in the vector registers, a value's slot free again
// after its last reader, and returns each one's register address; nil
// when there are none or the tile's do not fit vregBytes. Chunks of the
// tile's rows were tried: each
// repeats every op, and the sequencer dispatches in order, so a tile of
// several chunks filled the vector unit's queue and held back the matrix
// units' next instructions behind it (an MLP's GELU, 12 ops in two chunks
// a tile: 203,526 -> 232,031 cycles, the vector unit idle for its inputs;
// bounding the instructions at half the queue instead cost the JAX corpus
// 1,000 cycles more than one chunk). Through SRAM, each of a GELU's
// ten ops read two tiles and wrote one over the banks (gpt2_block_bf16's
// MLP dot: 1.3 of its 6.2 us waiting for banks); the registers have none.
func (e *epilogue) epiRegs(rows, cols, vregBytes int64) map[string]int64 {
	if vregBytes <= 0 || len(e.order) < 2 {
		return nil
	}
	inRegs := func(name string) bool {
		_, loaded := e.loads[name]
		return e.byName[name] != nil && !loaded && name != e.root.Name
	}
	last := map[string]int{}
	for i, b := range e.order {
		for _, o := range b.Operands {
			last[o.Name] = i
		}
	}
	slotOf := map[string]int{}
	var free []int
	slots, size := 0, int64(1)
	for i, b := range e.order {
		// A value takes a slot none of its own operands holds: an op of
		// several instructions may write its result before reading all
		// its operands (a select copies one, then a vsel reads the other
		// over it: GPT-2's LM head came out wrong when its result reused
		// a dying operand's slot). Its operands' slots free after it.
		if inRegs(b.Name) && last[b.Name] > i {
			size = max(size, int64(e.byName[b.Name].dt.Size()))
			if n := len(free); n > 0 {
				slotOf[b.Name], free = free[n-1], free[:n-1]
			} else {
				slotOf[b.Name] = slots
				slots++
			}
		}
		for _, o := range b.Operands {
			if sl, ok := slotOf[o.Name]; ok && last[o.Name] == i && !slices.Contains(free, sl) {
				free = append(free, sl)
			}
		}
	}
	// Whole tiles of rows in multiples of 8 (a vreg's sublanes), or
	// fewer than 8.
	if slots == 0 || rows*int64(slots)*align64(cols*size) > vregBytes || rows >= 8 && rows%8 != 0 {
		return nil
	}
	slot := align64(rows * cols * size)
	regs := map[string]int64{}
	for name, sl := range slotOf {
		regs[name] = int64(sl) * slot
	}
	return regs
}
