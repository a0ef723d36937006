package lowering

import (
	"fmt"
	"slices"

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
	g, p := transposeGroups(dims, perm)
	switch {
	case slices.Equal(p, []int64{1, 0}):
		return 1, g[0], g[1], true
	case slices.Equal(p, []int64{0, 2, 1}):
		return g[0], g[1], g[2], true
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

// transposePlan is how one batched 2-D transpose [B, P, Q] -> [B, Q, P]
// moves through SRAM: tiles of [tp, tq], or, when one tile holds a whole
// [P, Q] matrix, nb matrices a tile (packed).
type transposePlan struct {
	B, P, Q int64
	tp, tq  int64
	nb      int64 // whole matrices a tile, when a tile holds one (packed)
}

// planBatchedTranspose sizes the tiles of a [B, P, Q] transpose of esz-byte
// elements, budget elements a buffer; false when the tiles would be too
// thin for the SRAM round trip to beat the strided DMA.
func planBatchedTranspose(B, P, Q, esz, budget int64) (transposePlan, bool) {
	if B*P*Q*esz >= 1<<31 {
		return transposePlan{}, false
	}
	// Tiles of up to 512x512 elements, as square as the dimensions allow:
	// a narrow Q takes that many more rows (a decode GEMV's [4096, 8]
	// result in one tile, not eight of [512, 8], each of whose loads and
	// stores paid trn1nc's 1.3 us from semaphore to start in turn).
	//
	// No tile takes more than an eighth of the array (down to
	// minTransposeTile elements): with one tile its load, transpose and
	// store run one after the other; with eight, xpSets of them overlap
	// and the cross-lane units take turns.
	//
	// Likewise a narrow P takes that many more columns: an NCHW image's 3
	// channels moved innermost went in tiles of [3, 512], each a round
	// trip for 6 KiB (MobileNet-v2's stem input, 13% of its roof).
	capElems := max(minTransposeTile, B*P*Q/(2*xpSets))
	tq := largestDivisor(Q, min(512, budget))
	if wide := min(512*512, capElems, budget) / max(P, 1); P < 512 && wide > tq {
		tq = largestDivisor(Q, wide) // whole rows of P a tile still
	}
	tp := largestDivisor(P, min(512*512/tq, budget/tq, max(1, capElems/tq)))
	if tp*tq < 64 {
		return transposePlan{}, false // thin tiles: the strided DMA does as well
	}
	pl := transposePlan{B: B, P: P, Q: Q, tp: tp, tq: tq, nb: 1}
	if tp == P && tq == Q && B > 1 {
		// Whole matrices: a tile takes several, so that a batch of small
		// ones (a [4, 256] block of each of 32) is a few transfers, not a
		// round trip each.
		pl.nb = largestDivisor(B, min(budget/(P*Q), 512*512/(P*Q), max(1, capElems/(P*Q))))
	}
	return pl, true
}

// minTransposeTile is the fewest elements a transpose tile is cut down to
// so that the array makes several tiles: below it a tile's fixed costs
// (the DMA's setup and latency each way, the xpose's latency) outweigh
// the overlap.
const minTransposeTile = 8192

// transposeBudget is the elements of one of a transpose's buffers (a
// source and a transposed tile for each of xpSets sets) in the streaming
// kernels' share of SRAM.
func (c *compiler) transposeBudget(esz int64) int64 {
	return min(c.chip.Memory.SRAMBytes/2, 8<<20) / (2 * xpSets) / esz
}

// xpSets is how many tiles a transpose keeps in flight: a small tile's
// round trip (a load's latency, the xpose's, a store's) is several times
// its transfer, so with two a 256 KiB transpose waited on latency.
const xpSets = 4

// maxUnrolledTiles bounds the tiles of a transpose emitted one by one,
// their offsets immediates and the sets taking them in turn; a larger one
// walks its tiles in loops, two sets alternating.
const maxUnrolledTiles = 64

// transposeKernel emits the transpose of x into out through SRAM, or
// returns false when the strided DMA should do it. A batched 2-D transpose
// is one pass; another permutation that moves the innermost dimension
// ([A, M, C] -> [C, M, A]: a convolution's weight gradient's f01b ->
// b01f) is two or three, through temporaries in HBM (transposeSteps):
// twice or three times the bytes of one pass, where the strided DMA moved
// an element a burst.
func (c *compiler) transposeKernel(in *hlo.Instruction, x, out *value) bool {
	perm, _ := hlo.IntList(hlo.AttrOr(in, "dimensions", "{}"))
	esz := int64(x.dt.Size())
	budget := c.transposeBudget(esz)
	if B, P, Q, ok := batchedTranspose(x.shape.Dims, perm); ok {
		pl, ok := planBatchedTranspose(B, P, Q, esz, budget)
		if !ok {
			return false
		}
		c.emitTranspose(in, x, out, pl)
		return true
	}
	steps, ok := transposeSteps(x.shape.Dims, perm)
	if !ok || !permMovesInnermost(x.shape.Dims, perm) {
		// One that keeps the innermost dimension innermost is a strided
		// DMA of whole runs of it: attention's head swap [B, S, H, D] ->
		// [B, H, S, D] moves D at a time, nearer its roof than several
		// passes through SRAM.
		return false
	}
	plans := make([]transposePlan, len(steps))
	for i, st := range steps {
		if plans[i], ok = planBatchedTranspose(st.B, st.P, st.Q, esz, budget); !ok {
			return false
		}
	}
	src := x
	for i, st := range steps {
		dst := out
		if i < len(steps)-1 {
			tmp, err := c.alloc(in, &hlo.Shape{Elem: x.shape.Elem, Dims: st.dims}, "")
			if err != nil {
				return false
			}
			dst = tmp
		}
		if i > 0 {
			c.loc(in)
			fmt.Fprintf(&c.out, "        barrier\n") // this pass reads what the last stored
		}
		c.emitTranspose(in, src, dst, plans[i])
		if src != x {
			defer c.heap.release(src.tensor) // only this kernel reads it
		}
		src = dst
	}
	return true
}

// transposeStep is one pass of a transpose done in several: a batched 2-D
// transpose [B, P, Q] -> [B, Q, P], and the dims of the array it makes.
type transposeStep struct {
	B, P, Q int64
	dims    []int64
}

// maxTransposePasses bounds the passes of a transpose done in several:
// each moves the whole array through SRAM and back.
const maxTransposePasses = 3

// transposeSteps decomposes a permutation of dims (output dim i is input
// dim perm[i]) into the fewest batched 2-D transposes, at most
// maxTransposePasses: a breadth-first search over the orders of the
// permutation's groups (size-1 dimensions dropped, dimensions that stay
// adjacent merged; at most six), an edge wherever one order is a batched
// 2-D transpose of the other, the orders tried in lexicographic order so
// that the result is deterministic. False when there is no such path.
func transposeSteps(dims, perm []int64) ([]transposeStep, bool) {
	g, p := transposeGroups(dims, perm)
	n := len(g)
	if n < 2 || n > 6 {
		return nil, false
	}
	var orders [][]int64
	for o := identityOrder(n); ; {
		orders = append(orders, slices.Clone(o))
		if !nextPermutation(o) {
			break
		}
	}
	key := func(o []int64) string { return fmt.Sprint(o) }
	sizes := func(o []int64) []int64 {
		h := make([]int64, n)
		for i, k := range o {
			h[i] = g[k]
		}
		return h
	}
	// edge returns the batched transpose taking order a to order b.
	edge := func(a, b []int64) (transposeStep, bool) {
		perm := make([]int64, n) // b's dims as a's
		for j, k := range b {
			perm[j] = int64(slices.Index(a, k))
		}
		B, P, Q, ok := batchedTranspose(sizes(a), perm)
		return transposeStep{B: B, P: P, Q: Q, dims: sizes(b)}, ok
	}
	type node struct {
		order []int64
		steps []transposeStep
	}
	seen := map[string]bool{key(orders[0]): true}
	frontier := []node{{order: orders[0]}}
	for pass := 1; pass <= maxTransposePasses; pass++ {
		var next []node
		for _, at := range frontier {
			for _, o := range orders {
				if seen[key(o)] {
					continue
				}
				st, ok := edge(at.order, o)
				if !ok {
					continue
				}
				steps := append(slices.Clone(at.steps), st)
				if slices.Equal(o, p) {
					return steps, true
				}
				seen[key(o)] = true
				next = append(next, node{o, steps})
			}
		}
		frontier = next
	}
	return nil, false
}

func identityOrder(n int) []int64 {
	o := make([]int64, n)
	for i := range o {
		o[i] = int64(i)
	}
	return o
}

// permMovesInnermost reports whether a permutation of dims takes the
// innermost dimension that is not of size 1 elsewhere.
func permMovesInnermost(dims, perm []int64) bool {
	_, p := transposeGroups(dims, perm)
	return len(p) > 0 && p[len(p)-1] != int64(len(p)-1)
}

// transposeGroups is a permutation's groups: the sizes of the runs of
// input dimensions (size-1 ones dropped) that stay adjacent in the output,
// in input order, and the output's order of them.
func transposeGroups(dims, perm []int64) (sizes, order []int64) {
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
	// Runs in output order, each starting at input dim first.
	type run struct{ first, size int64 }
	var runs []run
	for i, x := range p {
		if i > 0 && x == p[i-1]+1 {
			runs[len(runs)-1].size *= in[x]
			continue
		}
		runs = append(runs, run{x, in[x]})
	}
	byInput := slices.Clone(runs)
	slices.SortFunc(byInput, func(a, b run) int { return int(a.first - b.first) })
	for _, r := range byInput {
		sizes = append(sizes, r.size)
	}
	for _, r := range runs {
		order = append(order, int64(slices.IndexFunc(byInput, func(b run) bool { return b.first == r.first })))
	}
	return sizes, order
}

// nextPermutation steps p to the next permutation in lexicographic order;
// false after the last.
func nextPermutation(p []int64) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}

// emitTranspose emits one planned batched 2-D transpose of x into out.
func (c *compiler) emitTranspose(in *hlo.Instruction, x, out *value, pl transposePlan) {
	if pl.tiles() <= maxUnrolledTiles {
		c.emitUnrolledTranspose(in, x, out, pl)
		return
	}
	if pl.tp == pl.P && pl.tq == pl.Q && pl.B > 1 {
		c.emitPackedTranspose(in, x, out, pl)
		return
	}
	B, P, Q, tp, tq := pl.B, pl.P, pl.Q, pl.tp, pl.tq
	esz := int64(x.dt.Size())
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
		wait := pieceWaits(emit, sStored[set], np)
		for _, q := range splitRows(tp, np) {
			emit("dma     sram[%d]:%s[%d,%d], hbm[r20+%s+%d]:%s[%d,%d]{%d,1} @%d%s signal s%d",
				src+q[0]*tq*esz, x.dt, q[1], tq, x.tensor, dq*tq*esz+(dp*tp+q[0])*Q*esz, x.dt, q[1], tq, Q, loadEngine(), wait, sLoad[set])
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
		return
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
}

// emitPackedTranspose emits a [B, P, Q] transpose whose tiles each hold nb
// whole [P, Q] matrices: a tile loads as one contiguous block (in pieces
// over the engines of a pool), the cross-lane unit transposes its
// matrices one by one, and it stores as one contiguous block; the two
// buffer sets alternate tile by tile. The xposes run in order on one
// unit: the first waits for every load piece, the store for all nb
// transposes, and it returns as many tokens as the set's next loads take.
func (c *compiler) emitPackedTranspose(in *hlo.Instruction, x, out *value, pl transposePlan) {
	P, Q, nb := pl.P, pl.Q, pl.nb
	esz := int64(x.dt.Size())
	mat := P * Q * esz // one matrix's bytes
	tileBytes := align64(nb * mat)
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	pool := dmaPool(c.chip.DMA.Engines, -1, -1)
	np := dmaPieces(nb*P, Q*esz, 1, len(pool))
	loadEngine := inTurn(pool)
	storeEngine := func(set int64) int { return pool[int(set)%len(pool)] }
	sLoad, sXpose, sStored := [2]int{0, 4}, [2]int{1, 5}, [2]int{2, 3}
	for _, s := range []string{"s0, 0", "s1, 0", "s4, 0", "s5, 0", fmt.Sprintf("s2, %d", np), fmt.Sprintf("s3, %d", np)} {
		emit("semset  %s", s)
	}
	// tileAt moves the nb matrices at r16 plus k tiles through set.
	tileAt := func(set, k int64) {
		src, dst := 2*set*tileBytes, (2*set+1)*tileBytes
		at := k * nb * mat
		wait := pieceWaits(emit, sStored[set], np)
		for _, q := range splitRows(nb*P, np) {
			emit("dma     sram[%d]:%s[%d,%d], hbm[r16+%s+%d]:%s[%d,%d]{%d,1} @%d%s signal s%d",
				src+q[0]*Q*esz, x.dt, q[1], Q, x.tensor, at+q[0]*Q*esz, x.dt, q[1], Q, Q, loadEngine(), wait, sLoad[set])
		}
		for b := int64(0); b < nb; b++ {
			wait := ""
			if b == 0 {
				wait = fmt.Sprintf(" wait s%d:%d", sLoad[set], np)
			}
			emit("xpose   sram[%d]:%s[%d,%d], sram[%d]:%s[%d,%d]%s signal s%d",
				dst+b*mat, x.dt, Q, P, src+b*mat, x.dt, P, Q, wait, sXpose[set])
		}
		emit("dma     hbm[r16+%s+%d]:%s[%d,%d]{%d,1}, sram[%d]:%s[%d,%d]{%d,1} @%d wait s%d:%d signal s%d:%d",
			out.tensor, at, out.dt, nb*Q, P, P, dst, out.dt, nb*Q, P, P, storeEngine(set), sXpose[set], nb, sStored[set], np)
	}
	c.nlabel++
	l := fmt.Sprintf("k%d_xb", c.nlabel)
	BT := pl.B / nb
	emit("li      r16, 0")
	if BT >= 2 {
		emit("li      r23, %d", BT/2)
		fmt.Fprintf(&c.out, "%s:\n", l)
		tileAt(0, 0)
		tileAt(1, 1)
		emit("addi    r16, r16, %d", 2*nb*mat)
		emit("loop    r23, %s", l)
	}
	if BT%2 == 1 {
		tileAt(0, 0)
	}
}

// tiles is how many tiles the plan moves.
func (pl transposePlan) tiles() int64 {
	if pl.tp == pl.P && pl.tq == pl.Q {
		return pl.B / max(pl.nb, 1)
	}
	return pl.B * (pl.P / pl.tp) * (pl.Q / pl.tq)
}

// emitUnrolledTranspose emits every tile of a plan in turn, each with its
// own offsets, the sets (up to xpSets; semaphores s3i load, s3i+1
// transposed, s3i+2 stored) taking them round robin, so that up to xpSets
// tiles are between their load and their store at once. A tile holds nm
// matrices of [tp, tq] (nm > 1 only when each is whole, so that its load
// and store stay one contiguous block); the xposes run in order on one
// unit, the first waiting for every load piece. With one matrix its store
// goes in pieces as its load (each piece waits for a token of the xpose);
// with several, in one piece that waits for them all.
func (c *compiler) emitUnrolledTranspose(in *hlo.Instruction, x, out *value, pl transposePlan) {
	B, P, Q, tp, tq := pl.B, pl.P, pl.Q, pl.tp, pl.tq
	nm := int64(1)
	if tp == P && tq == Q {
		nm = max(pl.nb, 1)
	}
	esz := int64(x.dt.Size())
	tileBytes := align64(nm * tp * tq * esz)
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	type tile struct{ src, dst int64 } // element offsets
	var tiles []tile
	for b := int64(0); b < B; b += nm {
		for p := int64(0); p < P; p += tp {
			for q := int64(0); q < Q; q += tq {
				tiles = append(tiles, tile{b*P*Q + p*Q + q, b*P*Q + q*P + p})
			}
		}
	}
	sets := int64(min(xpSets, len(tiles)))
	// Loads and stores on engines of their own: a store waits for its
	// tile's transposes, and a load queued behind it on one engine would
	// wait with it.
	loadPool, storePool := []int{0}, []int{0}
	if n := c.chip.DMA.Engines; n > 1 {
		loadPool, storePool = nil, nil
		for e := range n {
			if e%2 == 0 {
				loadPool = append(loadPool, e)
			} else {
				storePool = append(storePool, e)
			}
		}
	}
	np := dmaPieces(nm*tp, tq*esz, 1, len(loadPool))
	storePieces := np
	if nm > 1 {
		storePieces = 1
	}
	loadEngine, storeEngine := inTurn(loadPool), inTurn(storePool)
	// The sets' tiles go to the cross-lane units in turn (a tile's
	// xposes stay on one, in order).
	xlus := int64(max(c.chip.XLU.Count, 1))
	sLoad := func(set int64) int64 { return 3 * set }
	sXpose := func(set int64) int64 { return 3*set + 1 }
	sStored := func(set int64) int64 { return 3*set + 2 }
	for set := range sets {
		emit("semset  s%d, 0", sLoad(set))
		emit("semset  s%d, 0", sXpose(set))
		emit("semset  s%d, %d", sStored(set), np)
	}
	for i, t := range tiles {
		set := int64(i) % sets
		src, dst := 2*set*tileBytes, (2*set+1)*tileBytes
		// Loads: [nm*tp, tq] rows of the source, Q apart.
		wait := pieceWaits(emit, int(sStored(set)), np)
		for _, r := range splitRows(nm*tp, np) {
			emit("dma     sram[%d]:%s[%d,%d], hbm[%s+%d]:%s[%d,%d]{%d,1} @%d%s signal s%d",
				src+r[0]*tq*esz, x.dt, r[1], tq, x.tensor, (t.src+r[0]*Q)*esz, x.dt, r[1], tq, Q, loadEngine(), wait, sLoad(set))
		}
		for m := range nm {
			wait := ""
			if m == 0 {
				wait = fmt.Sprintf(" wait s%d:%d", sLoad(set), np)
			}
			sig := int64(1)
			if nm == 1 {
				sig = storePieces
			}
			emit("xpose   sram[%d]:%s[%d,%d], sram[%d]:%s[%d,%d] @%d%s signal s%d:%d",
				dst+m*tp*tq*esz, x.dt, tq, tp, src+m*tp*tq*esz, x.dt, tp, tq, set%xlus, wait, sXpose(set), sig)
		}
		// Stores: [nm*tq, tp] rows of the result, P apart.
		if nm > 1 {
			emit("dma     hbm[%s+%d]:%s[%d,%d]{%d,1}, sram[%d]:%s[%d,%d]{%d,1} @%d wait s%d:%d signal s%d:%d",
				out.tensor, t.dst*esz, out.dt, nm*tq, tp, P, dst, out.dt, nm*tq, tp, tp, storeEngine(), sXpose(set), nm, sStored(set), np)
			continue
		}
		for _, r := range splitRows(tp, np) {
			emit("dma     hbm[%s+%d]:%s[%d,%d]{%d,1}, sram[%d]:%s[%d,%d]{%d,1} @%d wait s%d:1 signal s%d",
				out.tensor, (t.dst+r[0])*esz, out.dt, tq, r[1], P, dst+r[0]*esz, out.dt, tq, r[1], tp, storeEngine(), sXpose(set), sStored(set))
		}
	}
}

// pieceWaits orders a tile's np load pieces after its set's last stores
// (np tokens on sem): on one engine (np == 1) the load waits for its
// token itself; split over engines, the sequencer takes all np before
// it issues the pieces, which then wait for nothing. A piece waiting for
// one token on each engine lets an engine that runs ahead take the token
// of another engine's piece for its next tile: that tile's transpose then
// starts with a piece unloaded, or the pieces deadlock.
func pieceWaits(emit func(string, ...any), sem int, np int64) string {
	if np <= 1 {
		return fmt.Sprintf(" wait s%d:1", sem)
	}
	emit("wait    s%d, %d", sem, np)
	return ""
}
