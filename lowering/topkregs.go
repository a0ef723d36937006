package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// On a chip with a vector register file the top-k selection runs a chunk
// of rows at a time in registers, as a tournament over columns:
//
//   - Each element becomes one s64 key, unique in its row: its s32 key
//     (topKKernel's total order) in the high half, n minus its position in
//     the low half, so a larger key wins and of equal keys the lower
//     position does. The halves are written through strided s32 views, so
//     building the keys costs s32 work; no key equals the smallest s64,
//     which marks a retired element (and pads the row).
//   - The row is cut into G groups of w columns. A sorting network over the
//     groups, elementwise (vmax and vmin of [rows, w] views), leaves
//     column j's G keys in order: T1[j] >= T2[j] >= ... >= TG[j].
//   - Each round takes every row's largest key from T1 alone (vrmax over w
//     columns, not n) and moves the column it came from up by one (T1 <-
//     T2 ...), a vsel per level still needed by the rounds left.
//
// So a round costs a few passes over w columns, where a selection over
// the whole row (the previous kernel) cost ten passes over n, two of them
// reductions for the largest key and then the lowest position holding it.
// G is the one with the fewest element passes for this n and k (planned
// in planTopKRegs by the vector unit's cycles; 4 for a top 5 of f32[64,1000]). The result comes back from
// the key: the position from the low half, the value from the high.
// Each chunk's rows arrive by a DMA of their own, in order on one engine,
// so the later chunks' loads overlap the earlier chunks' rounds. The
// constants (31, the magnitude mask, the smallest key, n) are one element
// each, read through views of stride 0; n minus each position is one row
// built once and read with a row stride of 0.

// topKRegPlan places a chunk of rows in the vector registers.
type topKRegPlan struct {
	rows      int64    // rows a chunk
	groups, w int64    // G groups of w columns (G*w >= n)
	compare   [][2]int // the sorting network over the groups: larger to the first
	cost      int64    // the vector unit's cycles (topKCost): the choice of G

	keys, spare   int64 // vreg: the [rows, G*w] keys, and one [rows, w] group for the network
	eq, mx, tmp   int64 // vreg: the [rows, w] mask, the [rows, 1] s64 maxima, an s32 column
	chunkVals     int64 // vreg: the chunk's [rows, k] results, written to SRAM once a chunk
	chunkIdx      int64
	c31, cmask, n int64 // vreg: constants
	kmin          int64 // vreg: the smallest s64
	rev           int64 // SRAM: [n] n minus each position
	vals, outVals int64 // SRAM: the input rows, the results
	outIdx        int64
}

// sortingNetworks are comparator networks that leave their wires in order
// (wire 0 the largest): Batcher's odd-even merge sorts.
var sortingNetworks = map[int64][][2]int{
	1: nil,
	2: {{0, 1}},
	4: {{0, 1}, {2, 3}, {0, 2}, {1, 3}, {1, 2}},
	8: {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {1, 2}, {5, 6},
		{0, 4}, {1, 5}, {2, 6}, {3, 7}, {2, 4}, {3, 5}, {1, 2}, {3, 4}, {5, 6}},
}

// topKLevels is how many levels (T1, T2, ...) round r of k must move up
// after taking its key: those the rounds left can still reach.
func topKLevels(groups, k, r int64) int64 {
	if r == k-1 {
		return 0
	}
	return min(groups, k-r)
}

// topKCost is the vector unit's cycles for a chunk of rows of n with G
// groups of w, each instruction ceil(elements / lanes) passes (s64 ones
// two): the keys built (four s32 passes over n), two s64 instructions a
// comparator, and a round's vrmax, vcmp and vsels over w.
func topKCost(rows, n, k, groups, w, lanes int64) int64 {
	pass := func(cols int64) int64 { return (rows*cols + lanes - 1) / lanes }
	cost := 4*pass(n) + 2*2*pass(w)*int64(len(sortingNetworks[groups]))
	for r := range k {
		cost += 2 * pass(w)
		if l := topKLevels(groups, k, r); l > 0 {
			cost += 2*pass(w) + 2*pass(w)*l
		}
	}
	return cost
}

