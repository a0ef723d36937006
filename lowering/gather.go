package lowering

import (
	"fmt"
	"slices"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Gathers and scatters of windows: an embedding lookup, its gradient, a
// KV-cache update. The sequencer walks the index array — DMAed into scalar
// memory a chunk at a time — and for every index vector forms the byte
// offset of its window in a register, then issues one DMA per window
// (gather, scatter with an assigning combiner) or a read-combine-write
// through SRAM (scatter with add, multiply, maximum or minimum). Gather
// clamps each start into range and scatter skips a window that does not
// fit, as XLA defines them; repeated scatter indices combine in index order
// because every window's work waits for the previous one's.
//
// What is lowered: no batching dims; the window dims (offset_dims,
// update_window_dims) are the trailing dims of the result or updates, in
// order, and the other dims walk the index vectors in order; the index
// array's batch dims collapse into one stride. Anything else is an error
// naming the attribute.

// indexSMEM is where the index chunks sit in scalar memory (below it:
// condWord and dynamic-slice starts).
const indexSMEM = 256

// windowWalk is a gather's or scatter's loop: k windows of the operand,
// each at the start an index vector gives.
type windowWalk struct {
	idx     *value
	m       int64   // entries per index vector
	k       int64   // windows
	bstride int64   // elements between consecutive index vectors
	jstride int64   // elements between an index vector's entries
	mapTo   []int64 // operand dim of each entry
	dims    []int64 // the operand's dims
	sizes   []int64 // the window's size in every operand dim
}

// newWalk reads the index array's layout (index_vector_dim: the index
// array's rank, an implicit trailing dim of 1, when absent).
func (c *compiler) newWalk(in *hlo.Instruction, idx *value, mapTo, dims, sizes []int64) (*windowWalk, error) {
	if idx == nil || idx.tuple != nil || idx.empty || !idx.dt.IsInt() {
		return nil, c.fail(in, "the indices are not an integer array in memory")
	}
	ivd := int64(len(idx.shape.Dims))
	if v, ok := in.Attr("index_vector_dim"); ok {
		fmt.Sscan(v, &ivd)
	}
	switch idx.dt {
	case isa.S32, isa.U32, isa.S64, isa.U64:
	default:
		return nil, c.fail(in, "%s indices are not lowered (s32, u32, s64, u64 are; legalize.WidenNarrowIndices widens 8- and 16-bit ones)", idx.dt)
	}
	I := idx.shape.Dims
	if ivd < 0 || ivd > int64(len(I)) {
		return nil, c.fail(in, "index_vector_dim=%d for indices of rank %d", ivd, len(I))
	}
	st := hlo.Strides(I)
	w := &windowWalk{idx: idx, m: 1, mapTo: mapTo, dims: dims, sizes: sizes}
	var batch []int
	for d := range I {
		if int64(d) != ivd {
			batch = append(batch, d)
		}
	}
	if ivd < int64(len(I)) {
		w.m, w.jstride = I[ivd], st[ivd]
	}
	if w.m != int64(len(mapTo)) {
		return nil, c.fail(in, "index vectors of %d entries for %d mapped dims", w.m, len(mapTo))
	}
	bs, ok := collapse(batch, st, I)
	if !ok {
		return nil, c.fail(in, "the index array's batch dims are not one strided run (not lowered)")
	}
	w.bstride, w.k = bs, 1
	for _, d := range batch {
		w.k *= I[d]
	}
	for _, d := range mapTo {
		if d < 0 || int(d) >= len(dims) {
			return nil, c.fail(in, "index maps to dim %d of a rank-%d operand", d, len(dims))
		}
	}
	return w, nil
}

// window returns the operand window's DMA shape and element strides: its
// dims of more than one element, adjacent ones merged where contiguous.
func (w *windowWalk) window() (shape, strides []int64) {
	st := hlo.Strides(w.dims)
	for d, n := range w.sizes {
		if n == 1 {
			continue
		}
		if k := len(shape) - 1; k >= 0 && strides[k] == st[d]*n {
			shape[k] *= n
			strides[k] = st[d]
			continue
		}
		shape, strides = append(shape, n), append(strides, st[d])
	}
	if len(shape) == 0 {
		return []int64{1}, []int64{1}
	}
	return shape, strides
}

// emit emits the loop. Per window, r3 holds the operand byte offset of its
// start and r6 the window's byte offset in the dense side (the gather's
// result, the scatter's updates); body emits the window's work. With skip
// a window that does not fit is skipped (scatter), otherwise its start is
// clamped (gather).
func (c *compiler) emitWalk(in *hlo.Instruction, w *windowWalk, esz, winBytes int64, skip bool, body func()) error {
	return c.emitWalkBy(in, w, esz, winBytes, skip, 1, func(int) { body() })
}

// emitWalkBy is emitWalk with the loop unrolled by ways: body(k) emits the
// work of the k-th window of each step (a gather puts it on engine k, so
// that the windows' descriptors set up on several engines at once); the
// windows left over go one a step.
func (c *compiler) emitWalkBy(in *hlo.Instruction, w *windowWalk, esz, winBytes int64, skip bool, ways int, body func(k int)) error {
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	if total := prod(w.dims) * esz; total > 1<<31-1 {
		return c.fail(in, "the operand's %d bytes are beyond the 32-bit scalar registers' reach", total)
	}
	if total := w.k * winBytes; total > 1<<31-1 {
		return c.fail(in, "the %d windows' %d bytes are beyond the 32-bit scalar registers' reach", w.k, total)
	}
	isz := int64(w.idx.dt.Size())
	vec := w.m * isz
	chunk := min(w.k, (c.chip.Memory.SMEMBytes-indexSMEM)/vec, 4096)
	if chunk < 1 {
		return c.fail(in, "an index vector of %d bytes does not fit scalar memory", vec)
	}
	st := hlo.Strides(w.dims)
	emit("semset  s0, 0")
	emit("li      r6, 0")
	emit("li      r9, 0")
	walkChunk := func(n int64) {
		if w.m == 1 {
			emit("dma     smem[%d]:%s[%d], hbm[r9+%s]:%s[%d]{%d} @0 signal s0", indexSMEM, w.idx.dt, n, w.idx.tensor, w.idx.dt, n, w.bstride)
		} else {
			emit("dma     smem[%d]:%s[%d,%d], hbm[r9+%s]:%s[%d,%d]{%d,%d} @0 signal s0", indexSMEM, w.idx.dt, n, w.m, w.idx.tensor, w.idx.dt, n, w.m, w.bstride, w.jstride)
		}
		emit("wait    s0, 1")
		emit("li      r5, %d", indexSMEM)
		// one emits a window's start (r3) from its index vector (at r5),
		// its work, and the step to the next window.
		one := func(lbl string, k int) {
			emit("li      r3, 0")
			for j, d := range w.mapTo {
				c.loadIntFrom(in, "r5", int64(j)*isz, w.idx.dt)
				lim := w.dims[d] - w.sizes[d]
				if skip {
					emit("blt     r1, r0, %s_skip", lbl)
					emit("li      r2, %d", lim)
					emit("blt     r2, r1, %s_skip", lbl)
				} else {
					emit("maxi    r1, r1, 0")
					emit("mini    r1, r1, %d", lim)
				}
				emit("muli    r1, r1, %d", st[d]*esz)
				emit("add     r3, r3, r1")
			}
			body(k)
			if skip {
				fmt.Fprintf(&c.out, "%s_skip:\n", lbl)
			}
			emit("addi    r5, r5, %d", vec)
			emit("addi    r6, r6, %d", winBytes)
		}
		// loopOf emits steps of u windows, count times.
		loopOf := func(u int, count int64) {
			c.nlabel++
			lbl := fmt.Sprintf("w%d", c.nlabel)
			emit("li      r7, %d", count)
			fmt.Fprintf(&c.out, "%s:\n", lbl)
			for k := range u {
				one(fmt.Sprintf("%s_%d", lbl, k), k)
			}
			emit("loop    r7, %s", lbl)
		}
		u := int64(max(ways, 1))
		if steps := n / u; steps > 0 {
			loopOf(int(u), steps)
		}
		if rest := n % u; rest > 0 {
			loopOf(1, rest)
		}
		emit("addi    r9, r9, %d", n*w.bstride*isz)
	}
	c.nlabel++
	c.countedWalk(fmt.Sprintf("c%d", c.nlabel), "r8", w.k, chunk, walkChunk)
	return nil
}

// dimsAttr reads an integer-list attribute ({} when absent).
func dimsAttr(in *hlo.Instruction, key string) []int64 {
	v, _ := hlo.IntList(hlo.AttrOr(in, key, "{}"))
	return v
}

// trailing reports whether dims are exactly the last len(dims) of rank,
// in order.
func trailing(dims []int64, rank int) bool {
	for i, d := range dims {
		if d != int64(rank-len(dims)+i) {
			return false
		}
	}
	return true
}

func (c *compiler) gather(in *hlo.Instruction) error {
	src, idx := c.bufs[in.Operands[0].Name], c.bufs[in.Operands[1].Name]
	if src == nil || src.tuple != nil {
		return c.fail(in, "the operand is not an array in memory")
	}
	if len(dimsAttr(in, "operand_batching_dims")) > 0 {
		return c.fail(in, "gathers with operand_batching_dims are not lowered yet")
	}
	offset := dimsAttr(in, "offset_dims")
	if !trailing(offset, len(in.Shape.Dims)) {
		return c.fail(in, "offset_dims=%v are not the result's trailing dims (not lowered)", offset)
	}
	sizes := dimsAttr(in, "slice_sizes")
	if len(sizes) != len(src.shape.Dims) {
		return c.fail(in, "slice_sizes of %d entries for a rank-%d operand", len(sizes), len(src.shape.Dims))
	}
	w, err := c.newWalk(in, idx, dimsAttr(in, "start_index_map"), src.shape.Dims, sizes)
	if err != nil {
		return err
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	shape, strides := w.window()
	n := prod(sizes)
	esz := int64(src.dt.Size())
	c.kernelHeader(in, "copy", 0, 2*in.Shape.Bytes()+idx.shape.Bytes())
	// The windows' DMAs take the engines in turn: each descriptor's setup
	// is paid on its engine, so one engine made a gather of small rows
	// cost a setup a row (an embedding lookup of 128 rows of 256 bytes:
	// 4,400 cycles for 33 KB).
	engines := max(c.chip.DMA.Engines, 1)
	err = c.emitWalkBy(in, w, esz, n*esz, false, engines, func(k int) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        dma     hbm[r6+%s]:%s[%d], hbm[r3+%s]:%s[%s]{%s} @%d\n", out.tensor, out.dt, n, src.tensor, src.dt, joinDims(shape), joinDims(strides), k)
	})
	if err != nil {
		return err
	}
	c.loc(in)
	fmt.Fprintln(&c.out, "        barrier")
	return nil
}

func (c *compiler) scatter(in *hlo.Instruction) error {
	if len(in.Operands) != 3 || in.Shape.IsTuple {
		return c.fail(in, "variadic scatters are not lowered yet")
	}
	src, idx, upd := c.bufs[in.Operands[0].Name], c.bufs[in.Operands[1].Name], c.bufs[in.Operands[2].Name]
	if src == nil || upd == nil || src.tuple != nil || upd.tuple != nil {
		return c.fail(in, "the operands are not arrays in memory")
	}
	if src.dt != upd.dt {
		return c.fail(in, "update type %s differs from the operand's %s", upd.dt, src.dt)
	}
	if len(dimsAttr(in, "input_batching_dims")) > 0 {
		return c.fail(in, "scatters with input_batching_dims are not lowered yet")
	}
	uw := dimsAttr(in, "update_window_dims")
	U := upd.shape.Dims
	if !trailing(uw, len(U)) {
		return c.fail(in, "update_window_dims=%v are not the updates' trailing dims (not lowered)", uw)
	}
	inserted := dimsAttr(in, "inserted_window_dims")
	D := src.shape.Dims
	sizes := make([]int64, len(D))
	next := 0
	for d := range D {
		if slices.Contains(inserted, int64(d)) {
			sizes[d] = 1
			continue
		}
		if next >= len(uw) {
			return c.fail(in, "update_window_dims do not cover the operand's window")
		}
		sizes[d] = U[uw[next]]
		next++
	}
	if next != len(uw) {
		return c.fail(in, "update_window_dims do not match the operand's window")
	}
	// The combiner: assign (its root is the second parameter) or one
	// elementwise op of both parameters.
	fn, err := c.called(in, "to_apply")
	if err != nil {
		return err
	}
	vop := ""
	if r := fn.Root; r == nil || r.Opcode != hlo.OpParameter || r.ParamNumber != 1 {
		if r == nil || len(r.Operands) != 2 || len(fn.Instructions) != 3 {
			return c.fail(in, "the scatter combiner is not an assignment or one add, multiply, maximum or minimum")
		}
		switch r.Opcode {
		case hlo.OpAdd, hlo.OpMultiply, hlo.OpMaximum, hlo.OpMinimum:
			vop = vectorOps[r.Opcode]
		default:
			return c.fail(in, "the scatter combiner %s is not lowered (assignment, add, multiply, maximum, minimum are)", r.Opcode)
		}
	}
	w, err := c.newWalk(in, idx, dimsAttr(in, "scatter_dims_to_operand_dims"), D, sizes)
	if err != nil {
		return err
	}
	n := prod(sizes)
	if w.k*n != upd.shape.Elems() {
		return c.fail(in, "%d windows of %d elements for %d updates", w.k, n, upd.shape.Elems())
	}
	esz := int64(src.dt.Size())
	// An 8- or 16-bit integer sum or product wraps in XLA: combined in
	// s32 scratch tiles and wrapped (wrapInto), as the vector unit would
	// saturate it in the narrow type.
	narrow := vop != "" && src.dt.IsInt() && src.dt != isa.Pred && src.dt.Size() < 4 && !wrapSafe[fn.Root.Opcode]
	need := 2 * align64(n*esz)
	if narrow {
		need += 2 * align64(4*n)
	}
	if vop != "" && need > c.chip.Memory.SRAMBytes/2 {
		return c.fail(in, "a window of %d bytes does not fit SRAM with its scratch", n*esz)
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	shape, strides := w.window()
	if vop != "" && !narrow && residentScatterFits(src, upd, c.chip.Memory.SRAMBytes) {
		c.kernelHeader(in, "copy", 0, 2*in.Shape.Bytes()+upd.shape.Bytes()+idx.shape.Bytes())
		return c.scatterInSRAM(in, w, vop, src, upd, out, shape, strides)
	}
	c.kernelHeader(in, "copy", 0, 2*in.Shape.Bytes()+3*upd.shape.Bytes()+idx.shape.Bytes())
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	c.flatCopy(in, out, src, 0)
	emit("barrier")
	win := fmt.Sprintf("hbm[r3+%s]:%s[%s]{%s}", out.tensor, out.dt, joinDims(shape), joinDims(strides))
	dense := fmt.Sprintf("hbm[r6+%s]:%s[%d]", upd.tensor, upd.dt, n)
	a, b := fmt.Sprintf("sram[0]:%s[%d]", out.dt, n), fmt.Sprintf("sram[%d]:%s[%d]", align64(n*esz), out.dt, n)
	if vop != "" {
		// s3: the previous window is written back (repeated indices).
		emit("semset  s1, 0")
		emit("semset  s2, 0")
		emit("semset  s3, 1")
	}
	if vop == "" && hlo.AttrOr(in, "unique_indices", "false") == "true" {
		// No index repeats: the windows' DMAs take the engines in turn.
		err = c.emitWalkBy(in, w, esz, n*esz, true, max(c.chip.DMA.Engines, 1), func(k int) {
			emit("dma     %s, %s @%d", win, dense, k)
		})
		if err != nil {
			return err
		}
		emit("barrier")
		return nil
	}
	err = c.emitWalk(in, w, esz, n*esz, true, func() {
		if vop == "" {
			// One engine, in order: a repeated index's later update lands last.
			emit("dma     %s, %s @0", win, dense)
			return
		}
		emit("dma     %s, %s @0 wait s3 signal s1", a, win)
		emit("dma     %s, %s @0 signal s1", b, dense)
		if narrow {
			off := 2 * align64(n*esz)
			v, k := fmt.Sprintf("sram[%d]:s32[%d]", off, n), fmt.Sprintf("sram[%d]:s32[%d]", off+align64(4*n), n)
			emit("%-7s %s, %s, %s wait s1:2", vop, v, a, b)
			seq := wrapInto(src.dt, a, v, k)
			for i, l := range seq {
				if i == len(seq)-1 {
					l += " signal s2"
				}
				emit("%s", l)
			}
		} else {
			emit("%-7s %s, %s, %s wait s1:2 signal s2", vop, a, a, b)
		}
		emit("dma     %s, %s @0 wait s2 signal s3", win, a)
	})
	if err != nil {
		return err
	}
	emit("barrier")
	return nil
}
