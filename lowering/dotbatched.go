package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/config"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Many small dots (a batch of [M,K] x [K,N] that each fit one weight tile
// and one column tile: per-head attention of short sequences, vmapped
// per-example matmuls) run in chunks of P batches: one DMA brings the
// chunk's lhs [P, M, K] and one its rhs tiles [P, K, N] (or [P, N, K],
// loaded transposed), the MXUs take the batches in turn (batch p on MXU
// p mod nM: a weight load and one stream each), and one epilogue tile
// [P*M, N] converts and stores the chunk. Done a batch at a time, each
// batch paid the loads' latency and a group boundary: 512 dots of
// 16x16x16 took 140,461 cycles on tpuv4core for a roof of 2,690.
//
// Each buffer set has its own semaphores as in dotKernel (semPanel and
// sems.Rhs(set, 0) count a token per batch of the chunk); each MXU used by
// a chunk returns one token (semFree) with its last stream; accumulator
// and epilogue halves alternate by chunk, and a chunk waits for the
// stores of the chunk two before it (semStored by half).

// Packed (G > 1): where G batches' weights fit the array side by side
// (K and N at most a G-th of its rows and columns), a chunk runs as packs
// of G batches, each one weight load and one stream: the pack's weights
// are the block diagonal of its G tiles ([G*K, G*N], zero elsewhere, the
// zeros written once per buffer set), its lhs the G batches' rows side by
// side ([M, G*K], batch i in columns i*K..), so that its result [M, G*N]
// holds batch i's in columns i*N... The loads and the store permute
// batches and columns with strided DMA. A weight load and a stream a
// batch paid the array's fill and drain once a batch: 512 dots of
// 16x16x16 f32 took 20,971 cycles on tpuv4core for a roof of 2,690.

// batchedSmall is the plan of a chunked batched dot: P batches a chunk,
// in packs of G (1: unpacked).
type batchedSmall struct {
	P, G               int64
	lhsBytes, rhsBytes int64 // a chunk's panel and tiles in a buffer set
	// stageBytes: a transposed lhs's chunk as loaded ([P, K, M]), beside
	// its panel, each batch then transposed by an xpose.
	stageBytes int64
	epiTile    int64 // a chunk's epilogue buffers
}

// maxRunChunks bounds the chunks of batches whose steps are fixed only
// within runs (attention heads interleaved with positions: [b, s, h, d]):
// those chunks are unrolled, not looped.
const maxRunChunks = 64

// planBatchedSmall sizes the chunks, or returns false when the dot is not
// a batch of single-tile dots this path takes. The batches' operands
// advance by fixed steps through runs of run batches (batchRuns): a chunk
// stays within one.
func (c *compiler) planBatchedSmall(B, M, K, N, Kt, Nt int64, paths operandPaths, affine bool, run int64, ep *epilogue, esz int64) (batchedSmall, bool) {
	if B < 2 || !affine || run < 2 || B%run != 0 || K > Kt || N > Nt || c.chip.MXU.Dataflow != "ws" || M > 1024 {
		return batchedSmall{}, false
	}
	// A transposed lhs is staged and transposed on a cross-lane unit: its
	// loads are runs of M elements, which engines with a rate cap move
	// slower than the dot kernel's K-tile panels (trn1nc, 8 batches of
	// [64,32]^T x [64,64]: 29,021 -> 32,559 cycles).
	if paths.lhsT && (c.chip.XLU.Count < 1 || c.chip.DMA.EngineGBps > 0) {
		return batchedSmall{}, false
	}
	for _, ld := range ep.loads {
		if ld.pB != M*ld.pM { // the chunk's rows must run through batches as the load's do
			return batchedSmall{}, false
		}
	}
	// At least eight chunks where the batches are many, so that loading a
	// chunk overlaps computing the one before (128 batches of 64x64x64 in
	// one chunk loaded everything, then computed: 0.36 of the roof), and a
	// chunk as many batches as there are MXUs at least.
	nM := int64(min(c.chip.MXU.Count, 4))
	G := packOf(B, K, N, c.chip, ep)
	if paths.lhsT {
		G = 1 // packs permute the lhs as they load it; a transposed one is staged
	}
	most := min(B, 256*G, max(nM*G, 2, (B+7)/8))
	var best batchedSmall
	for P := most; P >= 2; P-- {
		if P%G != 0 || run < B && (run%P != 0 || B/P > maxRunChunks) {
			continue // chunks do not cross the runs of batches with fixed steps
		}
		p := batchedSmall{P: P, G: G, lhsBytes: align64(P * M * K * esz), rhsBytes: align64(P * G * K * N * esz)}
		if paths.lhsT {
			p.stageBytes = p.lhsBytes
		}
		p.epiTile = ep.layout(P*M, N)
		sram := int64(defaultSets)*(p.lhsBytes+p.rhsBytes+p.stageBytes) + 2*p.epiTile + 64*int64(len(ep.bufs)+2)
		if sram <= c.chip.Memory.SRAMBytes && 2*P*M*N*4 <= c.chip.Memory.ACCBytes {
			best = p
			break
		}
	}
	return best, best.P >= 2
}

