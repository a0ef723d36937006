package lowering

import (
	"fmt"
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
)

// Dynamic slices: the start indices are values computed on the chip. The
// sequencer DMAs them into scalar memory, clamps each to [0, dim - size] as
// XLA does, forms the byte offset in a register and issues one DMA whose
// tile base is that register plus the tensor's address.

// maxDynamicCases bounds the case table of dynamicDMA.
const maxDynamicCases = 256

// registerReach is the largest byte offset a scalar register holds (a
// variable so that tests can reach the case table with small arrays).
var registerReach int64 = 1<<31 - 1

// dynamicDMA loads the index operands in[first:], clamps them, and emits
// the DMA (dma(imm), whose HBM base is r3 plus the tensor plus imm) at the
// byte offset they select in an array of the given dims, for a window of
// the given sizes. The offset is formed in r3 when it fits the 32-bit
// registers; in a larger array the leading dimension's index instead
// selects one of a table of DMAs, each with its offset as an immediate
// (the bases are 43-bit): a scan's stacked layers of 4 GiB are 8 cases.
func (c *compiler) dynamicDMA(in *hlo.Instruction, first int, dims, sizes []int64, esize int64, dma func(imm int64)) error {
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	idx := in.Operands[first:]
	if len(idx) != len(dims) {
		return c.fail(in, "%d start indices for rank %d", len(idx), len(dims))
	}
	st := hlo.Strides(dims)
	table := prod(dims)*esize > registerReach
	if table {
		if len(dims) == 0 || prod(dims[1:])*esize > registerReach {
			return c.fail(in, "the array's %d bytes are beyond the 32-bit scalar registers' reach", prod(dims)*esize)
		}
		if n := dims[0] - sizes[0] + 1; n > maxDynamicCases {
			return c.fail(in, "the array's %d bytes are beyond the 32-bit scalar registers' reach, and its leading dimension has %d start positions (at most %d are tabled)", prod(dims)*esize, n, maxDynamicCases)
		}
	}
	// A constant index (a scan's zeros for the dims it does not slice)
	// is an immediate; the others are loaded, each DMA a descriptor of
	// its own, round the engines.
	literal := make([]*int64, len(idx))
	loads := 0
	for i, o := range idx {
		v := c.bufs[o.Name]
		if v == nil || v.tuple != nil || v.empty || v.shape.Elems() != 1 || !v.dt.IsInt() {
			return c.fail(in, "start index %d is not an integer scalar in memory", i)
		}
		if lit, ok := c.literals[v]; ok {
			if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
				literal[i] = &n
				continue
			}
		}
		if loads == 0 {
			emit("semset  s0, 0")
		}
		emit("dma     smem[%#x]:%s[1], %s @%d signal s0", condWord+8*i, v.dt, view{v: v, strides: []int64{1}}.operand([]int64{1}), loads%max(c.chip.DMA.Engines, 1))
		loads++
	}
	if loads > 0 {
		emit("wait    s0, %d", loads)
	}
	emit("li      r3, 0")
	for i := range idx {
		if table && i == 0 {
			continue
		}
		if n := literal[i]; n != nil {
			if off := min(max(*n, 0), dims[i]-sizes[i]) * st[i] * esize; off != 0 {
				emit("addi    r3, r3, %d", off)
			}
			continue
		}
		c.loadInt(in, condWord+8*int64(i), c.bufs[idx[i].Name].dt)
		emit("maxi    r1, r1, 0")
		emit("mini    r1, r1, %d", dims[i]-sizes[i])
		emit("muli    r1, r1, %d", st[i]*esize)
		emit("add     r3, r3, r1")
	}
	if !table {
		dma(0)
		return nil
	}
	if n := literal[0]; n != nil {
		emit("li      r1, %d", min(max(*n, 0), dims[0]-sizes[0]))
	} else {
		c.loadInt(in, condWord, c.bufs[idx[0].Name].dt)
		emit("maxi    r1, r1, 0")
		emit("mini    r1, r1, %d", dims[0]-sizes[0])
	}
	c.nlabel++
	done := fmt.Sprintf("k%d_cases_done", c.nlabel)
	for j := int64(0); j <= dims[0]-sizes[0]; j++ {
		next := fmt.Sprintf("k%d_case%d", c.nlabel, j+1)
		emit("li      r2, %d", j)
		emit("bne     r1, r2, %s", next)
		dma(j * st[0] * esize)
		emit("jmp     %s", done)
		fmt.Fprintf(&c.out, "%s:\n", next)
	}
	fmt.Fprintf(&c.out, "%s:\n", done)
	return nil
}

