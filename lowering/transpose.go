package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
)

// Transposes that move the innermost dimension: one strided DMA would
// read or write a single element per burst (a burst never crosses a
// contiguous run), under 2% of HBM bandwidth. Instead the kernel goes
// through SRAM as a TPU's does through its cross-lane unit: load a
// [tp, tq] tile whose rows are contiguous in HBM, xpose it into [tq, tp],
// store it with contiguous rows; two buffer sets so the next tile loads
// while this one is transposed and stored.
//
// It applies to permutations that are, once size-1 dimensions are dropped
// and dimensions that stay adjacent are merged, a batched 2-D transpose
// [B, P, Q] -> [B, Q, P] (NCHW <-> NHWC among them). The tiles divide P
// and Q, so three nested counted loops walk them with their HBM offsets in
// registers: r16-r21 (offsets of the batch, row and column loops),
// r22-r24 (counters); s0/s4 the sets' loads, s1/s5 their transposes,
// s2/s3 their stores.

// batchedTranspose returns B, P, Q when perm (output dim i is input dim
// perm[i]) of dims is a batched 2-D transpose that moves the last
// dimension.
func batchedTranspose(dims []int64, perm []int64) (B, P, Q int64, ok bool) {
	// Drop size-1 dimensions; renumber the rest.
	keep := map[int64]int64{}
	var in []int64
	for i, d := range dims {
		if d != 1 {
			keep[int64(i)] = int64(len(in))
			in = append(in, d)
		}
	}
	var p []int64
	for _, x := range perm {
		if k, ok := keep[x]; ok {
			p = append(p, k)
		}
	}
	// Merge output runs of consecutive input dims into groups.
	type grp struct{ first, size int64 }
	var groups []grp // in output order
	for i, x := range p {
		if i > 0 && x == p[i-1]+1 {
			groups[len(groups)-1].size *= in[x]
			continue
		}
		groups = append(groups, grp{x, in[x]})
	}
	switch {
	case len(groups) == 2 && groups[0].first > groups[1].first:
		return 1, groups[1].size, groups[0].size, true
	case len(groups) == 3 && groups[0].first < groups[2].first && groups[2].first < groups[1].first:
		return groups[0].size, groups[2].size, groups[1].size, true
	}
	return 0, 0, 0, false
}

// largestDivisor is the largest divisor of n not above limit.
func largestDivisor(n, limit int64) int64 {
	for d := min(n, limit); d > 1; d-- {
		if n%d == 0 {
			return d
		}
	}
	return 1
}

