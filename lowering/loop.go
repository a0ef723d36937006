package lowering

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/lowering/hlo"
)

// Loop kernels: an elementwise fusion (or one unfused elementwise op,
// broadcast or iota) over an output of shape S. The output is cut into
// tiles of TR rows along dimension 0; for each tile, parameters are loaded
// from HBM into SRAM (broadcasts through stride-0 DMA patterns), every
// fused instruction runs as one vector instruction over the tile, and the
// root's tile is stored back. Two buffer sets let tile i+1 load while tile
// i computes and stores:
//
//	s2  free buffer sets (the store signals; the tile's first instruction waits)
//	s0  loads done (each load signals; the first vector instruction waits for all)
//	s1  tile computed (the last vector instruction signals; the store waits)
//
// Kernels end with a barrier: the next kernel reads what this one stored.

// vectorOps maps HLO elementwise ops to vector instructions.
var vectorOps = map[string]string{
	"add": "vadd", "subtract": "vsub", "multiply": "vmul", "divide": "vdiv", "maximum": "vmax",
	"minimum": "vmin", "power": "vpow", "and": "vand", "or": "vor",
	"negate": "vneg", "abs": "vabs", "exponential": "vexp", "log": "vlog", "tanh": "vtanh",
	"logistic": "vlogistic", "sqrt": "vsqrt", "rsqrt": "vrsqrt", "floor": "vfloor", "ceil": "vceil",
	"round-nearest-even": "vround", "sign": "vsign", "not": "vnot", "copy": "vcopy", "convert": "vcvt",
}

var compareOps = map[string]string{"EQ": "vcmp.eq", "NE": "vcmp.ne", "LT": "vcmp.lt", "LE": "vcmp.le", "GT": "vcmp.gt", "GE": "vcmp.ge"}

// tileBuf is a body value's SRAM tile: offset in the buffer set and dtype.
type tileBuf struct {
	off int64
	dt  isa.DType
}

// hbmAccess is a DMA between HBM and a tile, repeated per tile with the
// HBM offset advancing by adv bytes (0: the same bytes every tile).
type hbmAccess struct {
	src     *value
	strides []int64 // element strides over the tile's dimensions
	adv     int64
	reg     int // offset register, 0 when adv is 0
}