// planTopKRegs picks the groups with the fewest cycles whose chunk of at
// least one row fits vregBytes, or returns false.
func planTopKRegs(rows, n, k, vregBytes, lanes int64) (*topKRegPlan, bool) {
	var best *topKRegPlan
	for _, g := range []int64{1, 2, 4, 8} {
		if g > n {
			break
		}
		p, ok := fitTopKRegs(rows, n, k, g, vregBytes)
		if !ok {
			continue
		}
		for _, ch := range topKChunks(rows, p.rows) {
			p.cost += topKCost(ch[1], n, k, g, p.w, max(lanes, 1))
		}
		if best == nil || p.cost < best.cost {
			best = p
		}
	}
	return best, best != nil
}

// fitTopKRegs lays out the registers and SRAM of G groups, the most rows
// a chunk that fit.
func fitTopKRegs(rows, n, k, groups, vregBytes int64) (*topKRegPlan, bool) {
	p := &topKRegPlan{groups: groups, w: (n + groups - 1) / groups, compare: sortingNetworks[groups]}
	width := groups * p.w
	per := align64(8*width) + align64(8*p.w) + align64(p.w) + 2*64 + 2*align64(4*k)
	cr := min(vregBytes/per, rows)
	for ; cr >= 1; cr-- {
		var v regLayout
		p.keys, p.spare, p.eq = v.take(8*cr*width), v.take(8*cr*p.w), v.take(cr*p.w)
		p.mx, p.tmp = v.take(8*cr), v.take(4*cr)
		p.chunkVals, p.chunkIdx = v.take(4*cr*k), v.take(4*cr*k)
		p.c31, p.cmask, p.n, p.kmin = v.take(4), v.take(4), v.take(4), v.take(8)
		if v.end <= vregBytes {
			break
		}
	}
	if cr < 1 {
		return nil, false
	}
	p.rows = cr
	var s sramLayout
	p.rev = s.take(4 * n)
	p.vals, p.outVals, p.outIdx = s.take(4*rows*n), s.take(4*rows*k), s.take(4*rows*k)
	return p, true
}

// topKChunks cuts rows into chunks of at most per rows, [first row,
// rows] each: the first a quarter of the others, so that the vector unit
// starts once a few rows have arrived rather than a whole chunk.
func topKChunks(rows, per int64) [][2]int64 {
	var out [][2]int64
	first := max(per/4, 1)
	for r0 := int64(0); r0 < rows; {
		cr := min(per, rows-r0)
		if r0 == 0 {
			cr = min(first, rows)
		}
		out = append(out, [2]int64{r0, cr})
		r0 += cr
	}
	return out
}

