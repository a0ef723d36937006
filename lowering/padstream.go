package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
)

// A streamed pad: the output in tiles of whole rows (the dims from the
// first padded one on, past the leading one), each tile's SRAM buffer
// holding the padding value where the operand does not land. A buffer's
// border is filled once, before the first tile; each tile then loads the
// operand's rows into the buffer's interior and stores the whole tile, so
// the pad reads its operand once and writes its result once, in whole
// rows. Filling the output first and copying the operand over it wrote
// the interior twice (MobileNet-v2's 3x3 convolutions pad activations of
// up to 462 MB: 63% of the pad's roof). Padding of the leading dim (a
// flattened grid's extra image of zeros) is a contiguous slab on each
// side, written from the filled buffer before the first load.

// minPadStreamBytes is the smallest result streamed: below it the
// buffers' fill and the walk cost more than writing the interior twice
// (a ResNet block's 170 KB pads: 994 cycles filled and copied, 1,056
// streamed).
const minPadStreamBytes = 256 << 10

// padSets is how many tile buffers the walk rotates through.
const padSets = 3

// padStream emits pad in (operand x, result out, padding per, padding
// value fill: the vfill or the broadcast that makes a buffer of it) as a
// streamed pad, or returns false with nothing emitted when it does not
// take that form.
func (c *compiler) padStream(in *hlo.Instruction, x, out *value, per []hlo.PadDim, fill func(at, n int64) string, emit func(string, ...any)) bool {
	xd, od := x.shape.Dims, out.shape.Dims
	r := len(xd)
	if r < 2 || len(od) != r || prod(xd) == 0 {
		return false
	}
	for _, p := range per {
		// Interior padding (an lhs dilation) would land the operand's
		// elements apart in SRAM, a DMA run each: filled and copied, it
		// lands them apart in HBM in runs the bursts merge.
		if p.Lo < 0 || p.Hi < 0 || p.Interior != 0 {
			return false
		}
	}
	f := 1 // the first padded dim past the leading one
	for f < r && per[f].Lo == 0 && per[f].Hi == 0 {
		f++
	}
	if f == r {
		return false // only the leading dim: a fill and one copy already
	}
	esz := int64(out.dt.Size())
	if prod(od)*esz < minPadStreamBytes {
		return false
	}
	rowOut, rowIn := prod(od[f:]), prod(xd[f:]) // elements
	rows := prod(xd[:f])
	budget := min(c.chip.Memory.SRAMBytes/(2*padSets), 2<<20)
	TR := min(rows, budget/(rowOut*esz))
	if TR < 1 {
		return false
	}
	// Cut the walk into at least a few tiles so that loads and stores
	// overlap.
	TR = min(TR, max((rows+3)/4, 1))
	setBytes := align64(TR * rowOut * esz)
	ost := hlo.Strides(od)
	var inner int64 // the operand's first element in a buffer's row
	for i := f; i < r; i++ {
		inner += per[i].Lo * ost[i]
	}
	// The operand's rows land in a buffer with the output's strides.
	dstStrides := append([]int64{rowOut}, ost[f:]...)
	srcStrides := append([]int64{rowIn}, hlo.Strides(xd)[f:]...)
	dims := func(n int64) string { return joinDims(append([]int64{n}, xd[f:]...)) }
	// The buffers: the padding value, everywhere; then the leading
	// dim's slabs from the first buffer, before any tile lands in it.
	emit("semset  s1, 0")
	emit("semset  s2, %d", padSets)
	for s := int64(0); s < padSets; s++ {
		emit("%s", fill(s*setBytes, TR*rowOut))
	}
	emit("barrier")
	slabRows := prod(od[1:f]) * rowOut // elements of one index of the leading dim
	slab := func(at, n int64) {
		for done := int64(0); done < n; done += TR * rowOut {
			k := min(TR*rowOut, n-done)
			emit("dma     hbm[%s+%d]:%s[%d], sram[0]:%s[%d] @0", out.tensor, (at+done)*esz, out.dt, k, out.dt, k)
		}
	}
	if per[0].Lo > 0 || per[0].Hi > 0 {
		slab(0, per[0].Lo*slabRows)
		slab((per[0].Lo+xd[0])*slabRows, per[0].Hi*slabRows)
		emit("barrier")
	}
	// Rows of the output from the operand's first, past the leading
	// dim's low slab.
	outAt := per[0].Lo * slabRows * esz
	c.nlabel++
	label := fmt.Sprintf("k%d_pad", c.nlabel)
	emit("li      r2, 0")
	emit("li      r3, 0")
	emit("li      r30, 0")
	tile := func(n int64) {
		emit("dma     sram[r30+%d]:%s[%s]{%s}, hbm[r2+%s]:%s[%s]{%s} @0 wait s2 signal s1", inner*esz, out.dt, dims(n), joinDims(dstStrides),
			x.tensor, x.dt, dims(n), joinDims(srcStrides))
		emit("dma     hbm[r3+%s+%d]:%s[%d], sram[r30+0]:%s[%d] @%d wait s1 signal s2", out.tensor, outAt, out.dt, n*rowOut, out.dt, n*rowOut, min(1, c.chip.DMA.Engines-1))
		emit("addi    r2, r2, %d", n*rowIn*esz)
		emit("addi    r3, r3, %d", n*rowOut*esz)
		emit("addi    r30, r30, %d", setBytes)
		emit("seqi    r29, r30, %d", padSets*setBytes)
		emit("muli    r29, r29, %d", padSets*setBytes)
		emit("sub     r30, r30, r29")
	}
	c.countedWalk(label, "r1", rows, TR, tile)
	emit("barrier")
	return true
}

// countedWalk emits body(size) for each whole size of n, as a loop
// counted in reg (labelled label) when there are several, then
// body(n % size) for what is left.
func (c *compiler) countedWalk(label, reg string, n, size int64, body func(int64)) {
	if full := n / size; full > 1 {
		fmt.Fprintf(&c.out, "        li      %s, %d\n", reg, full)
		fmt.Fprintf(&c.out, "%s:\n", label)
		body(size)
		fmt.Fprintf(&c.out, "        loop    %s, %s\n", reg, label)
	} else if full == 1 {
		body(size)
	}
	if rest := n % size; rest > 0 {
		body(rest)
	}
}