func (c *compiler) loopKernel(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) error {
	if root == nil {
		root = body[len(body)-1]
	}
	if in.Shape.IsTuple {
		return c.fail(in, "multi-output loop fusions are not lowered yet")
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	S := out.shape.Dims
	if len(S) == 0 {
		S = []int64{1}
	}
	rowElems := int64(1)
	for _, d := range S[1:] {
		rowElems *= d
	}
	params := map[string]*value{} // body parameter -> HBM value
	consts := map[string]string{} // scalar constants -> literal
	users := map[string][]*hlo.Instruction{}
	for _, b := range body {
		for _, o := range b.Operands {
			users[o.Name] = append(users[o.Name], b)
		}
	}
	elemOf := func(name string) string {
		if v := params[name]; v != nil {
			return v.shape.Elem
		}
		for _, x := range body {
			if x.Name == name && x.Shape != nil {
				return x.Shape.Elem
			}
		}
		return ""
	}
	// What each body instruction needs.
	bufs := map[string]*tileBuf{}
	loads := map[string]*hbmAccess{} // body value -> the DMA that fills its tile
	var order []*hlo.Instruction     // instructions computed on the vector unit
	newBuf := func(name string, elem string, at *hlo.Instruction) error {
		dt, ok := dtypeOf(elem)
		if !ok {
			return c.fail(at, "element type %s has no Pulse dtype", elem)
		}
		bufs[name] = &tileBuf{dt: dt} // placed once the tile size is known
		return nil
	}
	fullShape := func(s *hlo.Shape) bool {
		d := s.Dims
		if len(d) == 0 {
			d = []int64{1}
		}
		if len(d) != len(S) {
			return false
		}
		for i := range d {
			if d[i] != S[i] {
				return false
			}
		}
		return true
	}
	rowMajor := func(dims []int64) []int64 {
		st := make([]int64, len(dims))
		n := int64(1)
		for i := len(dims) - 1; i >= 0; i-- {
			st[i] = n
			n *= dims[i]
		}
		return st
	}
	for _, b := range body {
		switch {
		case b.Opcode == "parameter":
			if int(b.ParamNumber) >= len(in.Operands) {
				return c.fail(in, "fused parameter %d has no operand", b.ParamNumber)
			}
			v := c.bufs[in.Operands[b.ParamNumber].Name]
			if v == nil || v.tuple != nil {
				return c.fail(in, "operand %d is not an array in memory", b.ParamNumber)
			}
			params[b.Name] = v
			// Loaded as a tile when an elementwise user reads it whole.
			for _, u := range users[b.Name] {
				if u.Opcode != "broadcast" {
					if !fullShape(v.shape) {
						return c.fail(u, "operand %s is %s, not the output's %s (only broadcasts change shape in a loop kernel)", b.Name, v.shape, out.shape)
					}
					if err := newBuf(b.Name, v.shape.Elem, b); err != nil {
						return err
					}
					loads[b.Name] = &hbmAccess{src: v, strides: rowMajor(S), adv: 0}
					break
				}
			}
		case b.Opcode == "constant":
			if b.Shape.IsTuple {
				return c.fail(b, "tuple constants are not lowered")
			}
			if len(b.Shape.Dims) == 0 && strings.TrimSpace(b.Literal) != "{...}" {
				consts[b.Name] = strings.TrimSpace(b.Literal)
				if fullShape(b.Shape) { // a scalar kernel uses it directly
					if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
						return err
					}
					order = append(order, b)
				}
				continue
			}
			// A non-scalar constant lives in HBM like a parameter.
			if err := c.constant(b); err != nil {
				return err
			}
			v := c.bufs[b.Name]
			params[b.Name] = v
			if fullShape(v.shape) {
				if err := newBuf(b.Name, v.shape.Elem, b); err != nil {
					return err
				}
				loads[b.Name] = &hbmAccess{src: v, strides: rowMajor(S)}
			}
		case b.Opcode == "broadcast":
			x := b.Operands[0].Name
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			if lit, ok := consts[x]; ok {
				consts[b.Name] = lit
				order = append(order, b) // a vfill
				continue
			}
			v := params[x]
			if v == nil {
				return c.fail(b, "broadcast of a computed value is not lowered yet (only of parameters and constants)")
			}
			dims, _ := hlo.IntList(attrOr(b, "dimensions", "{}"))
			src := v.shape.Dims
			sst := rowMajor(src)
			st := make([]int64, len(S))
			for k, d := range dims {
				if int(d) < len(st) && src[k] != 1 {
					st[d] = sst[k]
				}
			}
			loads[b.Name] = &hbmAccess{src: v, strides: st}
		case b.Opcode == "iota":
			d, _ := hlo.IntList("{" + attrOr(b, "iota_dimension", "0") + "}")
			if len(d) != 1 || d[0] == 0 {
				return c.fail(b, "iota along dimension 0 (the tiled one) is not lowered yet")
			}
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			order = append(order, b)
		case hlo.IsElementwise(b.Opcode):
			if err := c.checkElementwise(b, elemOf); err != nil {
				return err
			}
			if !fullShape(b.Shape) {
				return c.fail(b, "shape %s differs from the kernel's %s", b.Shape, out.shape)
			}
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			order = append(order, b)
		default:
			return c.fail(b, "%s inside a loop fusion is not lowered yet", b.Opcode)
		}
	}
	if bufs[root.Name] == nil {
		return c.fail(root, "the fusion's result is not computed in the kernel")
	}
	// Size the tiles: every buffer holds TR rows; two sets fit in SRAM.
	var bytesPerRow int64
	names := make([]string, 0, len(bufs))
	for _, b := range body {
		if t := bufs[b.Name]; t != nil {
			names = append(names, b.Name)
			bytesPerRow += align64(rowElems * int64(t.dt.Size()))
		}
	}
	budget := c.chip.Memory.SRAMBytes / 2
	if budget > 4<<20 {
		budget = 4 << 20 // big enough to stream at full rate, small enough to overlap
	}
	TR := budget / bytesPerRow
	if TR < 1 {
		return c.fail(in, "one row of the kernel's %d buffers takes %d bytes, more than half of SRAM", len(names), bytesPerRow)
	}
	R := S[0]
	if TR > R {
		TR = R
	}
	// Lay out the buffer set for TR rows.
	var off int64
	for _, n := range names {
		bufs[n].off = off
		off += align64(TR * rowElems * int64(bufs[n].dt.Size()))
	}
	set := off
	// Registers for the HBM offsets that advance per tile.
	reg := 2
	accesses := []*hbmAccess{}
	for _, n := range names {
		if a := loads[n]; a != nil {
			accesses = append(accesses, a)
		}
	}
	store := &hbmAccess{src: out, strides: rowMajor(S)}
	accesses = append(accesses, store)
	for _, a := range accesses {
		a.adv = TR * a.strides[0] * int64(a.src.dt.Size())
		if a.adv != 0 {
			if reg > 29 {
				return c.fail(in, "more than 28 streamed operands")
			}
			a.reg = reg
			reg++
		}
	}
	// Emit.
	c.nlabel++
	label := fmt.Sprintf("k%d", c.nlabel)
	kind := "loop"
	flops, bytes := c.kernelCost(in, body)
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: kind, Pos: in.Pos, FLOPs: flops, Bytes: bytes})
	w := &c.out
	fmt.Fprintf(w, "\n; ---- kernel %s: %s %s (%s:%d) -> %s, tiles of %d rows\n", label, in.Opcode, in.Name, c.file, in.Pos.Line, out.shape, TR)
	fmt.Fprintf(w, ".origin %q\n", in.Name)
	c.loc(in)
	fmt.Fprintf(w, "        semset  s0, 0\n")
	c.loc(in)
	fmt.Fprintf(w, "        semset  s1, 0\n")
	c.loc(in)
	fmt.Fprintf(w, "        semset  s2, 2\n")
	c.loc(in)
	fmt.Fprintf(w, "        li      r30, 0\n")
	for _, a := range accesses {
		if a.reg != 0 {
			c.loc(in)
			fmt.Fprintf(w, "        li      r%d, 0\n", a.reg)
		}
	}
	storeEngine := 0
	if c.chip.DMA.Engines > 1 {
		storeEngine = 1
	}
	tile := func(rows int64) {
		dims := append([]int64{rows}, S[1:]...)
		first := true
		wait := func() string {
			if first {
				first = false
				return " wait s2"
			}
			return ""
		}
		tileOp := func(name string) string {
			t := bufs[name]
			return fmt.Sprintf("sram[r30+%d]:%s[%s]", t.off, t.dt, joinDims(dims))
		}
		hbmOp := func(a *hbmAccess) string {
			base := a.src.tensor
			if a.reg != 0 {
				base = fmt.Sprintf("r%d+%s", a.reg, a.src.tensor)
			}
			return fmt.Sprintf("hbm[%s]:%s[%s]{%s}", base, a.src.dt, joinDims(dims), joinDims(a.strides))
		}
		nloads := 0
		for _, n := range names {
			a := loads[n]
			if a == nil {
				continue
			}
			c.locName(body, n)
			fmt.Fprintf(w, "        dma     %s, %s%s signal s0\n", tileOp(n), hbmOp(a), wait())
			nloads++
		}
		for i, b := range order {
			sync := wait()
			if i == 0 && nloads > 0 {
				sync = fmt.Sprintf(" wait s0:%d", nloads)
			}
			if i == len(order)-1 {
				sync += " signal s1"
			}
			c.loc(b)
			c.vectorOp(b, tileOp, consts, sync)
		}
		storeWait := " wait s1"
		if len(order) == 0 {
			storeWait = fmt.Sprintf(" wait s0:%d", nloads)
		}
		c.loc(root)
		fmt.Fprintf(w, "        dma     %s, %s @%d%s signal s2\n", hbmOp(store), tileOp(root.Name), storeEngine, storeWait)
		for _, a := range accesses {
			if a.reg != 0 {
				c.loc(in)
				fmt.Fprintf(w, "        addi    r%d, r%d, %d\n", a.reg, a.reg, a.adv)
			}
		}
		c.loc(in)
		fmt.Fprintf(w, "        xori    r30, r30, %d\n", set)
	}
	if nt := R / TR; nt > 0 {
		c.loc(in)
		fmt.Fprintf(w, "        li      r1, %d\n", nt)
		fmt.Fprintf(w, "%s_tile:\n", label)
		tile(TR)
		c.loc(in)
		fmt.Fprintf(w, "        loop    r1, %s_tile\n", label)
	}
	if rem := R % TR; rem > 0 {
		tile(rem)
	}
	c.loc(in)
	fmt.Fprintf(w, "        barrier\n")
	if 2*set > c.chip.Memory.SRAMBytes {
		return c.fail(in, "internal error: buffers exceed SRAM")
	}
	return nil
}

