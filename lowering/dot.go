package lowering

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Dot kernels: a dot (alone or as the root of a kOutput fusion's epilogue)
// on the MXUs. The operands are viewed as lhs[B, M, K] and rhs[B, K, N]
// through DMA strides, each read in its own contiguous rows (operandPaths:
// an rhs contracting on its minor dim is loaded transposed, a transposed
// lhs goes through the XLU), the output as [B, M, N]. For each batch,
// block of MB rows and group of one part per MXU (dotParts: a column tile,
// or a share of the rows when the columns are few):
//
//   - for each k-step the sequencer takes a token per MXU (sems.Free(i),
//     NSET preloaded: one per buffer set), the lhs panel [MB, Kt] (unless
//     the block's panel is resident in SRAM and loaded already) and the
//     MXUs' rhs tiles [Kt, Nt] are loaded into one of NSET buffer sets,
//     signalling that set's semaphores (semPanel, semRhs), and MXU i loads
//     its tile as weights (waits semRhs) and streams the panel into its
//     accumulator region (mm on the first step, mma after; the first
//     stream waits semPanel; the last signals sems.Free(i), returning the
//     token);
//   - at the end of the group the sequencer drains the MXUs (waits for all
//     NSET tokens and puts them back) and dispatches the epilogue: per
//     column tile, the fused elementwise ops on the vector unit, reading the
//     accumulator, with their operands loaded by DMA (signal s15), the last
//     op signalling s14, and the store (waits s14, signals s13).
//
// Accumulator regions and epilogue buffers alternate between even and odd
// groups, so group g's epilogue runs while group g+1 computes; before group
// g+2 reuses them the sequencer waits for group g's stores (s13).

// defaultSets is how many buffer sets a dot kernel cycles through: loads
// run that many K tiles ahead of the MXUs. A chip whose DMA engines are
// capped (each moves less than HBM: trn1nc's 29 GB/s with 1.3 us of setup
// a descriptor) gets deepSets, so that the loads' latency is hidden, or
// sharedSets where one semaphore per set is enough (sharedSems): a 32 KiB
// weight tile takes 2.4 us to arrive there, and a 1024-row stream under it
// 0.37 us, so six sets left the MXU waiting 40% of the time.
const (
	defaultSets = 3
	deepSets    = 6
	sharedSets  = 12
)

// streamTile is the streamed dimension of an MXU tile on an output- or
// input-stationary array (K for os, N for is): long enough that a fold's
// fill and drain are small beside it.
const streamTile = 512

// loopCounter and the first register of a row-block loop's offsets
// (r25-r27 run the K loop, r28-r29 load scalars, r1-r3 and r30 belong to
// other kernels); a column-group loop nested in a batch loop counts in
// innerCounter and keeps its offsets from firstInnerReg up to (not
// including) firstLoopReg.
const (
	loopCounter   = 24
	firstLoopReg  = 16
	innerCounter  = 7
	firstInnerReg = 8
)

// rowLoop is a counted loop over row blocks of a dot kernel: iters
// iterations of period blocks, each access that advances with the rows
// offset by a register (one per distinct advance in bytes per row).
type rowLoop struct {
	iters, period int64
	regOf         map[int64]int // bytes per row -> register
	inits         []int         // the registers, in order
	step          map[int]int64 // register -> bytes per iteration
	counter       int           // the register counting iterations

	// A column-group loop nested in a batch loop (nestedColGroupLoop)
	// has a register per access advancing with the columns, by (bytes
	// per batch, bytes per column); each starts at the batch loop's
	// register for its bytes per batch (from), or at 0.
	regOf2 map[[2]int64]int
	from   map[int]int
}

func (l *rowLoop) reg(bytesPerRow int64) string {
	if r, ok := l.regOf[bytesPerRow]; ok {
		return fmt.Sprintf("r%d+", r)
	}
	return ""
}

// reg2 is the register of an access advancing by perB bytes per batch
// and perCol per column in a nested loop.
func (l *rowLoop) reg2(perB, perCol int64) string {
	if r, ok := l.regOf2[[2]int64{perB, perCol}]; ok {
		return fmt.Sprintf("r%d+", r)
	}
	return ""
}

// rowBlockLoop plans the loop over the full row blocks from m0, as many
// as 32-bit register offsets reach, or nil when fewer than two iterations
// would run. A row block is the groups of
// one block of mb rows; it leaves the buffer set advanced by its K tiles
// and the accumulator half by its groups, so period blocks bring both
// back to where they started.
func (c *compiler) rowBlockLoop(M, m0, mb, K, Kt, N, groupCols int64, ep *epilogue, lhsRow int64, osz int) *rowLoop {
	strides := []int64{lhsRow, ep.N * int64(osz)}
	for _, b := range ep.bufs { // in order: the registers are deterministic
		if ld := ep.loads[b.name]; ld != nil {
			strides = append(strides, ld.pM*int64(ld.v.dt.Size()))
		}
	}
	return planLoop(c.dotSets, (N+groupCols-1)/groupCols, (K+Kt-1)/Kt, (M-m0)/mb, mb, strides, true)
}

// planLoop plans a counted loop over units (row blocks, column groups,
// batches) of groups groups of nk K tiles each, of which avail remain: an
// iteration of period units brings the buffer set and the accumulator half
// back to where they started; each access advancing by a distinct stride
// (bytes per element of the unit: per elements a unit) gets a register from
// firstLoopReg. nil when fewer than two iterations would run, registers run
// out, or (unless capped, which shortens the loop instead) an offset would
// pass the 2 GiB a register reaches.
func planLoop(sets int, groups, nk, avail, per int64, strides []int64, capped bool) *rowLoop {
	period := int64(1)
	for (period*groups)%2 != 0 || (period*groups*nk)%int64(sets) != 0 {
		period++
	}
	l := &rowLoop{iters: avail / period, period: period, regOf: map[int64]int{}, step: map[int]int64{}, counter: loopCounter}
	for _, st := range strides {
		if _, ok := l.regOf[st]; ok || st == 0 {
			continue
		}
		r := firstLoopReg + len(l.inits)
		step := st * per * period
		if r >= loopCounter || st < 0 {
			return nil // out of registers: unrolled
		}
		if most := registerReach / step; most < l.iters {
			if !capped {
				return nil // beyond 32-bit offsets: unrolled
			}
			l.iters = most
		}
		l.regOf[st] = r
		l.inits = append(l.inits, r)
		l.step[r] = step
	}
	if l.iters < 2 {
		return nil
	}
	return l
}

// offReg gives the register ("rN+", or "" for none) that adds a loop's
// offset to an access advancing by the given bytes per batch, per row and
// per column.
type offReg func(perBatch, perRow, perCol int64) string

// colPipe is a column-group loop's registers and its step in columns,
// for keeping the dot's pipeline full across its boundaries.
type colPipe struct {
	reg  offReg
	step int64
}

// batchRuns finds runs of consecutive batches over which both operands'
// offsets advance by fixed steps dL and dR: all the batches when they do
// throughout, else runs of the innermost batch dimension (the same steps
// in every run); ok is false when there are none.
func batchRuns(lOff, rOff, bshape []int64) (run, dL, dR int64, ok bool) {
	B := int64(len(lOff))
	steps := func(run int64) (int64, int64, bool) {
		if run < 2 || B%run != 0 {
			return 0, 0, false
		}
		dl, dr := lOff[1]-lOff[0], rOff[1]-rOff[0]
		for r0 := int64(0); r0 < B; r0 += run {
			for j := int64(0); j < run; j++ {
				if lOff[r0+j] != lOff[r0]+j*dl || rOff[r0+j] != rOff[r0]+j*dr {
					return 0, 0, false
				}
			}
		}
		return dl, dr, true
	}
	if dl, dr, ok := steps(B); ok {
		return B, dl, dr, true
	}
	if n := len(bshape); n >= 2 {
		if dl, dr, ok := steps(bshape[n-1]); ok {
			return bshape[n-1], dl, dr, true
		}
	}
	return max(B, 1), 0, 0, false
}

// batchLoop plans the loop over batches from b0 (groups groups of nk K
// tiles each per batch), or nil when fewer than two iterations would run;
// each access that advances with the batch (the lhs, the rhs, the output,
// the epilogue's loads) is offset by a register per distinct advance in
// bytes per batch.
func (c *compiler) batchLoop(B, b0, groups, nk, lhsB, rhsB int64, ep *epilogue, outB int64) *rowLoop {
	strides := []int64{lhsB, rhsB, outB}
	for _, b := range ep.bufs { // in order: the registers are deterministic
		if ld := ep.loads[b.name]; ld != nil {
			strides = append(strides, ld.pB*int64(ld.v.dt.Size()))
		}
	}
	return planLoop(c.dotSets, groups, nk, B-b0, 1, strides, true)
}

// colGroupLoop plans the loop over the full column groups of a row block
// from n0 (groups of groupCols columns, nk K tiles each), or nil when
// fewer than two iterations would run. An iteration of period groups
// brings the buffer set and the accumulator half back to where they
// started; each access that advances with the columns (the rhs tiles, the
// output, the epilogue's loads) is offset by a register per distinct
// advance in bytes per column.
func (c *compiler) colGroupLoop(N, n0, groupCols, nk int64, ep *epilogue, rhsCol int64, osz int) *rowLoop {
	strides := []int64{rhsCol, int64(osz)}
	for _, b := range ep.bufs { // in order: the registers are deterministic
		if ld := ep.loads[b.name]; ld != nil {
			strides = append(strides, ld.pN*int64(ld.v.dt.Size()))
		}
	}
	return planLoop(c.dotSets, 1, nk, (N-n0)/groupCols, groupCols, strides, false)
}

// nestedColGroupLoop plans the loop over the full column groups of a row
// block from n0 inside the batch loop bl, like colGroupLoop, or nil. Each
// access advancing with the columns (pairs: bytes per batch and per
// column, of the rhs tiles, the output and the epilogue's loads) gets a
// register that starts at bl's offset for its bytes per batch; accesses
// that do not advance with the columns keep bl's registers.
func (c *compiler) nestedColGroupLoop(bl *rowLoop, N, n0, groupCols, nk int64, pairs [][2]int64) *rowLoop {
	period := int64(1)
	for period%2 != 0 || (period*nk)%int64(c.dotSets) != 0 {
		period++
	}
	l := &rowLoop{iters: (N - n0) / groupCols / period, period: period, step: map[int]int64{},
		counter: innerCounter, regOf2: map[[2]int64]int{}, from: map[int]int{}}
	for _, p := range pairs {
		if _, ok := l.regOf2[p]; ok || p[1] == 0 {
			continue
		}
		r := firstInnerReg + len(l.inits)
		step := p[1] * groupCols * period
		if r >= firstLoopReg || p[1] < 0 || p[0] < 0 {
			return nil // out of registers: unrolled
		}
		start := int64(0) // the most the batch loop's register reaches
		if o, ok := bl.regOf[p[0]]; ok {
			l.from[r] = o
			start = bl.step[o] * bl.iters
		} else if p[0] != 0 {
			return nil
		}
		if (registerReach-start)/step < l.iters {
			return nil // beyond 32-bit offsets: unrolled
		}
		l.regOf2[p] = r
		l.inits = append(l.inits, r)
		l.step[r] = step
	}
	if l.iters < 2 {
		return nil
	}
	return l
}

// operandPaths are the ways a dot kernel moves its operands to the MXUs.
// Each operand is read from HBM in its own contiguous rows: a DMA that
// walked the other way would move one element per burst (a transposed
// [128, 128] bf16 tile: 16,384 bursts of 2 bytes instead of 128 of 256).
type operandPaths struct {
	// rhsT: the rhs's contracting dim is its minor one (x . W^T,
	// PyTorch's Linear, attention's Q K^T): its tiles are W^T[nt, kt],
	// loaded transposed (mxu.ldwt) at no cost.
	rhsT bool
	// lhsT: the lhs's free dim is its minor one (X^T . dY, a weight
	// gradient): its panels [kt, rows] are transposed on the XLU into the
	// [rows, kt] the MXUs stream.
	lhsT bool
}

// chooseOperandPaths picks the paths for operands seen as l[B, M, K] and
// r[B, K, N]: an operand walks the way its contiguous dim runs.
func chooseOperandPaths(l, r dotView) operandPaths {
	return operandPaths{
		rhsT: r.sRow == 1 && r.sCol != 1 && r.nRow > 1 && r.nCol > 1,
		lhsT: l.sRow == 1 && l.sCol != 1 && l.nRow > 1 && l.nCol > 1,
	}
}

// String names the transposed paths for the kernel's header comment.
func (p operandPaths) String() string {
	s := ""
	if p.lhsT {
		s += ", lhs transposed on the XLU"
	}
	if p.rhsT {
		s += ", rhs loaded transposed"
	}
	return s
}

// dotSems are a dot kernel's semaphores. Free(i) counts MXU i's free
// buffer sets (all of them at first: each stream returns its set's token);
// each buffer set st has its own: Panel(st) (the lhs panel is in, a token
// per MXU or, for one MXU, per piece), Staged(st) (a transposed lhs's
// staged pieces are in) and Rhs(st, i) (MXU i's rhs tile is in). The
// epilogue has s13 (stores done), s14 and s15 (s1-s4 where its stores
// spread over engines: multiStore). s30 and s31 are the interconnect's
// (docs/isa.md): a collective in flight signals them.
type dotSems struct {
	panel, staged []int
	rhs           [][]int
}

func (dotSems) Free(mxu int) int       { return 5 + mxu }
func (s dotSems) Panel(set int) int    { return s.panel[set] }
func (s dotSems) Staged(set int) int   { return s.staged[set] }
func (s dotSems) Rhs(set, mxu int) int { return s.rhs[set][mxu] }

// dotSemsFree are the semaphores a dot kernel's buffer sets may take
// (s1-s4 are the spread stores', s5-s8 the MXUs' tokens, s13-s15 the
// epilogue's, s30-s31 the interconnect's).
var dotSemsFree = []int{0, 9, 10, 11, 12, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28}

// semDrained counts the groups whose epilogue has drained the
// accumulators: a marker after each group's epilogue (the vector unit runs
// in order) signals it, and group g waits for group g-2's before its MXUs
// overwrite that accumulator half. The store wait that used to guard the
// half (group g-2's stores, which follow its drain) now guards only the
// epilogue buffers, just before group g's epilogue: on trn1nc a 256 KiB
// store takes longer than a group computes, and waiting for it at the
// group's start held back every load behind it.
const semDrained = 29

// allocDotSems gives sets buffer sets of nM MXUs their semaphores, or
// false when there are too few (three sets of four MXUs always fit).
func allocDotSems(sets, nM int) (dotSems, bool) {
	if sets*(2+nM) > len(dotSemsFree) {
		return dotSems{}, false
	}
	free := dotSemsFree
	take := func() int { s := free[0]; free = free[1:]; return s }
	var d dotSems
	for range sets {
		d.panel = append(d.panel, take())
		d.staged = append(d.staged, take())
		var r []int
		for range nM {
			r = append(r, take())
		}
		d.rhs = append(d.rhs, r)
	}
	return d, true
}

// sharedSetsFor is the most buffer sets, at most sharedSets and at least
// deepSets, that groups of nk K tiles bring back round within six groups
// (an even number of them, for the accumulator halves): a loop body over
// column groups holds that many groups of code.
func sharedSetsFor(nk int64) int {
	for sets := int64(sharedSets); sets > deepSets; sets -= 2 {
		for p := int64(2); p <= 6; p += 2 {
			if p*nk%sets == 0 {
				return int(sets)
			}
		}
	}
	return deepSets
}

// allocSharedSems gives each of sets buffer sets of one MXU a single
// semaphore, its panel's and its rhs tile's (sharedSems), and no staging
// one; false when there are too few.
func allocSharedSems(sets int) (dotSems, bool) {
	if sets > len(dotSemsFree) {
		return dotSems{}, false
	}
	var d dotSems
	for st := range sets {
		s := dotSemsFree[st]
		d.panel = append(d.panel, s)
		d.staged = append(d.staged, -1)
		d.rhs = append(d.rhs, []int{s})
	}
	return d, true
}

// splitMinTiles is the fewest K tiles per MXU for which the MXUs split K
// rather than the rows (a weight tile loaded by each for a few rows).
var splitMinTiles int64 = 2

// splitOwn is how many buffer sets each MXU owns when K is split among
// the MXUs: two, so that one loads while the other streams.
const splitOwn = 2

// allocSplitSems gives the sets of a split K (each owned by one MXU:
// set st by MXU st/splitOwn) a panel and an rhs semaphore each; the
// others are -1. A transposed lhs (staged) also has a staging semaphore
// per MXU, which its sets share: an MXU's staging loads all go to one DMA
// engine, whose completions come in order, so the first pieces counted
// are the first set's. The spread stores' s1-s4 are free: several MXUs
// never spread their stores (multiStore).
func allocSplitSems(sets, splits, perSplit int, staged bool) dotSems {
	free := slices.Concat(dotSemsFree, []int{1, 2, 3, 4})
	take := func() int { s := free[0]; free = free[1:]; return s }
	var d dotSems
	var stagedOf []int
	for range splits {
		if staged {
			stagedOf = append(stagedOf, take())
		} else {
			stagedOf = append(stagedOf, -1)
		}
	}
	for st := range sets {
		d.panel = append(d.panel, take())
		d.staged = append(d.staged, stagedOf[st/splitOwn])
		r := make([]int, splits*perSplit)
		for i := range r {
			r[i] = -1
		}
		for c := range perSplit { // the split's MXUs, one per column tile
			r[st/splitOwn*perSplit+c] = take()
		}
		d.rhs = append(d.rhs, r)
	}
	return d
}

// splitSemsFit reports whether allocSplitSems has the semaphores for sets
// of splits splits of perSplit MXUs each.
func splitSemsFit(sets, splits, perSplit int, staged bool) bool {
	n := sets * (1 + perSplit)
	if staged {
		n += splits
	}
	return n <= len(dotSemsFree)+4
}

// dmaPool lists the engines a dot kernel's loads take in turn: every
// engine but the epilogue's store and load engines (dma0 alone on a chip
// of three or fewer). Each engine keeps its own bursts in flight and
// issues its own descriptors, so loads spread over two are in flight
// sooner than queued on one (tpuv4core's JAX LM head 512x768x8192: roof
// fraction 0.73 -> 0.87).
func dmaPool(engines, store, load int) []int {
	pool := []int{0}
	if engines <= 3 {
		return pool
	}
	for e := 1; e < engines; e++ {
		if e != store && e != load {
			pool = append(pool, e)
		}
	}
	return pool
}

// inTurn hands out the engines of pool in turn.
func inTurn(pool []int) func() int {
	next := 0
	return func() int {
		e := pool[next%len(pool)]
		next++
		return e
	}
}

// minDMAPiece is the least a load split over engines gives each piece:
// Trainium's DMA guide puts a full engine's rate at 32 KiB a transfer
// (4 KiB a partition), its 1.3 us setup overlapping the transfers queued
// before it (dma.prefetch). 64 KiB, from when that setup ran in series,
// left trn1nc's dots suite at 0.412; 32 KiB 0.447, 16 KiB 0.421.
const minDMAPiece = 32 << 10

// dmaPieces is how many pieces a load of n rows of rowBytes is split
// into over an engine pool of engines: one for several MXUs (each
// waits for one token of the panel's), else as many as the engines and
// the minimum piece allow.
func dmaPieces(n, rowBytes int64, mxus, engines int) int64 {
	if mxus > 1 || engines <= 1 {
		return 1
	}
	np := max(1, min(int64(engines), n, n*rowBytes/minDMAPiece))
	// As many as splitRows makes of n rows: 128 rows in 14 pieces are 13
	// of 10 rows (a consumer waiting for 14 would wait for ever).
	per := (n + np - 1) / np
	return (n + per - 1) / per
}

// splitRows divides n rows into np runs, as [first, count] pairs.
func splitRows(n, np int64) [][2]int64 {
	per := (n + np - 1) / np
	var out [][2]int64
	for r := int64(0); r < n; r += per {
		out = append(out, [2]int64{r, min(per, n-r)})
	}
	return out
}

// dotPart is one MXU's share of a group: rows [r0, r0+rows) of the row
// block by columns [n0, n0+nt).
type dotPart struct{ r0, rows, n0, nt int64 }

// dotParts divides a group of a row block of rows rows, from column n0
// of N, among the MXUs: up to colTiles column tiles of Nt, each split into
// up to rowSplits parts of whole multiples of 8 rows (a vector register's
// sublanes) where the rows allow.
func dotParts(rows, n0, N, Nt, colTiles, rowSplits int64) []dotPart {
	per := (rows + rowSplits - 1) / rowSplits
	if per > 8 {
		per = (per + 7) / 8 * 8
	}
	var parts []dotPart
	for ci := int64(0); ci < colTiles && n0+ci*Nt < N; ci++ {
		c0 := n0 + ci*Nt
		for r0 := int64(0); r0 < rows; r0 += per {
			parts = append(parts, dotPart{r0, min(per, rows-r0), c0, min(Nt, N-c0)})
		}
	}
	return parts
}

// dotView is one operand (or the output) seen as [B, rows, cols].
type dotView struct {
	v              *value
	off            []int64 // element offset of each batch
	sRow, sCol     int64   // element strides
	nB, nRow, nCol int64
	// segs, for an operand of windows side by side (dotwindows.go):
	// where each run of its columns is; nil where column k is at k*sCol.
	segs []kSeg
}

// batchOffsets lists, in row-major order over the batch shape, the element
// offset of each batch given each batch dim's stride.
func batchOffsets(shape, strides []int64) []int64 {
	offs := []int64{0}
	for i, n := range shape {
		next := make([]int64, 0, int64(len(offs))*n)
		for _, o := range offs {
			for j := int64(0); j < n; j++ {
				next = append(next, o+j*strides[i])
			}
		}
		offs = next
	}
	return offs
}

// group collapses dims (in the order given) of an array with row-major
// strides st into one index with one stride, if they are contiguous.
// awkwardDot reports whether the lowering cannot read a dot's operands
// (logical row-major, dims l and r) as strided runs: the contracting dims
// of either, the rhs free dims, or the lhs free dims do not group;
// legalize.CanonicalizeDots transposes such operands first. The kernel can walk
// lhs free dims before a suffix that groups like batch dims, a run of them
// per batch, but transposing is the faster program wherever it was
// measured (tpuv4core: [4x3x16x8] by [4x32x16] 7,620 -> 6,546 cycles, the
// transpose included; [4x16x256x128] by [4x512x256] 5,077,637 -> 102,551;
// teach16 12.7x on the latter), and since row-block loops reach any output
// size its code is small too, so only maxLhsRuns runs (0) are walked.
func awkwardDot(l, r, lb, lc, rb, rc []int64) bool {
	lst, rst := hlo.Strides(l), hlo.Strides(r)
	lf := freeDims(len(l), lb, lc)
	rf := freeDims(len(r), rb, rc)
	runs := int64(1) // one run of batches per batch
	for _, d := range lb {
		runs *= l[d]
	}
	ok1 := false
	for s := 0; !ok1 && s < max(len(lf), 1); s++ {
		_, _, ok1 = group(lf[min(s, len(lf)):], lst, l)
		ok1 = ok1 && (s == 0 || runs <= maxLhsRuns)
	}
	_, _, ok2 := group(lc, lst, l)
	_, _, ok3 := group(rc, rst, r)
	_, _, ok4 := group(rf, rst, r)
	return !(ok1 && ok2 && ok3 && ok4)
}

// maxLhsRuns bounds the runs of lhs free dims walked as batches, one per
// batch (awkwardDot): none, beyond tests of that path.
var maxLhsRuns int64 = 0

func group(dims []int64, st []int64, shape []int64) (n, stride int64, ok bool) {
	// Dims of size 1 take no room: they never break contiguity.
	var big []int64
	for _, d := range dims {
		if shape[d] != 1 {
			big = append(big, d)
		}
	}
	dims = big
	n, stride = 1, 0
	for i, d := range dims {
		n *= shape[d]
		if i == len(dims)-1 {
			stride = st[d]
		}
	}
	for i := 0; i+1 < len(dims); i++ {
		if st[dims[i]] != st[dims[i+1]]*shape[dims[i+1]] {
			return 0, 0, false
		}
	}
	if len(dims) == 0 {
		return 1, 0, true
	}
	return n, stride, true
}

func freeDims(rank int, a, b []int64) []int64 {
	used := map[int64]bool{}
	for _, d := range append(append([]int64{}, a...), b...) {
		used[d] = true
	}
	var out []int64
	for d := 0; d < rank; d++ {
		if !used[int64(d)] {
			out = append(out, int64(d))
		}
	}
	return out
}

func (c *compiler) dotKernel(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) error {
	if root == nil {
		root = body[len(body)-1]
	}
	var dot *hlo.Instruction
	for _, b := range body {
		if b.Opcode == hlo.OpDot {
			if dot != nil {
				return c.fail(b, "a fusion with two dots is not lowered")
			}
			dot = b
		}
	}
	if dot == nil {
		return c.fail(in, "no dot in the output fusion")
	}
	if in.Shape.IsTuple {
		return c.fail(in, "multi-output dot fusions are not lowered yet")
	}
	if handled, err := c.vpuDotKernel(in, body, dot); handled {
		return err
	}
	paramVal := func(name string) *value {
		for _, b := range body {
			if b.Name == name && b.Opcode == hlo.OpParameter && int(b.ParamNumber) < len(in.Operands) {
				return c.bufs[in.Operands[b.ParamNumber].Name]
			}
		}
		return nil
	}
	// An operand may be converted in the fusion, as XLA fuses a TPU's
	// float normalization (f16 -> f32) into the dot's convolution fusion:
	// its tiles are loaded in their own type and converted by the vector
	// unit on the way to the MXU (mdt, the type the MXU multiplies).
	var convTo []string // the converts' result types
	operandVal := func(name string) *value {
		if v := paramVal(name); v != nil {
			return v
		}
		for _, b := range body {
			if b.Name == name && b.Opcode == hlo.OpConvert && len(b.Operands) == 1 {
				v := paramVal(b.Operands[0].Name)
				if v == nil || v.tuple != nil || !exactConvert(v.dt, b.Shape.Elem) {
					return nil
				}
				convTo = append(convTo, b.Shape.Elem)
				return v
			}
		}
		return nil
	}
	lwin, lwindowed := windowOperand(body, dot, 0)
	rwin, rwindowed := windowOperand(body, dot, 1)
	// An operand broadcast over the batch: its array, a batch stride of
	// zero (fusion.OperandBroadcast: a 1x1 convolution's weights).
	bodyByName := map[string]*hlo.Instruction{}
	for _, b := range body {
		bodyByName[b.Name] = b
	}
	bcast := [2]bool{}
	for side := range dot.Operands {
		bcast[side] = broadcastOperand(bodyByName, dot, side) != nil
	}
	operandOrBcast := func(side int) *value {
		name := dot.Operands[side].Name
		if bcast[side] {
			for _, b := range body {
				if b.Name == name {
					name = b.Operands[0].Name
				}
			}
		}
		return operandVal(name)
	}
	lv, rv := operandOrBcast(0), operandOrBcast(1)
	if lwindowed {
		lv = paramVal(lwin.param)
	}
	if rwindowed {
		rv = paramVal(rwin.param)
	}
	if lv == nil || rv == nil || lv.tuple != nil || rv.tuple != nil {
		return c.fail(dot, "the dot's operands must be arrays in memory")
	}
	// Operands of two types (FP8 training's e5m2 x e4m3fn) run where the
	// fusion converts both to one type on the way: the kernel sizes both
	// operands' tiles by the lhs's element, so their sizes must agree.
	if lv.dt != rv.dt && (len(convTo) != 2 || convTo[0] != convTo[1] || lv.dt.Size() != rv.dt.Size()) {
		return c.fail(dot, "operands of different types (%s, %s) are not lowered", lv.dt, rv.dt)
	}
	mdt := lv.dt
	switch {
	case len(convTo) == 1:
		return c.fail(dot, "one operand converted in the fusion and not the other is not lowered")
	case len(convTo) == 2 && convTo[0] != convTo[1]:
		return c.fail(dot, "operands converted to different types are not lowered")
	case len(convTo) == 2:
		mdt, _ = dtypeOf(convTo[0])
	}
	if !c.chip.MXUSupports(mdt) {
		return c.fail(dot, "the chip's MXU does not multiply %s (mxu.dtypes)", mdt)
	}
	// Float inputs accumulate in f32, integers in s32 (wrapping, as XLA).
	if dot.Shape.Elem == hlo.F64 {
		return c.fail(dot, "an f64 result sums in f64 in XLA; the MXU accumulates in f32")
	}
	accDT := isa.F32
	if mdt.IsInt() {
		accDT = isa.S32
		if od, ok := dtypeOf(dot.Shape.Elem); ok && od.IsInt() && od.Size() < 4 {
			return c.fail(dot, "an integer dot into %s wraps in XLA; the vector unit's conversion from s32 saturates", dot.Shape.Elem)
		}
	}
	lb, _ := hlo.IntList(hlo.AttrOr(dot, "lhs_batch_dims", "{}"))
	rb, _ := hlo.IntList(hlo.AttrOr(dot, "rhs_batch_dims", "{}"))
	lc, _ := hlo.IntList(hlo.AttrOr(dot, "lhs_contracting_dims", "{}"))
	rc, _ := hlo.IntList(hlo.AttrOr(dot, "rhs_contracting_dims", "{}"))
	lshape, rshape := lv.shape.Dims, rv.shape.Dims
	lst, rst := hlo.Strides(lshape), hlo.Strides(rshape)
	if lwindowed {
		lshape, lst = lwin.dims, []int64{lwin.rowSt, 1}
	}
	if rwindowed {
		rshape, rst = rwin.dims, []int64{rwin.rowSt, 1}
	}
	for side := range 2 {
		if !bcast[side] {
			continue
		}
		for _, b := range body {
			if b.Name == dot.Operands[side].Name {
				sh, st := broadcastOperandView(b, []*value{lv, rv}[side])
				if side == 0 {
					lshape, lst = sh, st
				} else {
					rshape, rst = sh, st
				}
			}
		}
	}
	lf := freeDims(len(lshape), lb, lc)
	rf := freeDims(len(rshape), rb, rc)
	var L, R dotView
	var ok1, ok2, ok3, ok4 bool
	L.v, R.v = lv, rv
	L.nRow, L.sRow, ok1 = group(lf, lst, lshape)
	var pre []int64 // leading lhs free dims walked like batch dims
	for s := 1; !ok1 && s < len(lf); s++ {
		if L.nRow, L.sRow, ok1 = group(lf[s:], lst, lshape); ok1 {
			pre = lf[:s]
		}
	}
	L.nCol, L.sCol, ok2 = group(lc, lst, lshape)
	R.nRow, R.sRow, ok3 = group(rc, rst, rshape)
	R.nCol, R.sCol, ok4 = group(rf, rst, rshape)
	if !(ok1 && ok2 && ok3 && ok4) {
		return c.fail(dot, "contracting or rhs free dimensions that are not contiguous in memory are not lowered yet")
	}
	if len(lb) != len(rb) {
		return c.fail(dot, "operand dimensions disagree")
	}
	// Batch dims (and the lhs free dims before a contiguous run) need
	// not be contiguous: the batch loop is unrolled, each batch at its
	// own offsets; the output's batch index is row-major over them.
	var bshape, bl, br []int64
	for i := range lb {
		if lshape[lb[i]] != rshape[rb[i]] {
			return c.fail(dot, "operand dimensions disagree")
		}
		bshape = append(bshape, lshape[lb[i]])
		bl, br = append(bl, lst[lb[i]]), append(br, rst[rb[i]])
	}
	for _, d := range pre {
		bshape = append(bshape, lshape[d])
		bl, br = append(bl, lst[d]), append(br, 0)
	}
	L.off, R.off = batchOffsets(bshape, bl), batchOffsets(bshape, br)
	L.segs, R.segs = lwin.segs, rwin.segs
	L.nB, R.nB = int64(len(L.off)), int64(len(R.off))
	run, dL, dR, affine := batchRuns(L.off, R.off, bshape)
	if L.nCol != R.nRow {
		return c.fail(dot, "operand dimensions disagree")
	}
	B, M, K, N := L.nB, L.nRow, L.nCol, R.nCol
	if B*M*N == 0 || K == 0 {
		return c.fail(dot, "empty dot")
	}
	paths := chooseOperandPaths(L, R)
	if L.segs != nil && paths.lhsT || R.segs != nil && paths.rhsT {
		return c.fail(dot, "windows of a transposed operand are not lowered")
	}
	// An f32 dot streams as the bf16 passes of its precision (XLA's on a
	// TPU); its values are the f32 products all the same.
	passes := ""
	if mdt == isa.F32 && c.chip.MXUSupports(isa.BF16) {
		if n := dotPasses(dot); n > 0 {
			passes = fmt.Sprintf(" passes %d", n)
		}
	}
	// The epilogue: everything in the body but parameters and the dot.
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	if out.shape.Elems() != B*M*N {
		return c.fail(root, "the fusion's result %s is not the dot's [%d x %d x %d] (reshaping epilogues are not lowered)", out.shape, B, M, N)
	}
	ep := newEpilogue(c, in, body, dot, root, B, M, N)
	if err := ep.analyze(); err != nil {
		return err
	}
	// A share of the output's rows [r0, r1) and columns [c0, c1) (all of
	// them on a chip of one core; cores.go): tile positions are relative
	// to the share's corner, which the epilogue adds.
	recorded := false
	lowerShare := func(r0, r1, c0, c1, b0, b1 int64) error {
		M, N := r1-r0, c1-c0
		L, R := L, R
		L.off, R.off = slices.Clone(L.off), slices.Clone(R.off)
		for i := range L.off {
			L.off[i] += r0 * L.sRow
		}
		if R.segs != nil {
			R.segs = shiftCols(R.segs, c0)
		} else {
			for i := range R.off {
				R.off[i] += c0 * R.sCol
			}
		}
		ep.rowBase, ep.colBase = r0, c0
		// Tile sizes.
		nM := c.chip.MXU.Count
		if nM > 4 {
			nM = 4
		}
		// The MXU's dataflow decides the tiles (docs/dataflows.md): ws holds
		// a K x N weight tile and streams row blocks of up to 1024; os holds
		// a block of rows x cols outputs and streams K; is holds a block of
		// cols rows of K and streams N.
		// A row block is computed by one instruction per MXU (ws), or by
		// one per sub-block of sub rows, the block the array holds (os: rows
		// of outputs; is: cols of inputs), back to back under one weight tile.
		rows, cols := int64(c.chip.MXU.Rows), int64(c.chip.MXU.Cols)
		Kt, Nt, mbMax, sub := min(K, rows), min(N, cols), int64(1024), int64(1<<62)
		switch c.chip.MXU.Dataflow {
		case "os":
			Kt, sub = min(K, streamTile), rows
		case "is":
			Nt, sub = min(N, streamTile), cols
		}
		if L.segs != nil {
			// Every K tile within one run of windows: one load each.
			Kt = largestDivisor(L.segWidth(), Kt)
		}
		if R.segs != nil {
			Nt = largestDivisor(R.segWidth(), Nt) // likewise each column tile
		}
		// A group gives each MXU a part: colTiles column tiles side by side,
		// each split into rowSplits parts of the row block when the columns
		// are too few for the MXUs (attention's P.V with 64 columns, a
		// weight gradient's 16: one MXU would do all the work). The parts
		// of a column tile share one load of its rhs tile (kTile's owner).
		colTiles := min(int64(nM), (N+Nt-1)/Nt)
		rowSplits := max(1, min(int64(nM)/colTiles, (M+7)/8))
		// When one column tile's rows are no more than a weight tile's, a
		// row split would have each MXU load a whole weight tile for a short
		// stream (a load waits for the last stream's weights to leave the
		// array): the MXUs split K instead, MXU i taking every kSplits-th K
		// tile into its own accumulator, and the epilogue sums them.
		kSplits := int64(1)
		conv := mdt != lv.dt // operands converted on the way to the MXU
		if conv && paths.lhsT {
			return c.fail(dot, "a transposed lhs converted in the fusion is not lowered")
		}
		// So do column tiles too few for the MXUs whose row parts would be
		// short: two column tiles of 256 rows on four MXUs stream 256
		// rows a weight tile with K split two ways, where split by rows
		// each MXU loaded every weight tile for 128.
		if nk0, ks := (K+Kt-1)/Kt, int64(nM)/colTiles; ks > 1 && colTiles*ks == int64(nM) && (M+rowSplits-1)/rowSplits <= Kt &&
			nk0 >= splitMinTiles*ks && !conv && c.chip.MXU.Dataflow == "ws" && splitSemsFit(int(ks)*splitOwn, int(ks), int(colTiles), paths.lhsT) {
			kSplits, rowSplits = ks, 1
		}
		nM = int(colTiles * rowSplits * kSplits)
		esz := int64(lv.dt.Size()) // in HBM and as loaded
		msz := int64(mdt.Size())   // as the MXU reads it
		// A transposed lhs has a staging panel per buffer set beside the
		// panel the MXUs stream.
		panels := int64(1)
		if paths.lhsT {
			panels = 2
		}
		// The buffer sets: deeper on a chip whose engines are capped, where
		// the semaphores allow.
		nset := defaultSets
		if c.chip.DMA.EngineGBps > 0 {
			nset = deepSets
		}
		// sharedSems: one MXU whose lhs panel needs no staging (no
		// transpose, no conversion) waits for its panel and its rhs tile
		// at the weight load, so that one semaphore per set counts both
		// and a capped chip can keep twice the sets in flight.
		// Only where several engines can have that many loads in flight
		// (teach16's one engine cannot), and with a set count that keeps the
		// loops over column groups short (their period brings the sets back
		// round: sharedPeriod).
		sharedSems := nM == 1 && !paths.lhsT && !conv && c.chip.DMA.EngineGBps > 0 && c.chip.DMA.Engines > 3
		var sems dotSems
		ok := false
		if sharedSems {
			nset = sharedSetsFor((K + Kt - 1) / Kt)
			sems, ok = allocSharedSems(nset)
		}
		if !ok {
			sharedSems = false
			sems, ok = allocDotSems(nset, nM)
		}
		if !ok {
			nset = defaultSets
			sems, _ = allocDotSems(nset, nM)
		}
		// tokens are each MXU's buffer sets: all of them, each K tile feeding
		// every MXU; with K split, each MXU owns splitOwn sets of its own (MXU
		// i's K tiles use sets i*splitOwn.., so no other MXU's stream can be
		// reading a set it reloads).
		tokens := nset
		if kSplits > 1 {
			nset = int(kSplits) * splitOwn
			tokens = splitOwn
			sems = allocSplitSems(nset, int(kSplits), int(colTiles), paths.lhsT)
		}
		c.dotSets = nset
		// Windows kept in SRAM (dotwindows.go): a row block's input rows,
		// with the rows its last windows reach past the block, loaded
		// once; every K tile streams from them at its window's offset.
		winRes := L.segs != nil && !conv && !paths.lhsT && kSplits == 1
		winSpan, winMin := int64(0), int64(0) // elements past a block's rows, and the first one read
		if winRes {
			winMin, winSpan = L.segSpan()
		}
		fixed := int64(nset*nM) * align64(Kt*Nt*esz)
		perRow := int64(nset)*panels*Kt*esz + 2*int64(nM)*ep.bytesPerRow(Nt)
		if winRes {
			fixed += align64((winSpan - winMin + 64) * esz)
			perRow = L.sRow*esz + 2*int64(nM)*ep.bytesPerRow(Nt)
		}
		if conv { // the converted panel and tiles beside the loaded ones
			fixed += int64(nset*nM) * align64(Kt*Nt*msz)
			perRow += int64(nset) * Kt * msz
		}
		mb := min(M, mbMax)
		if lim := (c.chip.Memory.SRAMBytes - fixed - 64*int64(nset+2*nM*len(ep.bufs)+1)) / perRow; mb > lim {
			mb = lim
		}
		if lim := c.chip.Memory.ACCBytes / (2 * int64(nM) * Nt * 4); mb > lim {
			mb = lim
		}
		if mb >= 8 {
			mb -= mb % 8
		}
		if mb < 1 {
			return c.fail(in, "the dot's tiles do not fit SRAM and the accumulators")
		}
		nk := (K + Kt - 1) / Kt
		step := colTiles * Nt // columns per group
		// A row block's lhs panel stays in SRAM across its column groups when
		// that moves fewer bytes (docs/lowering.md): each group then reads
		// only its rhs tiles, where it would read the panel again.
		resident := false
		if (N+step-1)/step >= 2 && !conv && !winRes {
			perRow1 := int64(nset)*(panels-1)*Kt*esz + 2*int64(nM)*ep.bytesPerRow(Nt) + nk*Kt*esz
			mb1 := min(mb, (c.chip.Memory.SRAMBytes-fixed-64*int64(nset+2*nM*len(ep.bufs)+int(nk)+1))/perRow1)
			if mb1 >= 8 {
				mb1 -= mb1 % 8
			}
			// Resident row blocks are each code of their own (a drain, two
			// groups and a column-group loop: no row-block loop runs them),
			// so they are kept to maxResidentBlocks.
			if mb1 >= 1 && (M+mb1-1)/mb1 <= maxResidentBlocks && residentTraffic(M, K, N, step, mb, mb1) {
				resident, mb = true, mb1
			}
		}
		// A last row block under half the others is evened out with them:
		// 512 rows in blocks of at most 480 ran as 480 and 32, the last
		// block's 32-row streams too short to hide a weight load (the whole
		// rhs is loaded once a block), where two blocks of 256 stream long
		// enough. The blocks keep the power-of-two granularity (up to 128
		// rows) of the limit's size: 11008 rows in blocks of 1008, not
		// 1024, ran 11% slower on trn1nc.
		if nb := (M + mb - 1) / mb; nb > 1 && M-(nb-1)*mb < mb/2 {
			g := mb & -mb // the largest power of two dividing mb
			g = min(g, 128)
			mb = min(mb, ((M+nb-1)/nb+g-1)/g*g)
		}
		aBytes := align64(mb * Kt * esz)
		bBytes := align64(Kt * Nt * esz)
		lhsInSet := aBytes // the panel in each buffer set (none when resident)
		if resident || winRes {
			lhsInSet = 0
		}
		setBytes := (panels-1)*aBytes + lhsInSet + int64(nM)*bBytes
		rhsAt := func(i int) int64 { return lhsInSet + int64(i)*bBytes } // MXU i's rhs tile in a set
		stageAt := lhsInSet + int64(nM)*bBytes                           // a transposed lhs's staging panel in a set
		// Converted operands: the panel and MXU i's tile in the MXU's type,
		// after what was loaded.
		cpanelAt, cBytes := setBytes, align64(Kt*Nt*msz)
		crhsAt := func(i int) int64 { return cpanelAt + align64(mb*Kt*msz) + int64(i)*cBytes }
		if conv {
			setBytes = crhsAt(nM)
		}
		epiBase := int64(nset) * setBytes
		epiTile := ep.layout(mb, Nt)
		epiHalf := int64(nM) * epiTile
		resBase := epiBase + 2*epiHalf // the resident panel's K tiles
		accTile := mb * Nt * 4
		accHalf := int64(nM) * accTile
		resBytes := int64(0)
		if resident {
			resBytes = nk * aBytes
		}
		if winRes {
			resBytes = align64(((mb-1)*L.sRow + winSpan - winMin) * esz)
		}
		sumBase, sumHalf := resBase+resBytes, int64(0) // split K: the partial sums added, per half
		sumTile := align64(mb * Nt * 4)                // one column tile's sum
		if kSplits > 1 {
			sumHalf = colTiles * sumTile
		}
		markAt := sumBase + 2*sumHalf // the drain marker's scratch (semDrained)
		if markAt+64 > c.chip.Memory.SRAMBytes || 2*accHalf > c.chip.Memory.ACCBytes {
			return c.fail(in, "internal error: dot tiles exceed on-chip memory")
		}

		c.nlabel++
		label := fmt.Sprintf("k%d", c.nlabel)
		if !recorded {
			flops, bytes := c.kernelCost(in, body)
			c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: "output", Pos: in.Pos, FLOPs: flops, Bytes: bytes})
			recorded = true
		}
		w := &c.out
		if bp, ok := c.planBatchedSmall(B, M, K, N, Kt, Nt, paths, affine, run, ep, esz); ok && !conv && b0 == 0 && b1 == B && L.segs == nil && R.segs == nil {
			fmt.Fprintf(w, "\n; ---- kernel %s: %s %s (%s:%d) -> %s: dot [%dx%dx%d] x %d in chunks of %d batches%s\n",
				label, in.Opcode, in.Name, c.file, in.Pos.Line, out.shape, M, K, N, B, bp.P, paths)
			fmt.Fprintf(w, ".origin %q\n", in.Name)
			c.batchedSmallDot(in, dot, bp, L, R, dL, dR, B, run, M, K, N, paths, passes, accDT, ep, out)
			return nil
		}
		split := ""
		if rowSplits > 1 {
			split = fmt.Sprintf(" (row blocks in %d parts)", rowSplits)
		}
		if resident {
			split += ", each block's lhs panel kept in sram"
		}
		if winRes {
			split += ", each block's windows read once into sram"
		}
		if kSplits > 1 {
			split += fmt.Sprintf(" (K split %d ways)", kSplits)
		}
		fmt.Fprintf(w, "\n; ---- kernel %s: %s %s (%s:%d) -> %s: dot [%dx%dx%d] x %d, %d MXUs%s, blocks of %d rows, tiles %dx%d%s\n",
			label, in.Opcode, in.Name, c.file, in.Pos.Line, out.shape, M, K, N, B, nM, split, mb, Kt, Nt, paths)
		fmt.Fprintf(w, ".origin %q\n", in.Name)
		emit := func(at *hlo.Instruction, format string, a ...any) {
			c.loc(at)
			fmt.Fprintf(w, "        "+format+"\n", a...)
		}
		for i := 0; i < nM; i++ {
			emit(in, "semset  s%d, %d", sems.Free(i), tokens)
		}
		for _, s := range []int{13, 14, 15, semDrained} {
			emit(in, "semset  s%d, 0", s)
		}
		storeEng := 0
		if c.chip.DMA.Engines > 1 {
			storeEng = 1
		}
		loadEng := storeEng
		if c.chip.DMA.Engines > 2 {
			loadEng = 2
		}
		// Each buffer set has its own semaphores (dotSems): the loads of a
		// K tile into set s signal set s's, and the next loads into s wait
		// (semFree) until its MXUs are done with it, so no wait can take a token
		// meant for another K tile, whatever engine or XLU finishes first.
		// That leaves the loads free to spread over the engines (pool) on a
		// chip whose engines each move less than its HBM, and a transposed lhs
		// free to alternate XLUs.
		pool := dmaPool(c.chip.DMA.Engines, storeEng, loadEng)
		engine := inTurn(pool)
		stageEng := storeEng // a transposed lhs panel's staging, beside the rhs tiles where there is room
		if c.chip.DMA.Engines > 3 {
			stageEng = 3
		}
		nXLU := 1
		if c.chip.XLU.Count > 1 {
			nXLU = 2
		}
		xposes := 0 // transposes emitted: the XLU of the next
		// The stores, too, take the pool's engines in turn where one MXU
		// makes one epilogue tile per group: each half of the epilogue
		// buffers then has its own semaphores (s1, s2: its tile is ready; s3,
		// s4: stored), so that no store takes another's token.
		multiStore := len(pool) > 1 && nM == 1
		// storePieces is how many stores a tile of rows x cols takes.
		storePieces := func(rows, cols int64) int64 {
			if !multiStore {
				return 1
			}
			return dmaPieces(rows, cols*int64(out.dt.Size()), 1, len(pool))
		}
		semReady := func(half int) int { return 14 }
		semStored := func(half int) int { return 13 }
		if multiStore {
			semReady = func(half int) int { return 1 + half }
			semStored = func(half int) int { return 3 + half }
			for s := 1; s <= 4; s++ {
				emit(in, "semset  s%d, 0", s)
			}
		}
		for st := range nset {
			emit(in, "semset  s%d, 0", sems.Panel(st))
			if s := sems.Staged(st); s >= 0 {
				emit(in, "semset  s%d, 0", s)
			}
			for i := range nM {
				if s := sems.Rhs(st, i); s >= 0 && s != sems.Panel(st) {
					emit(in, "semset  s%d, 0", s)
				}
			}
		}
		set := 0
		splitNext := make([]int, kSplits) // with K split: each MXU's next set among its own
		g := 0
		var tilesOf []int  // each group's epilogue tiles
		var storesOf []int // and the stores they make
		// A group's epilogue waits until the next group's first K tile is
		// issued (pending): draining the MXUs at once would leave them idle
		// while that tile loads, at every group boundary (4096^3 bf16: 110K of
		// 1.18M cycles). flush drains and emits it where the next group is in
		// another loop body, or there is none.
		//
		// A column-group loop keeps the pipeline full across its iterations
		// (software pipelining): the group before the loop leaves its
		// epilogue pending, the body's first group emits the epilogue of the
		// group one column step before it (the group before the loop in the
		// first iteration, the body's last group of the previous iteration
		// after that: the same tiles, at the same offset from the loop's
		// registers), and the body's last group leaves its own pending for
		// after the loop, one period of columns behind the registers. Where
		// the loop's boundaries drained the MXUs instead, they cost a whole
		// pipeline refill per iteration (trn1nc's 2048x1024x2048: 48K of 540K
		// cycles).
		var pending func(shift int64, reg offReg) // reg nil: the group's own
		var pendingCols int
		var pendingShift int64 // columns to add to the pending group's
		var pendingReg offReg  // and the registers it is emitted with (nil: its own)
		var pendingG int       // the pending group's number
		// pendingLooped is set while a column-group loop's body emits the
		// pending group's epilogue, which stands for later groups' too.
		var pendingLooped bool
		var drainLost bool // an internal error: see drainOnMXU
		var panelRow int64 // the first row of the block whose lhs panel is loaded
		runPending := func() {
			pending(pendingShift, pendingReg)
			pending, pendingShift, pendingReg = nil, 0, nil
		}
		flush := func() {
			if pending == nil {
				return
			}
			for i := 0; i < pendingCols; i++ {
				emit(dot, "wait    s%d, %d", sems.Free(i), tokens)
				emit(dot, "signal  s%d, %d", sems.Free(i), tokens)
			}
			runPending()
		}
		noReg := func(int64, int64, int64) string { return "" }
		// regMax bounds what each loop register ("rN+" of an offReg) holds, so
		// that the K loop, which starts from it, stays within a register's
		// reach (2 GiB; beyond it the offset wraps: issue 44).
		regMax := map[int]int64{}
		maxOf := func(reg string) int64 {
			var r int
			if _, err := fmt.Sscanf(reg, "r%d+", &r); err != nil {
				return 0
			}
			return regMax[r]
		}
		// group emits one group: rows [m0, m0+rows) of batch b, the column
		// tiles from n0, one part per MXU; reg places it in a batch, row-block
		// or column-group loop (the register adding the loop's offset to an
		// access advancing by the given bytes per batch, row and column).
		group := func(b, m0, rows, n0 int64, reg offReg) {
			parts := dotParts(rows, n0, N, Nt, colTiles, rowSplits)
			ct := len(parts)        // the column tiles each split of K computes
			for range kSplits - 1 { // each split of K: the same parts
				parts = append(parts, parts[:ct]...)
			}
			cols := make([]int64, len(parts)) // width of each MXU's column tile
			for i, p := range parts {
				cols[i] = p.nt
			}
			// A resident panel is loaded by its row block's first group;
			// before that, every MXU must be done with the previous block's.
			load := !resident && !winRes || n0 == 0
			if load {
				panelRow = m0
			}
			if (resident || winRes) && n0 == 0 && g > 0 {
				flush()
				for i := 0; i < nM; i++ {
					emit(dot, "wait    s%d, %d", sems.Free(i), tokens)
					emit(dot, "signal  s%d, %d", sems.Free(i), tokens)
				}
			}
			tilesOf = append(tilesOf, len(cols)/int(kSplits))
			nStores := int64(0)
			for _, p := range parts[:len(parts)/int(kSplits)] {
				nStores += storePieces(p.rows, p.nt)
			}
			storesOf = append(storesOf, int(nStores))
			// Group g-2's epilogue must have read this accumulator half
			// before the group's first stream overwrites it. With one MXU
			// whose first stream has its wait free, that stream waits (the
			// MXU runs in order): the sequencer goes on issuing this
			// group's loads meanwhile, which on trn1nc take 1.3 us from
			// issue to data. A wait here, on the sequencer, held them back
			// until the epilogue's vector op was done (canonical_m on
			// trn1nc: 71,710 -> 66,820 cycles).
			drainOnMXU := g >= 2 && nM == 1 && kSplits == 1 && (sharedSems || !load)
			if g >= 2 && !drainOnMXU {
				emit(in, "wait    s%d, 1", semDrained)
			}
			acc := int64(g%2) * accHalf
			regL := reg(dL*esz, L.sRow*esz, 0) // the lhs panel's batch or row-block offset
			regR := reg(dR*esz, 0, R.sCol*esz) // the rhs tiles' batch or column-group offset
			// kTile emits one K tile; regA and regB ("" or "rN+") hold
			// the HBM offsets of a loop's iteration, regS the offset of the
			// resident panel's tile.
			kTile := func(k0 int64, regA, regB, regS string) {
				kt := min(Kt, K-k0)
				// The MXUs this K tile feeds: all, or with K split the one
				// whose share it is, in one of that MXU's own sets.
				var active []int
				if kSplits > 1 {
					// Each MXU's sets in turn, carried from group to group:
					// counted from the tile's index within its group, a
					// share of an odd number of tiles took the same set for
					// its last tile and the next group's first, while the
					// MXU still streamed from it.
					// Split i's MXUs are i*ct.. (one per column tile).
					j := k0 / Kt
					i := int(j % kSplits)
					for c := range ct {
						active = append(active, i*ct+c)
					}
					set = i*splitOwn + splitNext[i]%splitOwn
					splitNext[i]++
				} else {
					for i := range cols {
						active = append(active, i)
					}
				}
				st := set
				sb := int64(set) * setBytes
				for _, i := range active {
					emit(dot, "wait    s%d, 1", sems.Free(i))
				}
				lhsAt := (L.off[b] + m0*L.sRow + L.colOff(k0)) * esz
				panel := fmt.Sprint(sb) // where the MXUs stream the lhs panel from
				if resident {
					// A group of part of the block's rows (lastSplit)
					// reads its rows of the panel.
					panel = fmt.Sprintf("%s%d", regS, resBase+(k0/Kt)*aBytes+(m0-panelRow)*kt*esz)
				}
				panelWait := 0 // the tokens of sems.Panel(st) each MXU's stream takes
				staged := 0    // converted operands: the loads sems.Staged(st) counts
				// An lhs in VMEM whose rows hold the K tile contiguously
				// is streamed where it lies, as a TPU's matrix unit is fed
				// from VMEM: no panel is copied into SRAM.
				directPanel := isResident(lv.tensor) && !conv && !resident && !winRes && !paths.lhsT && L.sCol == 1 && L.segs == nil
				switch {
				case directPanel:
				case winRes && (!load || k0 > 0):
					// The block's windows are in already: the MXUs take
					// them in order after the first tile's wait.
				case winRes:
					// The block's rows and the span its windows reach
					// past them, contiguous in HBM, into the resident area.
					elems := (rows-1)*L.sRow + winSpan - winMin
					from := (L.off[b] + m0*L.sRow + winMin) * esz
					np := dmaPieces(rows, kt*esz, len(active), len(pool))
					count, wait := len(active), 1
					if np > 1 {
						count, wait = 1, int(np)
					}
					for _, q := range splitRows(elems, np) {
						emit(dot, "dma     sram[%s%d]:%s[%d], hbm[%s%s+%d]:%s[%d] @%d signal s%d:%d", regS, resBase+q[0]*esz, lv.dt, q[1],
							regA, lv.tensor, from+q[0]*esz, lv.dt, q[1], engine(), sems.Panel(st), count)
					}
					panelWait = wait
				case !load:
					// The panel is resident already.
				case paths.lhsT:
					// The panel [kt, rows] in its own rows, then
					// transposed into [rows, kt] for the MXUs.
					np := dmaPieces(kt, rows*esz, len(active), len(pool))
					for _, q := range splitRows(kt, np) {
						eng := stageEng
						switch {
						case kSplits > 1:
							eng = pool[active[0]%len(pool)] // the MXU's own engine (allocSplitSems)
						case len(pool) > 1:
							eng = engine()
						}
						emit(dot, "dma     sram[%d]:%s[%d,%d], hbm[%s%s+%d]:%s[%d,%d]{%d,%d} @%d signal s%d", sb+stageAt+q[0]*rows*esz, lv.dt, q[1], rows,
							regA, lv.tensor, lhsAt+q[0]*L.sCol*esz, lv.dt, q[1], rows, L.sCol, L.sRow, eng, sems.Staged(st))
					}
					x := xposes % nXLU
					xposes++
					emit(dot, "xpose   sram[%s]:%s[%d,%d], sram[%d]:%s[%d,%d] @%d wait s%d:%d signal s%d:%d", panel, lv.dt, rows, kt,
						sb+stageAt, lv.dt, kt, rows, x, sems.Staged(st), np, sems.Panel(st), len(active))
					panelWait = 1
				default:
					// One MXU waits for every piece; several share one
					// piece's tokens (dmaPieces splits only for one).
					np := dmaPieces(rows, kt*esz, len(active), len(pool))
					count, wait := len(active), 1
					if np > 1 {
						count, wait = 1, int(np)
					}
					sem := sems.Panel(st)
					if conv { // loaded pieces are staged for the conversion
						sem, count, wait, staged = sems.Staged(st), 1, 1, int(np)
					}
					for _, q := range splitRows(rows, np) {
						emit(dot, "dma     sram[%s+%d]:%s[%d,%d], hbm[%s%s+%d]:%s[%d,%d]{%d,%d} @%d signal s%d:%d", panel, q[0]*kt*esz, lv.dt, q[1], kt,
							regA, lv.tensor, lhsAt+q[0]*L.sRow*esz, lv.dt, q[1], kt, L.sRow, L.sCol, engine(), sem, count)
					}
					panelWait = wait
				}
				ldw := "mxu.ldw "
				// MXUs that split a column tile's rows (dotParts) stream
				// the same weights: one load, owned by the first of them,
				// signals a token for each (long_k_l on tpuv4core read
				// its rhs twice: 50.6 MB for 33.8 of operands).
				owner, shares := map[int]int{}, map[int]int{}
				for _, i := range active {
					owner[i] = i
					for _, j := range active {
						if j == i || conv {
							break
						}
						if owner[j] == j && parts[j].n0 == parts[i].n0 && cols[j] == cols[i] {
							owner[i] = j
							break
						}
					}
					shares[owner[i]]++
				}
				// An rhs in VMEM whose tile rows are contiguous loads onto
				// the array where it lies: no tile is copied into SRAM.
				directRhs := isResident(rv.tensor) && !conv && R.segs == nil && (paths.rhsT && R.sRow == 1 || !paths.rhsT && R.sCol == 1)
				for _, i := range active {
					if owner[i] != i || directRhs {
						continue
					}
					nt := cols[i]
					at := sb + rhsAt(i)
					rhsFrom := (R.off[b] + k0*R.sRow + R.colOff(parts[i].n0)) * esz
					sem := sems.Rhs(st, i) // the MXU's, or the conversion's to wait for
					if conv {
						sem = sems.Staged(st)
						staged++
					}
					sig := fmt.Sprint(sem)
					if shares[i] > 1 {
						sig = fmt.Sprintf("%d:%d", sem, shares[i])
					}
					if paths.rhsT {
						// W^T's tile [nt, kt] in its own rows, loaded
						// transposed.
						ldw = "mxu.ldwt"
						emit(dot, "dma     sram[%d]:%s[%d,%d], hbm[%s%s+%d]:%s[%d,%d]{%d,%d} @%d signal s%s", at, rv.dt, nt, kt,
							regB, rv.tensor, rhsFrom, rv.dt, nt, kt, R.sCol, R.sRow, engine(), sig)
						continue
					}
					emit(dot, "dma     sram[%d]:%s[%d,%d], hbm[%s%s+%d]:%s[%d,%d]{%d,%d} @%d signal s%s", at, rv.dt, kt, nt,
						regB, rv.tensor, rhsFrom, rv.dt, kt, nt, R.sRow, R.sCol, engine(), sig)
				}
				if paths.rhsT {
					ldw = "mxu.ldwt"
				}
				mpanel, mAt := panel, rhsAt // what the MXUs read
				if conv {
					// The vector unit converts the set once all of its
					// loads are in (it runs in order: the first conversion
					// waits for them all), each conversion handing its
					// operand to the MXUs as a load would.
					mpanel, mAt = fmt.Sprint(sb+cpanelAt), func(i int) int64 { return crhsAt(i) }
					emit(dot, "vcvt    sram[%s]:%s[%d,%d], sram[%s]:%s[%d,%d] wait s%d:%d signal s%d:%d", mpanel, mdt, rows, kt,
						panel, lv.dt, rows, kt, sems.Staged(st), staged, sems.Panel(st), len(active))
					for _, i := range active {
						nt := cols[i]
						shape := fmt.Sprintf("%d,%d", kt, nt)
						if paths.rhsT {
							shape = fmt.Sprintf("%d,%d", nt, kt)
						}
						emit(dot, "vcvt    sram[%d]:%s[%s], sram[%d]:%s[%s] signal s%d", sb+crhsAt(i), mdt, shape, sb+rhsAt(i), rv.dt, shape, sems.Rhs(st, i))
					}
				}
				op := "mxu.mma"
				if k0/Kt < kSplits { // the first K tile of each MXU's share
					op = "mxu.mm "
				}
				for _, i := range active {
					nt := cols[i]
					wt := fmt.Sprintf("%d,%d", kt, nt)
					if paths.rhsT {
						wt = fmt.Sprintf("%d,%d", nt, kt)
					}
					ldwWait := ""
					if sharedSems && panelWait > 0 {
						ldwWait = fmt.Sprintf(":%d", 1+panelWait) // the panel's pieces too
					}
					if directRhs {
						from := (R.off[b] + k0*R.sRow + R.colOff(parts[i].n0)) * esz
						stride := R.sRow
						if paths.rhsT {
							stride = R.sCol
						}
						wait := ""
						if sharedSems && panelWait > 0 {
							wait = fmt.Sprintf(" wait s%d:%d", sems.Rhs(st, owner[i]), panelWait) // the panel's pieces alone
						}
						emit(dot, "%s hbm[%s%s+%d]:%s[%s]{%d,1} @%d%s", ldw, regB, rv.tensor, from, mdt, wt, stride, i, wait)
					} else {
						emit(dot, "%s sram[%d]:%s[%s] @%d wait s%d%s", ldw, sb+mAt(owner[i]), mdt, wt, i, sems.Rhs(st, owner[i]), ldwWait)
					}
					// The last sub-block's completion frees the set: an
					// MXU completes its instructions in order.
					p := parts[i]
					for r0 := int64(0); r0 < p.rows; r0 += sub {
						rs := min(sub, p.rows-r0)
						sync := ""
						switch {
						case r0 == 0 && panelWait > 0 && !sharedSems:
							sync = fmt.Sprintf(" wait s%d:%d", sems.Panel(st), panelWait)
						case r0 == 0 && drainOnMXU && op == "mxu.mm ":
							// (drainOnMXU holds only where this wait is free.)
							sync = fmt.Sprintf(" wait s%d", semDrained)
							drainOnMXU = false
						}
						if r0+rs == p.rows {
							sync += fmt.Sprintf(" signal s%d", sems.Free(i))
						}
						if winRes {
							// The window: rows F apart, overlapping.
							emit(dot, "%s acc[%d]:%s[%d,%d], sram[%s%d]:%s[%d,%d]{%d,1}%s @%d%s", op, acc+int64(i)*accTile+r0*nt*4, accDT, rs, nt,
								regS, resBase+((p.r0+r0)*L.sRow+L.colOff(k0)-winMin)*msz, mdt, rs, kt, L.sRow, passes, i, sync)
							continue
						}
						if directPanel {
							emit(dot, "%s acc[%d]:%s[%d,%d], hbm[%s%s+%d]:%s[%d,%d]{%d,1}%s @%d%s", op, acc+int64(i)*accTile+r0*nt*4, accDT, rs, nt,
								regA, lv.tensor, lhsAt+(p.r0+r0)*L.sRow*esz, mdt, rs, kt, L.sRow, passes, i, sync)
							continue
						}
						emit(dot, "%s acc[%d]:%s[%d,%d], sram[%s+%d]:%s[%d,%d]%s @%d%s", op, acc+int64(i)*accTile+r0*nt*4, accDT, rs, nt,
							mpanel, (p.r0+r0)*kt*msz, mdt, rs, kt, passes, i, sync)
					}
				}
				set = (set + 1) % nset
			}
			// The first tile overwrites the accumulators; full tiles
			// after it run in a counted loop of nset tiles per
			// iteration (the buffer sets come round again), so a long
			// K is not unrolled.
			// The first K tile of each MXU's share overwrites its
			// accumulators (one tile, or one per split of K).
			for k := int64(0); k < kSplits && k*Kt < K; k++ {
				kTile(k*Kt, regL, regR, "")
			}
			if drainOnMXU { // its first stream had no free wait after all
				drainLost = true
			}
			lead := kSplits // the K tiles issued before the previous group's epilogue
			if pending != nil && kSplits == 1 {
				// The previous group's epilogue waits (on the sequencer) for
				// its MXU streams to end; the MXUs then have this group's
				// lead tiles to stream while the next loads are issued: all
				// but one of the buffer sets' worth. Where the K loop below
				// runs, as many as leave it no tiles after it (nset tiles an
				// iteration), which is as much code as one lead tile was.
				most := int64(tokens) - 1
				if full := K / Kt; (full-most)/int64(nset) >= 2 && full%int64(nset) != 0 {
					most = min(most, full%int64(nset))
				}
				for ; lead < most && lead*Kt < K; lead++ {
					kTile(lead*Kt, regL, regR, "")
				}
			}
			if pending != nil {
				// The previous group's last nset-1 tiles: its MXU
				// streams end before this tile's (an MXU completes in
				// order), so their tokens come back first.
				for i := 0; i < pendingCols; i++ {
					n := tokens
					if i < len(cols) {
						n = tokens - int(lead/kSplits) // this group took lead already (with K split, one of each MXU's)
					}
					emit(dot, "wait    s%d, %d", sems.Free(i), n)
					emit(dot, "signal  s%d, %d", sems.Free(i), n)
				}
				runPending()
			}
			k0 := lead * Kt
			// A loop body is nset tiles (the buffer sets come round
			// again; with K split, each MXU's own sets).
			body := int64(nset)
			// The K tiles are a fixed step apart within a range: all of
			// K, or for windows each run of them (dotwindows.go).
			ends := []int64{K}
			if L.segs != nil {
				ends = L.runEnds(K)
			}
			for _, end := range ends {
				if end <= k0 {
					continue
				}
				iters := (end/Kt - k0/Kt) / body
				// The loop runs in segments that each start r25 and r26
				// afresh from the row block's offsets, carrying how far K
				// has gone in the tiles' constants: r25 and r26 stay within
				// a register's reach however long K is.
				stepL, stepR := body*Kt*L.sCol*esz, body*Kt*R.sRow*esz
				seg := min(iters, (registerReach-maxOf(regL))/max(stepL, 1), (registerReach-maxOf(regR))/max(stepR, 1))
				for iters >= 2 && seg >= 2 {
					n := min(seg, iters)
					c.nlabel++
					loop := fmt.Sprintf("k%d_kloop", c.nlabel)
					if regL != "" { // start from the row block's offset
						emit(dot, "addi    r25, %s, 0", regL[:len(regL)-1])
					} else {
						emit(dot, "li      r25, 0")
					}
					if regR != "" {
						emit(dot, "addi    r26, %s, 0", regR[:len(regR)-1])
					} else {
						emit(dot, "li      r26, 0")
					}
					emit(dot, "li      r27, %d", n)
					if resident || winRes {
						emit(dot, "li      r28, 0")
					}
					fmt.Fprintf(w, "%s:\n", loop)
					for j := range body {
						kTile(k0+Kt*j, "r25+", "r26+", "r28+")
					}
					emit(dot, "addi    r25, r25, %d", stepL)
					emit(dot, "addi    r26, r26, %d", stepR)
					switch {
					case resident:
						emit(dot, "addi    r28, r28, %d", body*aBytes)
					case winRes: // the windows' offset in the resident rows
						emit(dot, "addi    r28, r28, %d", body*Kt*L.sCol*msz)
					}
					emit(dot, "loop    r27, %s", loop)
					k0 += n * body * Kt
					iters -= n
				}
				for ; k0 < end; k0 += Kt {
					kTile(k0, regL, regR, "")
				}
			}
			// The epilogue of each column tile, once the MXUs have
			// drained: deferred into the next group when every MXU has
			// nset tiles in flight (see pending).
			gg := g
			// epiSyncOf is how group g's epilogue tile of rows x nt syncs.
			epiSyncOf := func(g int, rows, nt int64) epiSync {
				sy := epiSync{loadEng: loadEng, storeEng: storeEng, ready: semReady(g % 2), stored: semStored(g % 2), pieces: 1}
				if multiStore {
					sy.pieces, sy.storeEngine = storePieces(rows, nt), engine
				}
				return sy
			}
			pending, pendingCols = func(shift int64, r offReg) {
				reg := reg
				if r != nil {
					reg = r
				}
				switch {
				case pendingLooped:
					// The first group of a column-group loop emits this
					// epilogue, in later iterations that of a full group
					// whose buffers the full group two before it stores
					// from: the wait counts a full group's stores, and
					// counted evens out the first iteration's before the
					// loop.
					emit(in, "wait    s%d, %d", semStored(gg%2), storesOf[gg])
				case gg >= 2: // group gg-2's stores have left its epilogue buffers
					emit(in, "wait    s%d, %d", semStored(gg%2), storesOf[gg-2])
				}
				defer emit(dot, "vcopy   sram[%d]:f32[16], sram[%d]:f32[16] signal s%d", markAt, markAt, semDrained)
				if kSplits > 1 {
					// The splits' partial sums, added in SRAM, are the
					// epilogue's dot: column tile c's are MXUs c, ct+c, ...
					for c := range ct {
						p, nt := parts[c], cols[c]
						sum := fmt.Sprintf("sram[%d]:%s[%d,%d]", sumBase+int64(gg%2)*sumHalf+int64(c)*sumTile, accDT, p.rows, nt)
						part := func(i int64) string {
							return fmt.Sprintf("acc[%d]:%s[%d,%d]", acc+(i*int64(ct)+int64(c))*accTile, accDT, p.rows, nt)
						}
						emit(dot, "vadd    %s, %s, %s", sum, part(0), part(1))
						for i := int64(2); i < kSplits; i++ {
							emit(dot, "vadd    %s, %s, %s", sum, sum, part(i))
						}
						t := epiTileAt{b: b, m0: m0, n0: p.n0 + shift, rows: p.rows, cols: nt, acc: sum,
							sram: epiBase + int64(gg%2)*epiHalf + int64(c)*epiTile, reg: reg}
						ep.emit(t, epiSyncOf(gg, p.rows, nt), out)
					}
					return
				}
				for i, nt := range cols {
					p := parts[i]
					t := epiTileAt{
						b: b, m0: m0 + p.r0, n0: p.n0 + shift, rows: p.rows, cols: nt,
						acc:  fmt.Sprintf("acc[%d]:%s[%d,%d]", acc+int64(i)*accTile, accDT, p.rows, nt),
						sram: epiBase + int64(gg%2)*epiHalf + int64(i)*epiTile,
						reg:  reg,
					}
					ep.emit(t, epiSyncOf(gg, p.rows, nt), out)
				}
			}, len(cols)
			pendingG = gg
			g++
		}
		// counted emits a counted loop of lp.iters iterations whose body is
		// lp.period units (unit(j) emits the j-th, its accesses offset by lp's
		// registers), and records the later iterations' groups for the store
		// waits that follow. pipe, for a column-group loop whose pending
		// group is the full group one column step before its first, keeps
		// the pipeline full across the loop's boundaries (see pending).
		counted := func(lp *rowLoop, kind string, unit func(j int64), pipe *colPipe) {
			if pipe != nil && pending != nil {
				pendingReg = pipe.reg
				// Its epilogue's store wait (see pendingLooped) counts a
				// full group's stores; in the first iteration it must count
				// group pendingG-2's (none before the third group).
				prev := 0
				if pendingG >= 2 {
					prev = storesOf[pendingG-2]
				}
				switch full := storesOf[pendingG]; {
				case full > prev:
					emit(in, "signal  s%d, %d", semStored(pendingG%2), full-prev)
				case full < prev:
					emit(in, "wait    s%d, %d", semStored(pendingG%2), prev-full)
				}
				pendingLooped = true
			} else {
				pipe = nil
				flush() // a loop body cannot hold the epilogue of a group before it
			}
			for _, r := range lp.inits {
				if o, ok := lp.from[r]; ok {
					emit(in, "addi    r%d, r%d, 0", r, o)
					regMax[r] = regMax[o] + lp.iters*max(lp.step[r], 0)
				} else {
					emit(in, "li      r%d, 0", r)
					regMax[r] = lp.iters * max(lp.step[r], 0)
				}
			}
			emit(in, "li      r%d, %d", lp.counter, lp.iters)
			c.nlabel++
			label := fmt.Sprintf("k%d_%sloop", c.nlabel, kind)
			fmt.Fprintf(w, "%s:\n", label)
			first := len(tilesOf)
			for j := int64(0); j < lp.period; j++ {
				unit(j)
				pendingLooped = false
			}
			if pipe == nil {
				flush() // nor the next iteration's first group this one's last
			}
			for _, r := range lp.inits {
				emit(in, "addi    r%d, r%d, %d", r, r, lp.step[r])
			}
			emit(in, "loop    r%d, %s", lp.counter, label)
			if pipe != nil {
				// The last iteration's last group, one period behind the
				// registers now.
				pendingShift = -lp.period * pipe.step
			}
			body := append([]int(nil), tilesOf[first:]...)
			bodyStores := append([]int(nil), storesOf[first:]...)
			for i := int64(1); i < lp.iters; i++ {
				tilesOf = append(tilesOf, body...)
				storesOf = append(storesOf, bodyStores...)
				g += len(body)
			}
		}
		perBatch := ((M + mb - 1) / mb) * ((N + step - 1) / step) // groups per batch
		// Accesses that advance with the columns, by bytes per batch and per
		// column: the rhs tiles, the output and the epilogue's loads.
		colPairs := [][2]int64{{dR * esz, R.sCol * esz}, {M * N * int64(out.dt.Size()), int64(out.dt.Size())}}
		for _, b := range ep.bufs { // in order: the registers are deterministic
			if ld := ep.loads[b.name]; ld != nil {
				sz := int64(ld.v.dt.Size())
				colPairs = append(colPairs, [2]int64{ld.pB * sz, ld.pN * sz})
			}
		}
		// rowBlock emits the groups of one block of rows; reg is nil outside
		// a row-block or batch loop, bl the batch loop it is in (or nil).
		// lastSplit emits the group at columns n0 of the row block at m0;
		// the kernel's last group, when its block's panel is resident,
		// as two groups of half its rows each, so that the first half's
		// epilogue stores while the second half computes: the last
		// group's results otherwise all arrive at the MXUs' end, and the
		// kernel waits for their stores (1024^3 bf16: 2 MB, 3.4 us of a
		// 21 us kernel). Each half's weight tiles load again; halves of
		// at least splitLastRows rows stream at least as long as a tile
		// takes to load behind the previous one's swap (2K + C cycles).
		lastSplit := func(b, m0, n0 int64, reg offReg) {
			rows := min(mb, M-m0)
			splitLastRows := int64(2*c.chip.MXU.Rows + c.chip.MXU.Cols)
			// The second half's weight tiles (K rows of the group's
			// columns) load again: worth it when they are no more
			// bytes than the half's results whose store they let
			// overlap (f32 1024^3 reloaded 2 MB to overlap 2 MB of
			// stores and lost 5%).
			moreLoads := K*esz <= (rows/2)*int64(out.dt.Size())
			if h := rows / 2; resident && kSplits == 1 && n0 > 0 && n0+step >= N && m0+mb >= M && b+1 == b1 && h >= splitLastRows && moreLoads {
				group(b, m0, h, n0, reg)
				group(b, m0+h, rows-h, n0, reg)
				return
			}
			group(b, m0, rows, n0, reg)
		}
		rowBlock := func(b, m0 int64, reg offReg, bl *rowLoop) {
			n0 := int64(0)
			if bl != nil && perBatch > 16 {
				// In a batch loop of batches of many groups, the full
				// column groups run as a loop nested in it, after two
				// unrolled groups as below. With 16 groups or fewer the
				// body stays unrolled: the nested loop's boundaries drain
				// the epilogues and cost cycles (+0.9% on the bench's
				// attention scores, 8 batches of 16 groups).
				for i := 0; i < 2 && n0+step <= N; i++ {
					group(b, m0, min(mb, M-m0), n0, reg)
					n0 += step
				}
				full := n0 == 2*step && tilesOf[len(tilesOf)-1] == nM && tilesOf[len(tilesOf)-2] == nM
				if lp := c.nestedColGroupLoop(bl, N, n0, step, nk, colPairs); full && lp != nil && R.segs == nil {
					colReg := func(perB, _, perCol int64) string {
						if perCol == 0 {
							return bl.reg(perB)
						}
						return lp.reg2(perB, perCol)
					}
					counted(lp, "n", func(j int64) { group(b, m0, min(mb, M-m0), n0+j*step, colReg) }, &colPipe{colReg, step})
					n0 += lp.iters * lp.period * step
				}
			}
			if reg == nil {
				reg = noReg
				// Outside a row-block loop, the full column groups repeat
				// the same instructions but for their HBM offsets once the
				// buffer sets and accumulator halves come round again: a
				// counted loop over them, after two unrolled groups (so
				// that the store waits before it count full groups).
				for i := 0; i < 2 && n0+step <= N; i++ {
					lastSplit(b, m0, n0, reg)
					n0 += step
				}
				full := n0 == 2*step && tilesOf[len(tilesOf)-1] == nM && tilesOf[len(tilesOf)-2] == nM
				if lp := c.colGroupLoop(N, n0, step, nk, ep, R.sCol*esz, out.dt.Size()); full && lp != nil && R.segs == nil {
					colReg := func(_, _, perCol int64) string { return lp.reg(perCol) }
					counted(lp, "n", func(j int64) { group(b, m0, min(mb, M-m0), n0+j*step, colReg) }, &colPipe{colReg, step})
					n0 += lp.iters * lp.period * step
				}
			}
			for ; n0 < N; n0 += step {
				lastSplit(b, m0, n0, reg)
			}
		}
		// batch emits batch b's row blocks; outside a batch loop (reg nil)
		// with the row-block and column-group loops, inside one unrolled.
		batch := func(b int64, reg offReg, bl *rowLoop) {
			if reg != nil {
				for m0 := int64(0); m0 < M; m0 += mb {
					rowBlock(b, m0, reg, bl)
				}
				return
			}
			m0 := int64(0)
			// Row blocks repeat the same instructions but for their HBM
			// offsets once the buffer sets, accumulator halves and store
			// waits come round again: those run as a counted loop with the
			// offsets in registers (a 4.8M-row convolution is a few dozen
			// instructions, not 100,000).
			for ; m0+mb <= M && g < 2; m0 += mb {
				rowBlock(b, m0, nil, nil)
			}
			// Loops of row blocks, each as long as 32-bit register offsets
			// reach (a 6 GiB output is three), until the rest are too few.
			for {
				lp := c.rowBlockLoop(M, m0, mb, K, Kt, N, step, ep, L.sRow*esz, out.dt.Size())
				// A row-block loop unrolls its blocks' column groups; when
				// those are many and the row blocks few, the blocks unrolled,
				// each with its column-group loop, are smaller.
				if lp == nil || lp.period*((N+step-1)/step) > 8*((M-m0)/mb) {
					break
				}
				rowReg := func(_, perRow, _ int64) string { return lp.reg(perRow) }
				counted(lp, "m", func(j int64) { rowBlock(b, m0+j*mb, rowReg, nil) }, nil)
				m0 += lp.iters * lp.period * mb
			}
			for ; m0 < M; m0 += mb {
				rowBlock(b, m0, nil, nil)
			}
		}
		// Batches repeat the same instructions but for their HBM offsets
		// when those advance by a fixed step per batch (within runs of the
		// innermost batch dimension, when the outer ones stride otherwise):
		// many small batches (80,000 dots of [2x3]x[3x4]) run as counted
		// loops of batches, each after a first batch unrolled (so that the
		// store waits before the loop count the same groups as in it).
		outB := M * N * int64(out.dt.Size())
		// A batch loop's body unrolls its batches' row blocks, each with its
		// column groups in a nested loop when they are many (about 12 groups
		// of code per row block); a batch outside one keeps its own row-block
		// and column-group loops, about 8 groups of code however large. The
		// batch loop is used when its body is the smaller code: 380 batches of
		// 44 groups unrolled one by one were 277,037 instructions.
		inLoop := ((M + mb - 1) / mb) * min((N+step-1)/step, 12)
		worthLoop := func(bl *rowLoop, batches int64) bool {
			return bl != nil && (perBatch <= 16 || inLoop*bl.period < batches*min(perBatch, 8))
		}
		// The share's batches [b0, b1), in the runs that hold them (a run
		// cut at the share's ends is a run still).
		for r0 := b0; r0 < b1; {
			b, end := r0, min((r0/run+1)*run, b1)
			if affine && worthLoop(c.batchLoop(end, r0+1, perBatch, nk, dL*esz, dR*esz, ep, outB), end-r0-1) {
				for ; b < end && (b < r0+1 || g < 2); b++ {
					batch(b, nil, nil)
				}
				// Loops of batches until the rest are too few, each as
				// long as 32-bit register offsets reach.
				for {
					bl := c.batchLoop(end, b, perBatch, nk, dL*esz, dR*esz, ep, outB)
					if bl == nil {
						break
					}
					batchReg := func(perB, _, _ int64) string { return bl.reg(perB) }
					counted(bl, "b", func(j int64) { batch(b+j, batchReg, bl) }, nil)
					b += bl.iters * bl.period
				}
			}
			for ; b < end; b++ {
				batch(b, nil, nil)
			}
			r0 = end
		}
		flush()
		emit(in, "barrier")
		if drainLost {
			return c.fail(in, "internal error: a dot group's first stream had no wait free for the accumulator's drain")
		}
		return nil
	}
	// Batches of one-tile matrices run in chunks (dotbatched.go), which a
	// share of the batches would lose: such a dot stays whole.
	_, chunked := c.planBatchedSmall(B, M, K, N, min(K, int64(c.chip.MXU.Rows)), min(N, int64(c.chip.MXU.Cols)), paths, affine, run, ep, int64(lv.dt.Size()))
	return c.dotOnCores(in, B, M, N, chunked && mdt == lv.dt, lowerShare)
}