// transposeKernel emits the tiled transpose of x into out, or returns
// false when the strided DMA should do it (not a batched 2-D transpose,
// tiles that would be too thin, offsets beyond 32 bits).
func (c *compiler) transposeKernel(in *hlo.Instruction, x, out *value) bool {
	perm, _ := hlo.IntList(hlo.AttrOr(in, "dimensions", "{}"))
	B, P, Q, ok := batchedTranspose(x.shape.Dims, perm)
	if !ok {
		return false
	}
	esz := int64(x.dt.Size())
	if B*P*Q*esz >= 1<<31 {
		return false
	}
	// Four buffers (two sets of source and transposed tile) in the
	// streaming kernels' share of SRAM.
	budget := min(c.chip.Memory.SRAMBytes/2, 4<<20) / 4 / esz
	// Tiles of up to 512x512 elements, as square as the dimensions allow:
	// a narrow Q takes that many more rows (a decode GEMV's [4096, 8]
	// result in one tile, not eight of [512, 8], each of whose loads and
	// stores paid trn1nc's 1.3 us from semaphore to start in turn).
	tq := largestDivisor(Q, min(512, budget))
	tp := largestDivisor(P, min(512*512/tq, budget/tq))
	if tp*tq < 64 {
		return false // thin tiles: the strided DMA does as well
	}
	tileBytes := align64(tp * tq * esz)
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	loadEng, storeEng := 0, 0
	if c.chip.DMA.Engines > 1 {
		storeEng = 1
	}
	// A tile's load and store split into np pieces of rows (of the source
	// tile; columns of the transposed one) over the engines of a pool, as
	// the dot kernels' are: on trn1nc one engine moved a [4096, 8] bf16
	// tile at 29 GB/s, 2.3 us each way. Each set has its own semaphores
	// (loads sLoad, the transpose sXpose, stores sStored), so that no
	// wait takes a token of the other set's pieces, which land in their
	// engines' order.
	pool := dmaPool(c.chip.DMA.Engines, storeEng, 2)
	np := dmaPieces(tp, tq*esz, 1, len(pool))
	loadEngine, storeEngine := func() int { return loadEng }, func() int { return storeEng }
	if np > 1 {
		loadEngine, storeEngine = inTurn(pool), inTurn(pool)
	}
	sLoad, sXpose, sStored := [2]int{0, 4}, [2]int{1, 5}, [2]int{2, 3}
	for _, s := range []string{"s0, 0", "s1, 0", "s4, 0", "s5, 0", fmt.Sprintf("s2, %d", np), fmt.Sprintf("s3, %d", np)} {
		emit("semset  %s", s)
	}
	// tile moves one tile through set (0 or 1); dq is its column offset
	// (in tiles) from the loop registers' position, dp its row offset.
	// Each load piece waits for one store piece of the set's last tile
	// (whose stores begin only after its transpose has read the source
	// buffer); the transpose waits for every load piece, which took every
	// store's token, so the stores are done with the buffer it writes.
	tileAt := func(set, dq, dp int64) {
		src, dst := 2*set*tileBytes, (2*set+1)*tileBytes
		for _, q := range splitRows(tp, np) {
			emit("dma     sram[%d]:%s[%d,%d], hbm[r20+%s+%d]:%s[%d,%d]{%d,1} @%d wait s%d:1 signal s%d",
				src+q[0]*tq*esz, x.dt, q[1], tq, x.tensor, dq*tq*esz+(dp*tp+q[0])*Q*esz, x.dt, q[1], tq, Q, loadEngine(), sStored[set], sLoad[set])
		}
		emit("xpose   sram[%d]:%s[%d,%d], sram[%d]:%s[%d,%d] wait s%d:%d signal s%d:%d", dst, x.dt, tq, tp, src, x.dt, tp, tq, sLoad[set], np, sXpose[set], np)
		for _, q := range splitRows(tp, np) {
			emit("dma     hbm[r21+%s+%d]:%s[%d,%d]{%d,1}, sram[%d]:%s[%d,%d]{%d,1} @%d wait s%d:1 signal s%d",
				out.tensor, dq*tq*P*esz+(dp*tp+q[0])*esz, out.dt, tq, q[1], P, dst+q[0]*esz, out.dt, tq, q[1], tp, storeEngine(), sXpose[set], sStored[set])
		}
	}
	tile := func(set, dq int64) { tileAt(set, dq, 0) }
	c.nlabel++
	l := fmt.Sprintf("k%d_xp", c.nlabel)
	QT := Q / tq
	emit("li      r16, 0")
	emit("li      r17, 0")
	emit("li      r22, %d", B)
	fmt.Fprintf(&c.out, "%s_b:\n", l)
	emit("addi    r18, r16, 0")
	emit("addi    r19, r17, 0")
	PT := P / tp
	if QT == 1 && PT >= 2 {
		// One column of tiles: the two sets alternate down the rows, two
		// tiles a step, so that a tile loads while the last is stored.
		emit("li      r23, %d", PT/2)
		fmt.Fprintf(&c.out, "%s_p:\n", l)
		emit("addi    r20, r18, 0")
		emit("addi    r21, r19, 0")
		tileAt(0, 0, 0)
		tileAt(1, 0, 1)
		emit("addi    r18, r18, %d", 2*tp*Q*esz)
		emit("addi    r19, r19, %d", 2*tp*esz)
		emit("loop    r23, %s_p", l)
		if PT%2 == 1 {
			emit("addi    r20, r18, 0")
			emit("addi    r21, r19, 0")
			tile(0, 0)
		}
		emit("addi    r16, r16, %d", P*Q*esz)
		emit("addi    r17, r17, %d", P*Q*esz)
		emit("loop    r22, %s_b", l)
		return true
	}
	emit("li      r23, %d", PT)
	fmt.Fprintf(&c.out, "%s_p:\n", l)
	emit("addi    r20, r18, 0")
	emit("addi    r21, r19, 0")
	if QT >= 2 {
		emit("li      r24, %d", QT/2)
		fmt.Fprintf(&c.out, "%s_q:\n", l)
		tile(0, 0)
		tile(1, 1)
		emit("addi    r20, r20, %d", 2*tq*esz)
		emit("addi    r21, r21, %d", 2*tq*P*esz)
		emit("loop    r24, %s_q", l)
	}
	if QT%2 == 1 {
		tile(0, 0)
	}
	emit("addi    r18, r18, %d", tp*Q*esz)
	emit("addi    r19, r19, %d", tp*esz)
	emit("loop    r23, %s_p", l)
	emit("addi    r16, r16, %d", P*Q*esz)
	emit("addi    r17, r17, %d", P*Q*esz)
	emit("loop    r22, %s_b", l)
	return true
}