func align64(n int64) int64 { return (n + 63) / 64 * 64 }

func attrOr(in *hlo.Instruction, key, def string) string {
	if v, ok := in.Attr(key); ok {
		return v
	}
	return def
}

// loc points the next instruction at an HLO instruction.
func (c *compiler) loc(in *hlo.Instruction) {
	fmt.Fprintf(&c.out, ".loc \"%s\" %d %d \"%s\"\n", strings.ReplaceAll(c.file, `"`, "'"), in.Pos.Line, in.Pos.Col, in.Name)
}

func (c *compiler) locName(body []*hlo.Instruction, name string) {
	for _, b := range body {
		if b.Name == name {
			c.loc(b)
			return
		}
	}
}

// checkElementwise: the op has a vector instruction with XLA's semantics.
func (c *compiler) checkElementwise(b *hlo.Instruction, elemOf func(string) string) error {
	switch b.Opcode {
	case "compare":
		dir, _ := b.Attr("direction")
		if _, ok := compareOps[dir]; !ok {
			return c.fail(b, "unknown comparison direction %q", dir)
		}
		if t, _ := b.Attr("type"); t == "TOTALORDER" {
			return c.fail(b, "total-order comparisons have no vector instruction")
		}
		return nil
	case "select", "clamp":
		return nil
	case "convert":
		// The vector unit saturates integer-to-integer conversions; XLA
		// wraps. Only widening ones agree.
		from, to := elemOf(b.Operands[0].Name), b.Shape.Elem
		fd, ok1 := dtypeOf(from)
		td, ok2 := dtypeOf(to)
		if ok1 && ok2 && fd.IsInt() && td.IsInt() && td != isa.Pred && td.Size() < fd.Size() {
			return c.fail(b, "narrowing integer convert %s to %s wraps in XLA but saturates on the vector unit", from, to)
		}
		return nil
	}
	if _, ok := vectorOps[b.Opcode]; !ok {
		return c.fail(b, "elementwise %s has no vector instruction", b.Opcode)
	}
	return nil
}

