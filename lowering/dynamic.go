package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/lowering/hlo"
)

// Dynamic slices: the start indices are values computed on the chip. The
// sequencer DMAs them into scalar memory, clamps each to [0, dim - size] as
// XLA does, forms the byte offset in a register and issues one DMA whose
// tile base is that register plus the tensor's address.

// dynamicOffset loads the index operands in[first:] into r3 as a byte
// offset into an array of the given dims, for a window of the given sizes.
func (c *compiler) dynamicOffset(in *hlo.Instruction, first int, dims, sizes []int64, esize int64) error {
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	idx := in.Operands[first:]
	if len(idx) != len(dims) {
		return c.fail(in, "%d start indices for rank %d", len(idx), len(dims))
	}
	st := rowMajorStrides(dims)
	if total := prod(dims) * esize; total > 1<<31-1 {
		return c.fail(in, "the array's %d bytes are beyond the 32-bit scalar registers' reach", total)
	}
	emit("semset  s0, 0")
	for i, o := range idx {
		v := c.bufs[o.Name]
		if v == nil || v.tuple != nil || v.empty || v.shape.Elems() != 1 || !v.dt.IsInt() {
			return c.fail(in, "start index %d is not an integer scalar in memory", i)
		}
		emit("dma     smem[%#x]:%s[1], %s @0 signal s0", condWord+8*i, v.dt, view{v: v, strides: []int64{1}}.operand([]int64{1}))
	}
	emit("wait    s0, %d", len(idx))
	emit("li      r3, 0")
	for i, o := range idx {
		v := c.bufs[o.Name]
		c.loadInt(in, condWord+8*int64(i), v.dt)
		emit("maxi    r1, r1, 0")
		emit("mini    r1, r1, %d", dims[i]-sizes[i])
		emit("muli    r1, r1, %d", st[i]*esize)
		emit("add     r3, r3, r1")
	}
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
	if err := c.dynamicOffset(in, 1, dims, sizes, int64(src.dt.Size())); err != nil {
		return err
	}
	c.loc(in)
	fmt.Fprintf(&c.out, "        dma     %s, hbm[r3+%s]:%s[%s]{%s} @0\n", view{v: out, strides: rowMajorStrides(sizes)}.operand(sizes),
		src.tensor, src.dt, joinDims(sizes), joinDims(rowMajorStrides(dims)))
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
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	dims, sizes := src.shape.Dims, upd.shape.Dims
	c.kernelHeader(in, "copy", 0, 2*in.Shape.Bytes()+2*upd.shape.Bytes())
	n := []int64{src.shape.Elems()}
	c.loc(in)
	fmt.Fprintf(&c.out, "        dma     %s, %s @0\n", view{v: out, strides: []int64{1}}.operand(n), view{v: src, strides: []int64{1}}.operand(n))
	c.loc(in)
	fmt.Fprintln(&c.out, "        barrier")
	if upd.empty {
		return nil
	}
	if err := c.dynamicOffset(in, 2, dims, sizes, int64(src.dt.Size())); err != nil {
		return err
	}
	c.loc(in)
	fmt.Fprintf(&c.out, "        dma     hbm[r3+%s]:%s[%s]{%s}, %s @0\n", out.tensor, out.dt, joinDims(sizes), joinDims(rowMajorStrides(dims)),
		view{v: upd, strides: rowMajorStrides(sizes)}.operand(sizes))
	c.loc(in)
	fmt.Fprintln(&c.out, "        barrier")
	return nil
}

// kernelHeader starts a DMA-only kernel and records it.
func (c *compiler) kernelHeader(in *hlo.Instruction, kind string, flops, bytes int64) {
	c.nlabel++
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: kind, Pos: in.Pos, FLOPs: flops, Bytes: bytes})
	fmt.Fprintf(&c.out, "\n; ---- kernel k%d: %s %s (%s:%d) -> %s, DMA only\n", c.nlabel, in.Opcode, in.Name, c.file, in.Pos.Line, in.Shape)
	fmt.Fprintf(&c.out, ".origin %q\n", in.Name)
}
