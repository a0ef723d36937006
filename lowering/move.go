package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Data-movement kernels: transpose, slice, reverse, concatenate and pad
// move bytes from HBM to HBM through DMA access patterns (strides,
// offsets, negative strides); nothing computes. Descriptors on one engine
// complete in order, so a pad's fills land before its interior.

// view is an HBM access pattern over an array: a byte offset from the
// tensor's base and element strides per dimension.
type view struct {
	v       *value
	off     int64 // elements
	strides []int64
}

func (w view) operand(dims []int64) string {
	return fmt.Sprintf("hbm[%s+%d]:%s[%s]{%s}", w.v.tensor, w.off*int64(w.v.dt.Size()), w.v.dt, joinDims(dims), joinDims(w.strides))
}

// maxCopyPieces bounds the DMAs one copy of an array of rank above 4 may
// be cut into.
const maxCopyPieces = 1 << 16

// copyPieces turns a copy of dims elements from src to dst into DMAs of at
// most 4 dimensions (the ISA's tiles): dimensions of one element are
// dropped, neighbours that both views walk contiguously are merged, and if
// more than 4 remain, one DMA per index of the outer ones. It returns the
// operand pairs, dst first.
func copyPieces(dst, src view, dims []int64) ([][2]string, error) {
	if len(dims) == 1 && dims[0] == 1 {
		// A scalar (moveKernel gives it dims [1]): its views of rank 0
		// have no strides.
		dst.strides, src.strides = []int64{1}, []int64{1}
	}
	var d, sd, ss []int64
	for i, n := range dims {
		if n == 1 && len(dims) > 1 {
			continue
		}
		if k := len(d) - 1; k >= 0 && sd[k] == dst.strides[i]*n && ss[k] == src.strides[i]*n {
			d[k] *= n // dimension k continues into i in both views
			sd[k], ss[k] = dst.strides[i], src.strides[i]
			continue
		}
		d, sd, ss = append(d, n), append(sd, dst.strides[i]), append(ss, src.strides[i])
	}
	if len(d) == 0 {
		d, sd, ss = []int64{1}, []int64{1}, []int64{1}
	}
	d, sd, ss, err := splitLongDims(d, sd, ss)
	if err != nil {
		return nil, err
	}
	outer := max(len(d)-4, 0)
	pieces := prod(d[:outer])
	if pieces > maxCopyPieces {
		return nil, fmt.Errorf("a rank-%d copy would take %d DMAs of 4 dimensions", len(dims), pieces)
	}
	var out [][2]string
	idx := make([]int64, outer)
	for p := int64(0); p < pieces; p++ {
		a, b := view{v: dst.v, off: dst.off, strides: sd[outer:]}, view{v: src.v, off: src.off, strides: ss[outer:]}
		for i, x := range idx {
			a.off += x * sd[i]
			b.off += x * ss[i]
		}
		out = append(out, [2]string{a.operand(d[outer:]), b.operand(d[outer:])})
		for i := outer - 1; i >= 0; i-- { // next index, last dimension fastest
			if idx[i]++; idx[i] < d[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out, nil
}

// splitLongDims cuts each dimension longer than a tile's (isa.MaxDim) in
// two, [f, n/f] with the least f that divides it: merging contiguous
// dimensions can make one of 32M elements (a 64 MiB bf16 array moved
// whole), which no tile holds.
func splitLongDims(d, sd, ss []int64) ([]int64, []int64, []int64, error) {
	for i := 0; i < len(d); i++ {
		n := d[i]
		if n <= isa.MaxDim {
			continue
		}
		f := int64(2)
		for ; f <= n && (n%f != 0 || n/f > isa.MaxDim); f++ {
			if f > 1<<20 {
				return nil, nil, nil, fmt.Errorf("a copy's dimension of %d elements has no factor a tile holds", n)
			}
		}
		inner := n / f
		d = append(d[:i:i], append([]int64{f, inner}, d[i+1:]...)...)
		sd = append(sd[:i:i], append([]int64{sd[i] * inner, sd[i]}, sd[i+1:]...)...)
		ss = append(ss[:i:i], append([]int64{ss[i] * inner, ss[i]}, ss[i+1:]...)...)
	}
	return d, sd, ss, nil
}

// emitCopy emits the DMAs of copyPieces on engine 0.
func (c *compiler) emitCopy(in *hlo.Instruction, emit func(string, ...any), dst, src view, dims []int64) error {
	pieces, err := copyPieces(dst, src, dims)
	if err != nil {
		return c.fail(in, "%v", err)
	}
	for _, p := range pieces {
		emit("dma     %s, %s @0", p[0], p[1])
	}
	return nil
}

// sliceView reads the operand of a slice: start offsets and step strides.
func sliceView(in *hlo.Instruction, v *value) (view, error) {
	sv, _ := in.Attr("slice")
	ranges := hlo.SliceDims(in)
	st := hlo.Strides(v.shape.Dims)
	w := view{v: v, strides: make([]int64, len(st))}
	if len(ranges) != len(st) {
		return w, fmt.Errorf("slice %s for rank %d", sv, len(st))
	}
	for i, r := range ranges {
		w.off += r.Start * st[i]
		w.strides[i] = st[i] * r.Stride
	}
	return w, nil
}

// transposeView reads the operand of a transpose in the result's order.
func transposeView(in *hlo.Instruction, v *value) (view, error) {
	perm, _ := hlo.IntList(hlo.AttrOr(in, "dimensions", "{}"))
	st := hlo.Strides(v.shape.Dims)
	w := view{v: v, strides: make([]int64, len(perm))}
	if len(perm) != len(st) {
		return w, fmt.Errorf("permutation %v for rank %d", perm, len(st))
	}
	for k, p := range perm {
		w.strides[k] = st[p]
	}
	return w, nil
}

// reverseView reads the operand of a reverse back to front in the
// reversed dimensions.
func reverseView(in *hlo.Instruction, v *value) view {
	dims, _ := hlo.IntList(hlo.AttrOr(in, "dimensions", "{}"))
	st := hlo.Strides(v.shape.Dims)
	w := view{v: v, strides: append([]int64{}, st...)}
	for _, d := range dims {
		w.off += (v.shape.Dims[d] - 1) * st[d]
		w.strides[d] = -st[d]
	}
	return w
}

func (c *compiler) moveKernel(in *hlo.Instruction) error {
	if in.Shape.IsTuple {
		return c.fail(in, "tuple-shaped %s is not lowered", in.Opcode)
	}
	for _, o := range in.Operands {
		if v := c.bufs[o.Name]; v == nil || v.tuple != nil {
			return c.fail(in, "operand %s is not an array in memory", o.Name)
		}
	}
	x := c.bufs[in.Operands[0].Name]
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	dims := out.shape.Dims
	if len(dims) == 0 {
		dims = []int64{1}
	}
	ost := hlo.Strides(dims)
	dst := view{v: out, strides: ost}
	flops, bytes := c.kernelCost(in, c.singleton(in))
	c.kernelHeader(in, "copy", flops, bytes)
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	switch in.Opcode {
	case hlo.OpTranspose:
		if c.transposeKernel(in, x, out) {
			break
		}
		src, err := transposeView(in, x)
		if err != nil {
			return c.fail(in, "%v", err)
		}
		if err := c.emitCopy(in, emit, dst, src, dims); err != nil {
			return err
		}
	case hlo.OpSlice:
		src, err := sliceView(in, x)
		if err != nil {
			return c.fail(in, "%v", err)
		}
		if err := c.emitCopy(in, emit, dst, src, dims); err != nil {
			return err
		}
	case hlo.OpReverse:
		if err := c.emitCopy(in, emit, dst, reverseView(in, x), dims); err != nil {
			return err
		}
	case hlo.OpConcatenate:
		d, _ := hlo.IntList(hlo.AttrOr(in, "dimensions", "{}"))
		if len(d) != 1 {
			return c.fail(in, "concatenate needs one dimension")
		}
		var at int64
		for _, o := range in.Operands {
			v := c.bufs[o.Name]
			od := v.shape.Dims
			if prod(od) == 0 {
				continue
			}
			part := view{v: out, off: at * ost[d[0]], strides: ost}
			if err := c.emitCopy(in, emit, part, view{v: v, strides: hlo.Strides(od)}, od); err != nil {
				return err
			}
			at += od[d[0]]
		}
	case hlo.OpPad:
		emit("semset  s0, 0")
		return c.padKernel(in, x, out, dims, emit)
	default:
		return c.fail(in, "not lowered yet")
	}
	emit("barrier")
	return nil
}

// padKernel fills the output with the padding value (a buffer of it in
// SRAM, copied over the output in chunks), then places the operand.
func (c *compiler) padKernel(in *hlo.Instruction, x, out *value, dims []int64, emit func(string, ...any)) error {
	pvv := c.bufs[in.Operands[1].Name]
	lit, isConst := c.literals[pvv]
	if !isConst && (pvv == nil || pvv.tuple != nil || pvv.empty) {
		return c.fail(in, "the padding value is not a scalar in memory")
	}
	pv, _ := in.Attr("padding")
	per := hlo.PadDims(in)
	if len(x.shape.Dims) == 0 && pv == "" {
		per = nil // a scalar's padding config is empty
	}
	if len(per) != len(x.shape.Dims) {
		return c.fail(in, "padding %s for rank %d", pv, len(x.shape.Dims))
	}
	if isConst && c.padStream(in, x, out, per, func(at, n int64) string {
		return fmt.Sprintf("vfill   sram[%d]:%s[%d], %s", at, out.dt, n, fillValue(lit))
	}, emit) {
		return nil
	}
	ost := hlo.Strides(dims)
	src := view{v: x, strides: hlo.Strides(x.shape.Dims)}
	dst := view{v: out, strides: make([]int64, len(ost))}
	for i, p := range per {
		if p.Lo < 0 || p.Interior < 0 || p.Hi < 0 {
			return c.fail(in, "negative padding is not lowered yet")
		}
		dst.off += p.Lo * ost[i]
		dst.strides[i] = ost[i] * (p.Interior + 1)
	}
	n := prod(dims)
	esz := int64(out.dt.Size())
	chunk := min(n, c.chip.Memory.SRAMBytes/4/esz)
	if isConst && isResident(out.tensor) {
		// An output in VMEM is filled where it lies, as a TPU's vector
		// stores fill VMEM (through a buffer of the value in SRAM, the
		// copy over the output cost a DMA of every byte: 1,072 of a
		// ResNet pad's 1,127 cycles); the operand's copy waits for it.
		emit("vfill   hbm[%s+0]:%s[%d], %s signal s0", out.tensor, out.dt, n, fillValue(lit))
		emit("wait    s0, 1")
		chunk = 0
	} else if isConst {
		emit("vfill   sram[0]:%s[%d], %s signal s0", out.dt, chunk, fillValue(lit))
	} else {
		// A computed padding value: read it, then broadcast it.
		one := align64(chunk * esz)
		emit("semset  s1, 0")
		emit("dma     sram[%d]:%s[1,1], hbm[%s]:%s[1,1] @0 signal s1", one, out.dt, pvv.tensor, pvv.dt)
		emit("vbcast  sram[0]:%s[1,%d], sram[%d]:%s[1,1] wait s1 signal s0", out.dt, chunk, one, out.dt)
	}
	for at := int64(0); chunk > 0 && at < n; at += chunk {
		k := min(chunk, n-at)
		sync := ""
		if at == 0 {
			sync = " wait s0"
		}
		emit("dma     hbm[%s+%d]:%s[%d], sram[0]:%s[%d] @0%s", out.tensor, at*esz, out.dt, k, out.dt, k, sync)
	}
	if xd := x.shape.Dims; prod(xd) > 0 {
		if len(xd) == 0 {
			xd = []int64{1}
		}
		if err := c.emitCopy(in, emit, dst, src, xd); err != nil {
			return err
		}
	}
	emit("barrier")
	return nil
}

// maxTileElems is the most elements one tile may hold.
const maxTileElems = 1 << 30

// flatCopy emits the DMAs copying array from into array to (same type and
// element count), spread over the DMA engines from eng on (copyPieces).
func (c *compiler) flatCopy(at *hlo.Instruction, to, from *value, eng int) {
	for i, p := range c.copyPieces(from.shape.Elems(), int64(from.dt.Size())) {
		dims := declDims(p.n)
		st := hlo.Strides(dims)
		c.loc(at)
		fmt.Fprintf(&c.out, "        dma     %s, %s @%d\n", view{v: to, strides: st, off: p.off}.operand(dims),
			view{v: from, strides: st, off: p.off}.operand(dims), (eng+i)%c.chip.DMA.Engines)
	}
}

// minCopyPiece is the fewest bytes a copy spread over several DMA engines
// gives one of them: every piece pays a descriptor's setup (1.3 us on
// Trainium, NKI-DMA), and below this a second engine saves less than that.
const minCopyPiece = 64 << 10

// A copyPiece is a run of n units (elements, or rows of a window) at off.
type copyPiece struct{ off, n int64 }

// copyPieces cuts n units of size bytes each into the pieces one copy
// moves: one per DMA engine when there is enough to share, as XLA's
// copies stream at HBM's rate where one engine is held to its own (on
// tpuv5p, 256 bursts in flight over 245 ns: a fifth of HBM's), none over
// maxTileElems, each a multiple of 4 KiB where the pieces are large.
func (c *compiler) copyPieces(n, size int64) []copyPiece {
	if n <= 0 {
		return nil
	}
	k := min(max(n*size/minCopyPiece, 1), int64(c.chip.DMA.Engines))
	if size == 0 {
		k = 1
	}
	step := (n + k - 1) / k
	if align := max((4096+size-1)/max(size, 1), 1); step > 4*align {
		step = (step + align - 1) / align * align
	}
	step = min(step, maxTileElems)
	var out []copyPiece
	for off := int64(0); off < n; off += step {
		out = append(out, copyPiece{off, min(step, n-off)})
	}
	return out
}

// hasView reports whether name has a view in views.
func hasView(views map[string]view, name string) bool {
	_, ok := views[name]
	return ok
}

// broadcastViewStrides is broadcastStrides over a view: operand dim k of
// the broadcast b reads w's stride, repeated along the other dims.
func broadcastViewStrides(b *hlo.Instruction, w view, rank int) []int64 {
	dims, _ := hlo.IntList(hlo.AttrOr(b, "dimensions", "{}"))
	st := make([]int64, rank)
	for k, d := range dims {
		if k < len(w.strides) && d >= 0 && int(d) < rank {
			st[d] = w.strides[k]
		}
	}
	return st
}