func (c *compiler) dynamicSlice(in *hlo.Instruction) error {
	src := c.bufs[in.Operands[0].Name]
	if src == nil || src.tuple != nil {
		return c.fail(in, "the operand is not an array in memory")
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	dims := src.shape.Dims
	sizes := in.Shape.Dims
	c.kernelHeader(in, "copy", 0, 2*in.Shape.Bytes())
	// The window, its dims of 1 dropped and contiguous runs merged.
	win, st := mergeDims(sizes, [][]int64{hlo.Strides(dims), hlo.Strides(sizes)})
	esize := int64(src.dt.Size())
	err = c.dynamicDMA(in, 1, dims, sizes, esize, func(imm int64) {
		for e, p := range c.windowPieces(win, esize) {
			c.loc(in)
			fmt.Fprintf(&c.out, "        dma     %s, hbm[r3+%s+%d]:%s[%s]{%s} @%d\n", view{v: out, strides: st[1], off: p.off * lead(st[1])}.operand(p.dims),
				src.tensor, imm+p.off*lead(st[0])*esize, src.dt, joinDims(p.dims), joinDims(st[0]), e%c.chip.DMA.Engines)
		}
	})
	if err != nil {
		return err
	}
	c.loc(in)
	fmt.Fprintln(&c.out, "        barrier")
	return nil
}

func (c *compiler) dynamicUpdateSlice(in *hlo.Instruction) error {
	src, upd := c.bufs[in.Operands[0].Name], c.bufs[in.Operands[1].Name]
	if src == nil || upd == nil || src.tuple != nil || upd.tuple != nil {
		return c.fail(in, "the operands are not arrays in memory")
	}
	if src.dt != upd.dt {
		return c.fail(in, "update type %s differs from the operand's %s", upd.dt, src.dt)
	}
	dims, sizes := src.shape.Dims, upd.shape.Dims
	if c.updatesInPlace(src, upd) {
		// In place, as XLA's buffer assignment runs a dynamic-update-slice
		// whose operand dies at it (a scan's stacked outputs, a KV cache):
		// the result is the operand's buffer, and only the update moves.
		c.bufs[in.Name] = &value{tensor: src.tensor, addr: src.addr, shape: in.Shape, dt: src.dt}
		c.kernelHeader(in, "copy", 0, 2*upd.shape.Bytes())
		if upd.empty {
			c.loc(in)
			fmt.Fprintln(&c.out, "        barrier")
			return nil
		}
	} else {
		out, err := c.alloc(in, in.Shape, "")
		if err != nil {
			return err
		}
		c.bufs[in.Name] = out
		c.kernelHeader(in, "copy", 0, 2*in.Shape.Bytes()+2*upd.shape.Bytes())
		c.flatCopy(in, out, src, 0)
		c.loc(in)
		fmt.Fprintln(&c.out, "        barrier")
		if upd.empty {
			return nil
		}
	}
	out := c.bufs[in.Name]
	win, st := mergeDims(sizes, [][]int64{hlo.Strides(dims), hlo.Strides(sizes)})
	esize := int64(src.dt.Size())
	err := c.dynamicDMA(in, 2, dims, sizes, esize, func(imm int64) {
		for e, p := range c.windowPieces(win, esize) {
			c.loc(in)
			fmt.Fprintf(&c.out, "        dma     hbm[r3+%s+%d]:%s[%s]{%s}, %s @%d\n", out.tensor, imm+p.off*lead(st[0])*esize, out.dt, joinDims(p.dims), joinDims(st[0]),
				view{v: upd, strides: st[1], off: p.off * lead(st[1])}.operand(p.dims), e%c.chip.DMA.Engines)
		}
	})
	if err != nil {
		return err
	}
	c.loc(in)
	fmt.Fprintln(&c.out, "        barrier")
	return nil
}

// A windowPiece is rows [off, off+dims[0]) of a window's leading
// dimension.
type windowPiece struct {
	off  int64
	dims []int64
}

// windowPieces cuts a window (merged dims, as its DMA takes them) along its
// leading dimension into the pieces a copy spreads over the DMA engines
// (copyPieces).
func (c *compiler) windowPieces(win []int64, esize int64) []windowPiece {
	if len(win) == 0 {
		return []windowPiece{{0, win}}
	}
	var out []windowPiece
	for _, p := range c.copyPieces(win[0], prod(win[1:])*esize) {
		out = append(out, windowPiece{p.off, append([]int64{p.n}, win[1:]...)})
	}
	return out
}

// lead is a stride list's first stride (0 for none).
func lead(st []int64) int64 {
	if len(st) == 0 {
		return 0
	}
	return st[0]
}

// kernelHeader starts a DMA-only kernel and records it.
func (c *compiler) kernelHeader(in *hlo.Instruction, kind string, flops, bytes int64) {
	c.kernelHeaderSaying(in, kind, flops, bytes, "DMA only")
}

// kernelHeaderSaying is kernelHeader with what the header says the
// kernel is.
func (c *compiler) kernelHeaderSaying(in *hlo.Instruction, kind string, flops, bytes int64, what string) {
	c.nlabel++
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: kind, Pos: in.Pos, FLOPs: flops, Bytes: bytes})
	fmt.Fprintf(&c.out, "\n; ---- kernel k%d: %s %s (%s:%d) -> %s, %s\n", c.nlabel, in.Opcode, in.Name, c.file, in.Pos.Line, in.Shape, what)
	fmt.Fprintf(&c.out, ".origin %q\n", in.Name)
}

// updatesInPlace reports whether a dynamic-update-slice may write its
// update into its operand's buffer: the operand is a whole tensor that
// nothing reads after it (ownsAfter), and the update is not a view of it.
func (c *compiler) updatesInPlace(src, upd *value) bool {
	return upd.tensor != src.tensor && c.ownsAfter(src)
}