// vectorOp emits the vector instruction(s) of one body instruction.
func (c *compiler) vectorOp(b *hlo.Instruction, tile func(string) string, consts map[string]string, sync string) {
	w := &c.out
	op := func(i int) string { return tile(b.Operands[i].Name) }
	dst := tile(b.Name)
	switch b.Opcode {
	case "broadcast", "constant":
		fmt.Fprintf(w, "        vfill   %s, %s%s\n", dst, fillValue(consts[b.Name]), sync)
	case "iota":
		d := attrOr(b, "iota_dimension", "0")
		fmt.Fprintf(w, "        viota   %s, %s%s\n", dst, d, sync)
	case "compare":
		dir, _ := b.Attr("direction")
		fmt.Fprintf(w, "        %-7s %s, %s, %s%s\n", compareOps[dir], dst, op(0), op(1), sync)
	case "select":
		// dst = on_false, then take on_true where the predicate holds.
		first, last := splitSync(sync)
		fmt.Fprintf(w, "        vcopy   %s, %s%s\n", dst, op(2), first)
		c.loc(b)
		fmt.Fprintf(w, "        vsel    %s, %s, %s%s\n", dst, op(0), op(1), last)
	case "clamp":
		first, last := splitSync(sync)
		fmt.Fprintf(w, "        vmax    %s, %s, %s%s\n", dst, op(1), op(0), first)
		c.loc(b)
		fmt.Fprintf(w, "        vmin    %s, %s, %s%s\n", dst, dst, op(2), last)
	default:
		args := make([]string, len(b.Operands))
		for i := range b.Operands {
			args[i] = op(i)
		}
		fmt.Fprintf(w, "        %-7s %s, %s%s\n", vectorOps[b.Opcode], dst, strings.Join(args, ", "), sync)
	}
}

// splitSync splits " wait ... signal ..." into the wait (for the first of
// two instructions) and the signal (for the second).
func splitSync(sync string) (first, last string) {
	if i := strings.Index(sync, " signal"); i >= 0 {
		return sync[:i], sync[i:]
	}
	return sync, ""
}

func fillValue(lit string) string {
	switch lit {
	case "true":
		return "1"
	case "false":
		return "0"
	}
	return lit
}