// maxResidentBlocks bounds the row blocks of a dot whose lhs panel stays
// resident (XLA's spmd_partitioner_test.cc:10160, a 3x3 convolution as
// nine [8192x1280x1280] dots, was 116,118 instructions on teach16 in
// blocks of 88 rows; 52,889 streaming the panel).
const maxResidentBlocks = 32

// residentTraffic reports whether keeping each row block's lhs panel in
// SRAM (blocks of mb1 rows) moves fewer HBM bytes than re-reading it for
// every group of step columns (blocks of mb rows): the lhs is then read
// once, the rhs once per row block either way.
func residentTraffic(M, K, N, step, mb, mb1 int64) bool {
	ceil := func(a, b int64) int64 { return (a + b - 1) / b }
	streamed := M*K*ceil(N, step) + K*N*ceil(M, mb)
	kept := M*K + K*N*ceil(M, mb1)
	return kept < streamed
}

// dotPasses is the bf16 passes XLA's TPU backend makes for an f32 dot
// (0: the chip's own f32 rate): from its algorithm (dot_bf16_bf16_f32 1,
// _x3 3, _x6 6, dot_f32_f32_f32 0) or else its operands' precisions, the
// more precise of the two: DEFAULT (or none given) 1, HIGH 3 (bf16_3x),
// HIGHEST 6 (bf16_6x).
func dotPasses(dot *hlo.Instruction) int {
	if a, ok := dot.Attr("algorithm"); ok {
		a = strings.ToLower(a)
		switch {
		case strings.Contains(a, "x6"):
			return 6
		case strings.Contains(a, "x3") || strings.Contains(a, "tf32"):
			return 3
		case strings.Contains(a, "bf16_bf16"):
			return 1
		case strings.Contains(a, "f32_f32_f32"):
			return 0
		}
	}
	v, ok := dot.Attr("operand_precision")
	if !ok {
		v, _ = dot.Attr("precision_config")
	}
	passes := 1
	for _, p := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == '{' || r == '}' || r == ',' || r == ' ' }) {
		switch p {
		case "high":
			passes = max(passes, 3)
		case "highest":
			passes = max(passes, 6)
		}
	}
	return passes
}

// exactConvert reports whether converting from to the element type to is
// exact and cheap, as a dot fusion's operand conversion is: a 16-bit or
// 8-bit float widened to f32, or an 8-bit float to bf16.
func exactConvert(from isa.DType, to string) bool {
	switch to {
	case hlo.F32:
		return from == isa.F16 || from == isa.BF16 || from.IsFloat() && from.Size() == 1
	case hlo.BF16:
		return from.IsFloat() && from.Size() == 1
	}
	return false
}
