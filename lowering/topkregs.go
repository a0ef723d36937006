package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// On a chip with a vector register file the top-k selection runs a chunk
// of rows at a time in registers: the chunk's keys, positions and
// candidates, its masks and its columns stay in vregs through all k
// rounds, so a round's ten instructions cost the lanes' time, not three
// SRAM lines a vreg each (the whole-array kernel spent 2,812 of its 6,952
// cycles on a top 5 of f32[64,1000] waiting for banks). Each chunk's rows
// arrive by a DMA of their own, in order on one engine, and its first
// instruction waits for them, so the later chunks' loads overlap the
// earlier chunks' rounds. The constants (31, the magnitude mask, the
// smallest key, the past-the-row position) are one element each, read
// through views of stride 0.

// topKRegPlan places a chunk of rows in the vector registers: [rows, n]
// keys, positions and candidates (s32), two masks (pred), and [rows, 1]
// columns.
type topKRegPlan struct {
	rows                 int64 // rows a chunk
	key, pos, cand       int64
	eq, hit              int64
	mx, idx, tmp         int64
	c31, cmask, cmin, cb int64 // SRAM: the constants
	vals, outVals        int64 // SRAM: the input rows, the results
	outIdx               int64
}

// planTopKRegs fits a chunk of at least one row of n keys in vregBytes,
// or returns false.
func planTopKRegs(rows, n, k, vregBytes int64) (*topKRegPlan, bool) {
	per := align64(4*n)*3 + align64(n)*2 + 3*64
	cr := min(vregBytes/per, rows)
	if cr < 1 {
		return nil, false
	}
	p := &topKRegPlan{rows: cr}
	var v sramLayout
	p.key, p.pos, p.cand = v.take(4*cr*n), v.take(4*cr*n), v.take(4*cr*n)
	p.eq, p.hit = v.take(cr*n), v.take(cr*n)
	p.mx, p.idx, p.tmp = v.take(4*cr), v.take(4*cr), v.take(4*cr)
	if v.end > vregBytes {
		return nil, false
	}
	var s sramLayout
	p.c31, p.cmask, p.cmin, p.cb = s.take(4), s.take(4), s.take(4), s.take(4)
	p.vals, p.outVals, p.outIdx = s.take(4*rows*n), s.take(4*rows*k), s.take(4*rows*k)
	return p, true
}

// topKInRegisters emits the top-k kernel of in (x: the rows, vals and
// idxs: the results) a chunk of rows at a time in the vector registers.
func (c *compiler) topKInRegisters(in *hlo.Instruction, x, vals, idxs *value, p *topKRegPlan, rows, n, k int64, largest bool) {
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	s32, pred := isa.S32, isa.Pred
	reg := func(at int64, dt isa.DType, r, cols int64) string {
		return fmt.Sprintf("vreg[%d]:%s[%d,%d]", at, dt, r, cols)
	}
	// A constant read as [r, cols] (stride 0), a column read across the
	// row (stride 0 along it).
	konst := func(at, r, cols int64) string { return fmt.Sprintf("sram[%d]:s32[%d,%d]{0,0}", at, r, cols) }
	across := func(at, r int64) string { return fmt.Sprintf("vreg[%d]:s32[%d,%d]{1,0}", at, r, n) }
	emit("semset  s1, 0")
	emit("vfill   sram[%d]:s32[1], 31", p.c31)
	emit("vfill   sram[%d]:s32[1], 2147483647", p.cmask)
	emit("vfill   sram[%d]:s32[1], -2147483648", p.cmin)
	emit("vfill   sram[%d]:s32[1], %d", p.cb, n)
	esz := int64(x.dt.Size())
	for r0 := int64(0); r0 < rows; r0 += p.rows {
		cr := min(p.rows, rows-r0)
		emit("dma     sram[%d]:%s[%d,%d], hbm[%s+%d]:%s[%d,%d] @0 signal s1", p.vals+r0*n*esz, x.dt, cr, n, x.tensor, r0*n*esz, x.dt, cr, n)
	}
	for r0 := int64(0); r0 < rows; r0 += p.rows {
		cr := min(p.rows, rows-r0)
		key, pos, cand := reg(p.key, s32, cr, n), reg(p.pos, s32, cr, n), reg(p.cand, s32, cr, n)
		eq, hit := reg(p.eq, pred, cr, n), reg(p.hit, pred, cr, n)
		mx, idx, tmp := reg(p.mx, s32, cr, 1), reg(p.idx, s32, cr, 1), reg(p.tmp, s32, cr, 1)
		src := fmt.Sprintf("sram[%d]:s32[%d,%d]", p.vals+r0*n*esz, cr, n)
		// The keys (topKKernel's): a float's bits, the magnitude bits of
		// negatives flipped; complemented for the smallest.
		if x.dt == isa.F32 {
			flipKeys(emit, key, src, cand, konst(p.c31, cr, n), konst(p.cmask, cr, n), " wait s1:1")
		} else {
			emit("vcopy   %s, %s wait s1:1", key, src)
		}
		if !largest {
			emit("vnot    %s, %s", key, key)
		}
		emit("viota   %s, 1", pos)
		for r := range k {
			emit("vrmax   %s, %s", mx, key)
			emit("vcmp.eq %s, %s, %s", eq, key, across(p.mx, cr))
			emit("vcopy   %s, %s", cand, konst(p.cb, cr, n))
			emit("vsel    %s, %s, %s", cand, eq, pos)
			emit("vrmin   %s, %s", idx, cand)
			emit("vcmp.eq %s, %s, %s", hit, pos, across(p.idx, cr))
			emit("vsel    %s, %s, %s", key, hit, konst(p.cmin, cr, n))
			emit("vsel    %s, %s, %s", pos, hit, konst(p.cb, cr, n))
			at := 4 * (r0*k + r)
			emit("vcopy   sram[%d]:s32[%d,1]{%d,1}, %s", p.outIdx+at, cr, k, idx)
			if !largest {
				emit("vnot    %s, %s", mx, mx)
			}
			if x.dt == isa.F32 {
				flipKeys(emit, mx, mx, tmp, konst(p.c31, cr, 1), konst(p.cmask, cr, 1), "")
			}
			emit("vcopy   sram[%d]:s32[%d,1]{%d,1}, %s", p.outVals+at, cr, k, mx)
		}
	}
	emit("barrier")
	emit("dma     hbm[%s+0]:%s[%d,%d], sram[%d]:%s[%d,%d] @0", vals.tensor, vals.dt, rows, k, p.outVals, vals.dt, rows, k)
	emit("dma     hbm[%s+0]:s32[%d,%d], sram[%d]:s32[%d,%d] @%d", idxs.tensor, rows, k, p.outIdx, rows, k, min(1, max(c.chip.DMA.Engines, 1)-1))
	emit("barrier")
}