// topKInRegisters emits the top-k kernel of in (x: the rows, vals and
// idxs: the results) a chunk of rows at a time in the vector registers.
func (c *compiler) topKInRegisters(in *hlo.Instruction, x, vals, idxs *value, p *topKRegPlan, rows, n, k int64, largest bool) {
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	G, w := p.groups, p.w
	width := G * w
	// A constant read as [r, cols] (stride 0); a column read across w.
	konst := func(at, r, cols int64) string { return fmt.Sprintf("vreg[%d]:s32[%d,%d]{0,0}", at, r, cols) }
	emit("semset  s1, 0")
	emit("vfill   vreg[%d]:s32[1], 31", p.c31)
	emit("vfill   vreg[%d]:s32[1], 2147483647", p.cmask)
	emit("vfill   vreg[%d]:s32[1], %d", p.n, n)
	emit("vfill   vreg[%d]:s32[1], 0", p.kmin)
	emit("vfill   vreg[%d]:s32[1], -2147483648", p.kmin+4)
	emit("viota   sram[%d]:s32[%d], 0", p.rev, n)
	emit("vsub    sram[%d]:s32[%d], %s, sram[%d]:s32[%d]", p.rev, n, fmt.Sprintf("vreg[%d]:s32[%d]{0}", p.n, n), p.rev, n)
	esz := int64(x.dt.Size())
	chunks := topKChunks(rows, p.rows)
	for _, ch := range chunks {
		r0, cr := ch[0], ch[1]
		emit("dma     sram[%d]:%s[%d,%d], hbm[%s+%d]:%s[%d,%d] @0 signal s1", p.vals+r0*n*esz, x.dt, cr, n, x.tensor, r0*n*esz, x.dt, cr, n)
	}
	for _, ch := range chunks {
		r0, cr := ch[0], ch[1]
		src := fmt.Sprintf("sram[%d]:s32[%d,%d]", p.vals+r0*n*esz, cr, n)
		hi := fmt.Sprintf("vreg[%d]:s32[%d,%d]{%d,2}", p.keys+4, cr, n, 2*width)
		lo := fmt.Sprintf("vreg[%d]:s32[%d,%d]{%d,2}", p.keys, cr, n, 2*width)
		// The high halves: the s32 keys (the low halves hold the flip's
		// mask for a moment).
		if x.dt == isa.F32 {
			flipKeys(emit, hi, src, lo, konst(p.c31, cr, n), konst(p.cmask, cr, n), " wait s1:1")
		} else {
			emit("vcopy   %s, %s wait s1:1", hi, src)
		}
		if !largest {
			emit("vnot    %s, %s", hi, hi)
		}
		emit("vcopy   %s, sram[%d]:s32[%d,%d]{0,1}", lo, p.rev, cr, n)
		if width > n {
			emit("vcopy   vreg[%d]:s64[%d,%d]{%d,1}, vreg[%d]:s64[%d,%d]{0,0}", p.keys+8*n, cr, width-n, width, p.kmin, cr, width-n)
		}
		// The network: level j's [cr, w] keys live in group j's columns
		// or, after a comparator moved them, in the spare group.
		level := make([]string, G)
		for g := range level {
			level[g] = fmt.Sprintf("vreg[%d]:s64[%d,%d]{%d,1}", p.keys+8*int64(g)*w, cr, w, width)
		}
		spare := fmt.Sprintf("vreg[%d]:s64[%d,%d]", p.spare, cr, w)
		for _, cmp := range p.compare {
			a, b := level[cmp[0]], level[cmp[1]]
			emit("vmin    %s, %s, %s", spare, a, b)
			emit("vmax    %s, %s, %s", a, a, b)
			level[cmp[1]], spare = spare, b
		}
		mx := fmt.Sprintf("vreg[%d]:s64[%d,1]", p.mx, cr)
		across := fmt.Sprintf("vreg[%d]:s64[%d,%d]{1,0}", p.mx, cr, w)
		eq := fmt.Sprintf("vreg[%d]:pred[%d,%d]", p.eq, cr, w)
		kmin := fmt.Sprintf("vreg[%d]:s64[%d,%d]{0,0}", p.kmin, cr, w)
		for r := range k {
			emit("vrmax   %s, %s", mx, level[0])
			if l := topKLevels(G, k, r); l > 0 {
				emit("vcmp.eq %s, %s, %s", eq, level[0], across)
				for j := range l {
					next := kmin
					if j+1 < G {
						next = level[j+1]
					}
					emit("vsel    %s, %s, %s", level[j], eq, next)
				}
			}
			// Round r's column of each result: the position from the
			// low half, the value from the high.
			emit("vsub    vreg[%d]:s32[%d,1]{%d,1}, %s, vreg[%d]:s32[%d,1]{2,1}", p.chunkIdx+4*r, cr, k, konst(p.n, cr, 1), p.mx, cr)
			key := fmt.Sprintf("vreg[%d]:s32[%d,1]{2,1}", p.mx+4, cr)
			if !largest {
				emit("vnot    %s, %s", key, key)
			}
			out := fmt.Sprintf("vreg[%d]:s32[%d,1]{%d,1}", p.chunkVals+4*r, cr, k)
			if x.dt == isa.F32 {
				flipKeys(emit, out, key, fmt.Sprintf("vreg[%d]:s32[%d,1]", p.tmp, cr), konst(p.c31, cr, 1), konst(p.cmask, cr, 1), "")
			} else {
				emit("vcopy   %s, %s", out, key)
			}
		}
		emit("vcopy   sram[%d]:s32[%d,%d], vreg[%d]:s32[%d,%d]", p.outIdx+4*r0*k, cr, k, p.chunkIdx, cr, k)
		emit("vcopy   sram[%d]:s32[%d,%d], vreg[%d]:s32[%d,%d]", p.outVals+4*r0*k, cr, k, p.chunkVals, cr, k)
	}
	emit("barrier")
	emit("dma     hbm[%s+0]:%s[%d,%d], sram[%d]:%s[%d,%d] @0", vals.tensor, vals.dt, rows, k, p.outVals, vals.dt, rows, k)
	emit("dma     hbm[%s+0]:s32[%d,%d], sram[%d]:s32[%d,%d] @%d", idxs.tensor, rows, k, p.outIdx, rows, k, min(1, max(c.chip.DMA.Engines, 1)-1))
	emit("barrier")
}