// packOf is how many batches a pack holds (see batchedSmall): as many
// weight tiles as fit the array's diagonal, where the batches divide into
// such packs and the epilogue is the dot alone (its store permutes the
// result; a fused epilogue's operands would need the same). The permuting
// loads move runs of one tile row (K or N elements): on engines with a
// rate cap and few requests in flight (trn1nc: 29 GB/s, 16 of them) runs
// of 128 bytes are slower than the fill and drain a pack of two saves
// (64x64x64 bf16: 0.32 -> 0.28 of the roof), so there packs are of four
// batches at least (16x16x16 f32, eight a pack: 0.062 -> 0.077).
func packOf(B, K, N int64, chip *config.Chip, ep *epilogue) int64 {
	G := min(int64(chip.MXU.Rows)/K, int64(chip.MXU.Cols)/N)
	if G < 2 || B%G != 0 || len(ep.loads) > 0 || len(ep.order) != 1 || ep.root != ep.dot {
		return 1
	}
	if chip.DMA.EngineGBps > 0 && G < 4 {
		return 1
	}
	return G
}

// batchedSmallDot emits the chunked kernel of plan p (see batchedSmall).
func (c *compiler) batchedSmallDot(in, dot *hlo.Instruction, p batchedSmall, L, R dotView, dL, dR int64, B, run, M, K, N int64,
	paths operandPaths, passes string, accDT isa.DType, ep *epilogue, out *value) {
	lv, rv := L.v, R.v
	esz := int64(lv.dt.Size())
	nM := min(c.chip.MXU.Count, 4)
	w := &c.out
	emit := func(at *hlo.Instruction, format string, a ...any) {
		c.loc(at)
		fmt.Fprintf(w, "        "+format+"\n", a...)
	}
	const nset = defaultSets
	sems, _ := allocDotSems(nset, 1)
	c.dotSets = nset
	setBytes := p.lhsBytes + p.rhsBytes + p.stageBytes
	epiBase := int64(nset) * setBytes
	accHalf := p.P * M * N * 4
	storeEng, loadEng := 0, 0
	if c.chip.DMA.Engines > 1 {
		storeEng = 1
	}
	if c.chip.DMA.Engines > 2 {
		loadEng = 2
	}
	// A chunk's loads and stores are split by batches over the engines
	// of the pool, each engine keeping its own bursts in flight (one
	// engine moved 221 of tpuv4core's 614 GB/s); the epilogue halves
	// then have their own ready (s1, s2) and stored (s3, s4) semaphores,
	// as dotKernel's spread stores, so that no store takes the other
	// half's token.
	pool := dmaPool(c.chip.DMA.Engines, storeEng, loadEng)
	engine := inTurn(pool)
	for i := range nM {
		emit(in, "semset  s%d, %d", sems.Free(i), nset)
	}
	for _, s := range []int{1, 2, 3, 4, 15} {
		emit(in, "semset  s%d, 0", s)
	}
	for st := range nset {
		emit(in, "semset  s%d, 0", sems.Panel(st))
		emit(in, "semset  s%d, 0", sems.Rhs(st, 0))
		if paths.lhsT {
			emit(in, "semset  s%d, 0", sems.Staged(st))
		}
	}
	nXLU := int64(min(max(c.chip.XLU.Count, 1), 2))
	G := max(p.G, 1)
	wRows, wCols := K, N // a weight tile as loaded
	if paths.rhsT {
		wRows, wCols = N, K
	}
	if G > 1 {
		// The packs' block-diagonal weights are zero off the diagonal:
		// written once per set, before any load writes its diagonal.
		for st := range nset {
			emit(in, "vfill   sram[%d]:%s[%d,%d], 0 signal s15", int64(st)*setBytes+p.lhsBytes, rv.dt, p.P*wRows, G*wCols)
		}
		emit(in, "wait    s15, %d", nset)
	}
	set, chunk := 0, 0
	var storesOf []int
	var pending func()
	var pendingUsed int
	// one emits the chunk of P batches from b0; reg adds a loop's offset
	// to an access advancing by the given bytes per batch.
	one := func(b0, P int64, reg offReg) {
		st, sb := set, int64(set)*setBytes
		used := int(min(P/G, int64(nM)))
		for i := range used {
			emit(dot, "wait    s%d, 1", sems.Free(i))
		}
		if chunk >= 2 {
			emit(in, "wait    s%d, %d", 3+chunk%2, storesOf[chunk-2])
		}
		r := func(perB int64) string { return reg(perB, 0, 0) }
		rAt := sb + p.lhsBytes
		// unitWait is the sync of unit u of n (a batch, or a pack) on a
		// semaphore that np load pieces signal, a token a unit: with one
		// piece the tokens arrive together, one for each unit whatever
		// MXU takes it; pieces land in their engines' order, so there the
		// one MXU's first unit waits for every token and the rest follow
		// it in order (a unit waiting for a token could take one of a
		// later piece: a race the detector saw on trn1nc once pieces
		// were 32 KiB). Several MXUs get one piece (dmaPieces).
		unitWait := func(sem int, u, n, np int64) string {
			switch {
			case np == 1:
				return fmt.Sprintf(" wait s%d:1", sem)
			case u == 0:
				return fmt.Sprintf(" wait s%d:%d", sem, n)
			}
			return ""
		}
		ldw := "mxu.ldw "
		if paths.rhsT {
			ldw = "mxu.ldwt"
		}
		acc := int64(chunk%2) * accHalf
		// streams emits the chunk's n units (batches, or packs), unit j on
		// MXU j mod nM: a weight load of [wr, wc] at rAt+j*wr*wc, then a
		// stream of M rows of lk from sb+j*M*lk into acc[.. + j*M*an]:[M, an].
		streams := func(n, wr, wc, lk, an, npL, npR int64) {
			for j := range n {
				i := int(j % int64(nM))
				emit(dot, "%s sram[%d]:%s[%d,%d] @%d%s", ldw, rAt+j*wr*wc*esz, rv.dt, wr, wc, i, unitWait(sems.Rhs(st, 0), j, n, npR))
				sig := ""
				if j+int64(nM) >= n { // the MXU's last stream of the chunk
					sig = fmt.Sprintf(" signal s%d", sems.Free(i))
				}
				emit(dot, "mxu.mm  acc[%d]:%s[%d,%d], sram[%d]:%s[%d,%d]%s @%d%s%s", acc+j*M*an*4, accDT, M, an,
					sb+j*M*lk*esz, lv.dt, M, lk, passes, i, unitWait(sems.Panel(st), j, n, npL), sig)
			}
		}
		s1, s2 := R.sRow, R.sCol
		if paths.rhsT {
			s1, s2 = R.sCol, R.sRow
		}
		if G > 1 {
			// Pack j of the chunk: its lhs [M, G*K] at sb+j*M*G*K (batch
			// jG+i in columns i*K..), its weights the block diagonal
			// [G*wRows, G*wCols] at rAt+j*G*wRows*G*wCols.
			packs := P / G
			npL, npR := dmaPieces(packs, M*G*K*esz, used, len(pool)), dmaPieces(packs, G*K*N*esz, used, len(pool))
			for _, q := range splitRows(packs, npL) {
				emit(dot, "dma     sram[%d]:%s[%d,%d,%d,%d], hbm[%s%s+%d]:%s[%d,%d,%d,%d]{%d,%d,%d,%d} @%d signal s%d:%d", sb+q[0]*M*G*K*esz, lv.dt, q[1], M, G, K,
					r(dL*esz), lv.tensor, (L.off[b0]+q[0]*G*dL)*esz, lv.dt, q[1], M, G, K, G*dL, L.sRow, dL, L.sCol, engine(), sems.Panel(st), q[1])
			}
			pw := G * wRows * G * wCols // a pack's weights, elements
			for _, q := range splitRows(packs, npR) {
				emit(dot, "dma     sram[%d]:%s[%d,%d,%d,%d]{%d,%d,%d,1}, hbm[%s%s+%d]:%s[%d,%d,%d,%d]{%d,%d,%d,%d} @%d signal s%d:%d", rAt+q[0]*pw*esz, rv.dt, q[1], G, wRows, wCols, pw, wRows*G*wCols+wCols, G*wCols,
					r(dR*esz), rv.tensor, (R.off[b0]+q[0]*G*dR)*esz, rv.dt, q[1], G, wRows, wCols, G*dR, dR, s1, s2, engine(), sems.Rhs(st, 0), q[1])
			}
			streams(packs, G*wRows, G*wCols, G*K, G*N, npL, npR)
		} else {
			npL, npR := dmaPieces(P, M*K*esz, used, len(pool)), dmaPieces(P, K*N*esz, used, len(pool))
			if paths.lhsT {
				// Each batch [K, M] in its own rows, staged, then
				// transposed into [M, K] on one cross-lane unit (the
				// chunk's, in turn), whose last xpose gives every
				// stream its token at once (npL 1 below).
				stage := sb + p.lhsBytes + p.rhsBytes
				for _, q := range splitRows(P, npL) {
					emit(dot, "dma     sram[%d]:%s[%d,%d,%d], hbm[%s%s+%d]:%s[%d,%d,%d]{%d,%d,%d} @%d signal s%d", stage+q[0]*M*K*esz, lv.dt, q[1], K, M,
						r(dL*esz), lv.tensor, (L.off[b0]+q[0]*dL)*esz, lv.dt, q[1], K, M, dL, L.sCol, L.sRow, engine(), sems.Staged(st))
				}
				x := int64(chunk) % nXLU
				for j := range P {
					sync := ""
					if j == 0 {
						sync = fmt.Sprintf(" wait s%d:%d", sems.Staged(st), npL)
					}
					if j == P-1 {
						sync += fmt.Sprintf(" signal s%d:%d", sems.Panel(st), P)
					}
					emit(dot, "xpose   sram[%d]:%s[%d,%d], sram[%d]:%s[%d,%d] @%d%s", sb+j*M*K*esz, lv.dt, M, K, stage+j*K*M*esz, lv.dt, K, M, x, sync)
				}
				npL = 1
			} else {
				for _, q := range splitRows(P, npL) {
					emit(dot, "dma     sram[%d]:%s[%d,%d,%d], hbm[%s%s+%d]:%s[%d,%d,%d]{%d,%d,%d} @%d signal s%d:%d", sb+q[0]*M*K*esz, lv.dt, q[1], M, K,
						r(dL*esz), lv.tensor, (L.off[b0]+q[0]*dL)*esz, lv.dt, q[1], M, K, dL, L.sRow, L.sCol, engine(), sems.Panel(st), q[1])
				}
			}
			for _, q := range splitRows(P, npR) {
				emit(dot, "dma     sram[%d]:%s[%d,%d,%d], hbm[%s%s+%d]:%s[%d,%d,%d]{%d,%d,%d} @%d signal s%d:%d", rAt+q[0]*wRows*wCols*esz, rv.dt, q[1], wRows, wCols,
					r(dR*esz), rv.tensor, (R.off[b0]+q[0]*dR)*esz, rv.dt, q[1], wRows, wCols, dR, s1, s2, engine(), sems.Rhs(st, 0), q[1])
			}
			streams(P, wRows, wCols, K, N, npL, npR)
		}
		set = (set + 1) % nset
		if pending != nil {
			// The previous chunk's streams are done once every MXU has
			// its tokens back but the one this chunk took.
			for i := range pendingUsed {
				n := nset
				if i < used {
					n = nset - 1
				}
				emit(dot, "wait    s%d, %d", sems.Free(i), n)
				emit(dot, "signal  s%d, %d", sems.Free(i), n)
			}
			pending()
		}
		cc := chunk
		pieces := dmaPieces(P*M, N*int64(out.dt.Size()), 1, len(pool))
		if G > 1 {
			packs, osz := P/G, int64(out.dt.Size())
			pieces = dmaPieces(packs, M*G*N*osz, 1, len(pool))
			pending, pendingUsed = func() {
				// The packs' results [M, G*N] converted as one tile, then
				// stored with batches and columns unpermuted: pack j's
				// row m, column block i is batch jG+i's row m.
				c.loc(ep.dot)
				op, odt := "vcopy  ", ep.byName[ep.dot.Name].dt
				if odt != accDT {
					op = "vcvt   "
				}
				epi := epiBase + int64(cc%2)*p.epiTile
				emit(dot, "%s sram[%d]:%s[%d,%d], acc[%d]:%s[%d,%d] signal s%d:%d", op, epi, odt, packs*M, G*N, acc, accDT, packs*M, G*N, 1+cc%2, pieces)
				for _, q := range splitRows(packs, pieces) {
					emit(dot, "dma     hbm[%s%s+%d]:%s[%d,%d,%d,%d]{%d,%d,%d,1}, sram[%d]:%s[%d,%d,%d,%d] @%d wait s%d signal s%d", reg(M*N*osz, N*osz, osz), out.tensor,
						(b0+q[0]*G)*M*N*osz, out.dt, q[1], M, G, N, G*M*N, N, M*N, epi+q[0]*M*G*N*osz, odt, q[1], M, G, N, engine(), 1+cc%2, 3+cc%2)
				}
			}, used
			storesOf = append(storesOf, int(pieces))
			chunk++
			return
		}
		pending, pendingUsed = func() {
			t := epiTileAt{b: b0, m0: 0, n0: 0, rows: P * M, cols: N,
				acc:  fmt.Sprintf("acc[%d]:%s[%d,%d]", acc, accDT, P*M, N),
				sram: epiBase + int64(cc%2)*p.epiTile, reg: reg}
			ep.emit(t, epiSync{loadEng: loadEng, storeEng: storeEng, ready: 1 + cc%2, stored: 3 + cc%2, pieces: pieces, storeEngine: engine}, out)
		}, used
		storesOf = append(storesOf, int(pieces))
		chunk++
	}
	flush := func() {
		if pending == nil {
			return
		}
		for i := range pendingUsed {
			emit(dot, "wait    s%d, %d", sems.Free(i), nset)
			emit(dot, "signal  s%d, %d", sems.Free(i), nset)
		}
		pending()
		pending = nil
	}
	noReg := func(int64, int64, int64) string { return "" }
	if run < B {
		// Runs of batches: each run's chunks unrolled (planBatchedSmall
		// keeps them few).
		for b := int64(0); b < B; b += p.P {
			one(b, p.P, noReg)
		}
		flush()
		emit(in, "barrier")
		return
	}
	b := int64(0)
	// Two chunks unrolled, then counted loops of full chunks (a period of
	// six brings the buffer sets and halves back), then the rest.
	for ; b+p.P <= B && chunk < 2; b += p.P {
		one(b, p.P, noReg)
	}
	strides := []int64{dL * esz, dR * esz, M * N * int64(out.dt.Size())}
	for _, eb := range ep.bufs {
		if ld := ep.loads[eb.name]; ld != nil {
			strides = append(strides, ld.pB*int64(ld.v.dt.Size()))
		}
	}
	for {
		lp := planLoop(nset, 1, 1, (B-b)/p.P, p.P, strides, true)
		if lp == nil {
			break
		}
		flush()
		for _, r := range lp.inits {
			emit(in, "li      r%d, 0", r)
		}
		emit(in, "li      r%d, %d", lp.counter, lp.iters)
		c.nlabel++
		label := fmt.Sprintf("k%d_pkloop", c.nlabel)
		fmt.Fprintf(w, "%s:\n", label)
		first := len(storesOf)
		batchReg := func(perB, _, _ int64) string { return lp.reg(perB) }
		for j := range lp.period {
			one(b+j*p.P, p.P, batchReg)
		}
		flush()
		for _, r := range lp.inits {
			emit(in, "addi    r%d, r%d, %d", r, r, lp.step[r])
		}
		emit(in, "loop    r%d, %s", lp.counter, label)
		body := append([]int(nil), storesOf[first:]...)
		for i := int64(1); i < lp.iters; i++ {
			storesOf = append(storesOf, body...)
			chunk += len(body)
		}
		b += lp.iters * lp.period * p.P
	}
	for ; b < B; b += p.P {
		one(b, min(p.P, B-b), noReg)
	}
	flush()
	emit(in, "barrier")
}
