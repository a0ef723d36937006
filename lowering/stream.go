package lowering

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Streaming kernels: the skeleton loop and reduce kernels share. The
// kernel walks R rows in tiles of TR; every buffer holds TR of its rows
// (its own row shape: the output's row, or a reduction's [cols] and [1]);
// per tile, loads fill buffers from HBM, vector instructions compute, and
// the result buffer is stored. Two buffer sets let tile i+1 load while
// tile i computes and stores:
//
//	s2  free buffer sets (the store signals; the tile's first instruction waits)
//	s0  loads done (each load signals; the first vector instruction waits for all)
//	s1  tile computed (the last vector instruction signals; the store waits)
//
// Kernels end with a barrier: the next kernel reads what this one stored.

// hbmAccess is a DMA between HBM and a tile, repeated per tile with the
// HBM offset advancing by adv bytes (0: the same bytes every tile).
type hbmAccess struct {
	src     *value
	strides []int64 // element strides over the tile's dimensions
	base    int64   // bytes from the tensor's start to element 0 of the first tile
	adv     int64
	reg     int     // offset register, 0 when the offset never changes
	outer   []int64 // per pass over the rows (streamSpec.passes): bytes added to base
	// smem, when set, reads scalar memory at that word instead of HBM (a
	// scalar the sequencer computed: seqscalar.go).
	smem *int64
	// iota, when set, marks a load of that iota instruction's constant,
	// which the kernel may make on chip instead (iotaonchip.go); src has
	// no tensor until placeIotas stores the constant.
	iota *hlo.Instruction
}

type streamBuf struct {
	name string
	at   *hlo.Instruction // for .loc
	dt   isa.DType
	row  []int64    // the shape of one row
	load *hbmAccess // nil: computed
	off  int64
	// static buffers sit outside the double-buffered sets and are filled
	// once, before the first tile (constants).
	static bool
	// oneRow buffers hold a single row whatever the tile size (a row
	// broadcast's source).
	oneRow bool
	// share, when set, is the buffer that loads this one's rows: the same
	// array shifted by shift rows (windows.go); this one loads nothing.
	share *streamBuf
	shift int64
	// span is how many rows past the tile a shared load reads, for the
	// buffers shifted furthest.
	span int64
	// hull, when set, is where this buffer's rows lie in the rows of a
	// load it shares with views at other offsets within the rows
	// (windowhull.go); this one loads nothing.
	hull *hullView
	// direct: the load's source is in VMEM and the ops read it where it
	// lies (directLoads), with no SRAM tile and no DMA.
	direct bool
}

type streamOp struct {
	at     *hlo.Instruction
	emit   func(tile func(name string) string, sync string)
	static bool // runs once before the first tile (fills a static buffer)
	// perPass ops run before each pass's first tile (an accumulator's
	// fill, see streamSpec.accumulate).
	perPass bool
	// emitRows, when set, replaces emit: it sees the tile's row count and
	// can address a run of a buffer's rows.
	emitRows func(view func(name string, from, n int64) string, rows int64, sync string)
	// bcast, when set, marks a broadcast of the buffer bcast into the
	// buffer dst (compactBroadcasts): a chunked tile reads the source
	// through a view of stride 0 instead (streamchunks.go).
	bcast, dst string
}

type streamSpec struct {
	in           *hlo.Instruction
	kind         string
	rows         int64
	bufs         []*streamBuf
	ops          []streamOp
	result       string  // buffer stored
	out          *value  // HBM destination
	outRow       []int64 // the destination's row shape
	flops, bytes int64
	// passes repeats the walk over the rows (with each access's outer
	// offsets): the outer dimensions of a tiling that cannot collapse them.
	passes int
	// accumulate folds every tile into the result buffer, a static single
	// row, which is stored once per pass (outRow elements per pass): a
	// column reduction. The result's perPass ops fill it first.
	accumulate bool
	sets       int64 // buffer sets the tiles rotate through (streamKernel)
	// prologue, when set, emits what runs before the first tile (the
	// scalars the sequencer computes for the kernel).
	prologue func()
	// rowMultiple, when above 1, is what every tile's rows are a multiple
	// of (a broadcast repeating every rowMultiple rows: reduce.go).
	rowMultiple int64
	// extraStores are a multi-output loop fusion's other results, each
	// stored per tile like result (not with accumulate).
	extraStores []extraStore
	// chunks, when set, runs each tile's ops in chunks of rows through the
	// vector registers (streamchunks.go).
	chunks *chunkPlan
	// direct: the result is in VMEM and the last op writes it where it
	// lies (directResult), with no SRAM tile and no store.
	direct bool
	// storeAt, when set, is where each pass's result goes (byte offsets
	// into out) instead of one pass's rows after another's: a column
	// reduction's chunks, the last of which may overlap the one before.
	storeAt []int64
}

// directLoads marks the loads the ops can read where they lie: sources
// in VMEM, read by plain per-tile accesses (not hoisted, shared, windowed,
// broadcast through a compact source, or walked in passes) in a kernel of
// per-tile ops. A TPU's vector loads read VMEM directly; through an SRAM
// tile, each tile's operand cost a DMA descriptor and a copy before the
// first op could start.
//
// An operand whose array a direct result overwrites in place is read
// from an SRAM copy unless the result's op is a single instruction
// (rootSingle): an op of several may write its result before reading all
// its operands (a select is a copy of one, then a vsel of the other over
// it); the ops before it read the operand before it is written (the
// vector unit runs in order), chunk by chunk over disjoint rows.
func directLoads(sp *streamSpec, rootSingle bool) {
	if sp.accumulate || sp.passes > 1 {
		return
	}
	for _, op := range sp.ops {
		if op.emitRows != nil {
			return
		}
	}
	shared := map[*streamBuf]bool{}
	bcast := map[string]bool{}
	for _, b := range sp.bufs {
		if b.share != nil {
			shared[b.share] = true
		}
		if b.hull != nil {
			shared[b.hull.of] = true
		}
	}
	for _, op := range sp.ops {
		if op.bcast != "" {
			bcast[op.bcast] = true
		}
	}
	for _, b := range sp.bufs {
		l := b.load
		b.direct = l != nil && l.smem == nil && isResident(l.src.tensor) && len(l.outer) == 0 && l.src.dt == b.dt &&
			!b.static && !b.oneRow && b.share == nil && b.hull == nil && b.span == 0 && !shared[b] && !bcast[b.name] &&
			!(sp.direct && l.src.tensor == sp.out.tensor && !rootSingle)
	}
}

// singleInstruction reports whether the per-tile op writing buffer name
// emits a single instruction (emitted into a scratch buffer to count).
func (c *compiler) singleInstruction(sp *streamSpec, name string) bool {
	for _, op := range tileOps(sp) {
		if op.at == nil || op.at.Name != name || op.emitRows != nil {
			continue
		}
		saved := c.out
		c.out = asmBuf{}
		at := map[string]int{} // each buffer a tile of its own
		op.emit(func(b string) string {
			if _, ok := at[b]; !ok {
				at[b] = len(at)
			}
			return fmt.Sprintf("sram[%d]:f32[1]", 64*at[b])
		}, "")
		n := 0
		for _, line := range strings.Split(c.out.String(), "\n") {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, ".") {
				n++
			}
		}
		c.out = saved
		return n == 1
	}
	return false
}

// directResult reports whether a stream kernel's result can be written
// where it lies: an output in VMEM, of the result buffer's type and rows,
// one store per tile (no accumulation, extra results or passes), every op
// emitted per tile. A TPU's vector stores write VMEM directly; through an
// SRAM tile, each tile's result cost a DMA descriptor and a copy, the last
// of them on the kernel's end.
func directResult(sp *streamSpec, res *streamBuf) bool {
	if sp.accumulate || len(sp.extraStores) > 0 || sp.passes > 1 || !isResident(sp.out.tensor) ||
		res.dt != sp.out.dt || !slices.Equal(res.row, sp.outRow) ||
		res.static || res.oneRow || res.hull != nil || res.share != nil || res.span > 0 || res.load != nil {
		return false
	}
	for _, b := range sp.bufs {
		if b.share == res {
			return false
		}
	}
	ops := tileOps(sp)
	for _, op := range ops {
		if op.emitRows != nil {
			return false
		}
	}
	return len(ops) > 0
}

// extraStore is one more buffer a stream kernel stores per tile, into an
// HBM array of the output's row shape.
type extraStore struct {
	result string
	out    *value
}

// extraStores pairs a multi-output fusion's extra results with their arrays.
func extraStores(extras []*hlo.Instruction, outs []*value) []extraStore {
	var st []extraStore
	for i, x := range extras {
		st = append(st, extraStore{result: x.Name, out: outs[i]})
	}
	return st
}

// stores counts the buffers a tile stores.
func (sp *streamSpec) stores() int64 { return 1 + int64(len(sp.extraStores)) }

func (c *compiler) streamKernel(sp streamSpec) error {
	in := sp.in
	c.iotasInRows(&sp)
	c.compactBroadcasts(&sp)
	// A kernel that only fills constants (a broadcast scalar as the result)
	// fills per tile: its store needs a vector instruction to wait for.
	dynamic := false
	for _, op := range sp.ops {
		dynamic = dynamic || !op.static
	}
	loaded := false
	for _, b := range sp.bufs {
		loaded = loaded || b.load != nil
	}
	if !dynamic && !loaded {
		for i := range sp.ops {
			sp.ops[i].static = false
		}
		for _, b := range sp.bufs {
			b.static = false
		}
	}
	shareWindows(&sp)
	hoistInvariantLoads(&sp)
	byName := map[string]*streamBuf{}
	// Buffer sets rotate so that a tile's load, its computation and the
	// store of the tile before it overlap: with two, the load of tile k+2
	// waits for the store of tile k, so a kernel whose loads, vector work
	// and stores take about as long each ran at two thirds of the slowest;
	// with three every stage can stay busy, as XLA's separately
	// double-buffered inputs and outputs do. An accumulating walk keeps
	// two (its sets are freed by the fold, not by a store).
	nsets := int64(3)
	if sp.accumulate {
		nsets = 2
	}
	// A tile's rows lie back to back and only the tile is aligned, so a
	// row costs its own bytes: a row of one element (a 1-D array walked
	// element by element) is not a 64-byte line. The alignment of each
	// tile, up to 63 bytes a buffer in each set and in the static copies,
	// is set aside in fixed.
	var bytesPerRow, fixed int64
	for _, b := range sp.bufs {
		byName[b.name] = b
		n := prod(b.row) * int64(b.dt.Size())
		switch {
		case b.share != nil, b.hull != nil:
			// In its share's or its hull's rows.
		case b.span > 0:
			bytesPerRow += n
			fixed += 2*63 + b.span*n
		case b.oneRow:
			fixed += 2 * align64(n)
		case b.static:
			bytesPerRow += (n + nsets - 1) / nsets // once, not per set: a set's share
			fixed += 63
		default:
			bytesPerRow += n
			fixed += 2 * 63
		}
	}
	res := byName[sp.result]
	if res == nil {
		return c.fail(in, "internal error: no result buffer")
	}
	whole := c.chip.Memory.SRAMBytes / nsets
	budget := min(whole, 4<<20) // big enough to stream at full rate, small enough to overlap
	TR := (budget - fixed) / bytesPerRow
	if TR < 1 {
		// A row longer than that (a loss over a 128K vocabulary with
		// a dozen buffers) still streams a row at a time where the
		// sets' share of SRAM holds it.
		TR = (whole - fixed) / bytesPerRow
	}
	if TR < 1 {
		return c.fail(in, "one row of the kernel's %d buffers takes %d bytes, more than SRAM allows", len(sp.bufs), bytesPerRow)
	}
	R := sp.rows
	if TR > R {
		TR = R
	}
	// On a chip of several cores the rows are shared out in whole tiles
	// (cores.go), a tile small enough that every core has one; an
	// accumulating or multi-pass walk runs on core 0.
	cores := int64(c.chip.NumCores())
	onCores := cores > 1 && !sp.accumulate && sp.passes <= 1 && R >= cores
	if onCores {
		TR = min(TR, (R+cores-1)/cores)
	}
	// A walk beyond a register's reach runs in segments of whole tiles
	// (below): a tile must leave room for at least two in a segment.
	if most := sp.reachRows(R); most < TR {
		TR = max(most, 1)
	}
	if m := sp.rowMultiple; m > 1 {
		if R%m != 0 {
			return c.fail(in, "internal error: %d rows are not a multiple of %d", R, m)
		}
		if TR < m {
			return errPeriodTooLong // the caller plans without the period
		}
		TR -= TR % m
	}
	var off int64
	for _, b := range sp.bufs {
		if b.static || b.share != nil || b.hull != nil {
			continue
		}
		b.off = off
		rows := TR + b.span
		if b.oneRow {
			rows = 1
		}
		off += align64(rows * prod(b.row) * int64(b.dt.Size()))
	}
	for _, b := range sp.bufs {
		if b.share != nil {
			b.off = b.share.off + b.shift*prod(b.row)*int64(b.dt.Size())
		}
	}
	set := off
	reg := 2
	var accesses []*hbmAccess
	for _, b := range sp.bufs {
		if b.load != nil {
			accesses = append(accesses, b.load)
		}
	}
	storeRows := R
	if sp.accumulate {
		storeRows = 1
	}
	if len(sp.extraStores) > 0 && sp.accumulate {
		return c.fail(in, "internal error: extra results of an accumulating walk")
	}
	for _, x := range sp.extraStores {
		if byName[x.result] == nil {
			return c.fail(in, "internal error: no buffer for result %s", x.result)
		}
		accesses = append(accesses, sp.extraStoreAccess(x, storeRows))
	}
	store := sp.storeAccess(storeRows)
	accesses = append(accesses, store)
	for _, a := range accesses {
		a.adv = TR * a.strides[0] * int64(a.src.dt.Size())
		if a == store && sp.accumulate {
			a.adv = 0 // stored once per pass
		}
		moves := a.adv != 0
		for _, o := range a.outer {
			moves = moves || o != 0
		}
		if moves {
			if reg > 29 {
				return c.fail(in, "more than 28 streamed operands")
			}
			a.reg = reg
			reg++
		}
	}
	// Three sets rotate through r29 (streamRows); when the accesses need
	// every register up to it, two sets do.
	if reg > rotationReg {
		nsets = 2
	}
	static := nsets * set
	for _, b := range sp.bufs {
		if b.static {
			rows := TR
			if b.oneRow {
				rows = 1
			}
			b.off = static
			static += align64(rows * prod(b.row) * int64(b.dt.Size()))
		}
	}
	if static > c.chip.Memory.SRAMBytes {
		return c.fail(in, "internal error: buffers exceed SRAM")
	}
	sp.sets = nsets
	lastFree := 29
	if nsets == 3 {
		lastFree = rotationReg - 1
	}
	// Registers from reg+1: reg may count a nested walk's outer passes, and
	// r28 is a skewed walk's next set (streamRows).
	sp.direct = directResult(&sp, res)
	directLoads(&sp, c.singleInstruction(&sp, sp.result))
	sp.chunks = c.planChunks(&sp, byName, TR, reg+1, min(lastFree, 27))
	if sp.chunks != nil {
		if t := chunkedTileRows(&sp, R, TR, cores, onCores, bytesPerRow); t < TR {
			// The buffers keep their places (laid out for the bigger
			// tile); the accesses advance by the smaller one.
			TR = t
			sp.chunks.rows = min(sp.chunks.rows, TR)
			for _, a := range accesses {
				a.adv = TR * a.strides[0] * int64(a.src.dt.Size())
			}
		}
	}
	accesses = c.iotasInOneTile(&sp, accesses, TR >= R && !onCores)
	if err := c.placeIotas(&sp); err != nil {
		return err
	}
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: sp.kind, Pos: in.Pos, FLOPs: sp.flops, Bytes: sp.bytes})
	if onCores {
		return c.sharesOnCores(in, "rows", R, TR, func(lo, hi int64) error {
			return c.streamRows(sp, lo, hi, TR, set, res, byName, accesses, reg)
		})
	}
	return c.streamRows(sp, 0, R, TR, set, res, byName, accesses, reg)
}

// minChunkedTiles is the fewest tiles a chunked walk is cut into (its
// tiles are otherwise as big as SRAM allows): measured over the JAX corpus
// on tpuv4core, 3 to 6 tiles ran within 0.2% of each other, 8 0.7% slower
// (per-tile descriptors and loop overhead), tiles as big as SRAM allows
// 2.8% slower.
const minChunkedTiles = 4

// minChunkedTileBytes is the least a tile of a chunked walk whose chunks
// hold no registers (only broadcasts read through views) is cut to: below
// it the tiles' loads and stores cost more than the overlap wins.
const minChunkedTileBytes = 64 << 10

// rotationReg computes the next buffer set of a three-set rotation.
const rotationReg = 29

// streamRows emits a stream kernel's walk over rows [r0, r1) in tiles of
// TR (all of them on a chip of one core; a core's share on several), each
// access's offset starting r0 rows in.
func (c *compiler) streamRows(sp streamSpec, r0, r1, TR, set int64, res *streamBuf, byName map[string]*streamBuf, accesses []*hbmAccess, reg int) error {
	in := sp.in
	R := r1 - r0
	store := accesses[len(accesses)-1]
	passes := max(sp.passes, 1)
	rowBase := map[*hbmAccess]int64{}
	for _, a := range accesses {
		if len(a.strides) > 0 {
			rowBase[a] = r0 * a.strides[0] * int64(a.src.dt.Size())
		}
	}
	c.nlabel++
	label := fmt.Sprintf("k%d", c.nlabel)
	w := &c.out
	fmt.Fprintf(w, "\n; ---- kernel %s: %s %s (%s:%d) -> %s, %d rows in tiles of %d\n", label, in.Opcode, in.Name, c.file, in.Pos.Line, sp.out.shape, R, TR)
	fmt.Fprintf(w, ".origin %q\n", in.Name)
	emit := func(at *hlo.Instruction, format string, a ...any) {
		c.loc(at)
		fmt.Fprintf(w, "        "+format+"\n", a...)
	}
	// s0 counts loads, s1 computed tiles, s2 free buffer sets (stores
	// done). Accumulating, a set is free when its tile is folded in, and
	// s3 guards the accumulator between its store and the next fill.
	emit(in, "semset  s0, 0")
	emit(in, "semset  s1, 0")
	if sp.accumulate {
		emit(in, "semset  s2, 1")
		emit(in, "semset  s3, 1")
		emit(in, "semset  s4, 0")
	} else {
		emit(in, "semset  s2, %d", sp.sets*sp.stores())
	}
	emit(in, "li      r30, 0")
	if sp.prologue != nil {
		sp.prologue()
	}
	storeEngine := 0
	if c.chip.DMA.Engines > 1 {
		storeEngine = 1
	}
	view := func(name string, from, n int64) string {
		b := byName[name]
		if b.hull != nil {
			return hullOperand(b, "r30+", from, n)
		}
		off := b.off + from*prod(b.row)*int64(b.dt.Size())
		if b.static {
			return fmt.Sprintf("sram[%d]:%s[%s]", off, b.dt, joinDims(append([]int64{n}, b.row...)))
		}
		return fmt.Sprintf("sram[r30+%d]:%s[%s]", off, b.dt, joinDims(append([]int64{n}, b.row...)))
	}
	// extra is what a segment of a kernel beyond the registers' reach
	// (below) adds to an access's constant offset.
	extra := map[*hbmAccess]int64{}
	nchunk := 0 // numbers the chunk loops' labels
	// tile emits one tile of rows; last marks an accumulating pass's
	// final tile, whose fold the store waits for.
	// Skewed (prefetching) walk, for chunked tiles (skew below): each tile
	// issues the next tile's loads, into the set r28, before its own
	// instructions, once its own loads are in (a wait of the sequencer).
	skew := sp.chunks != nil && passes == 1 && !sp.accumulate
	var nextRows int64 // rows of the tile a skewed tile loads ahead, 0: none
	onlyLoads := false // the walk's first loads, before its first tile
	setReg := "r30"
	loadAcc := map[*hbmAccess]bool{}
	perTileLoads := 0
	for _, b := range sp.bufs {
		if b.load != nil && !b.static && !b.direct {
			loadAcc[b.load] = true
			perTileLoads++
		}
	}
	skew = skew && perTileLoads > 0
	advanceLoads := func() {
		for _, a := range accesses {
			if a.reg != 0 && a.adv != 0 && loadAcc[a] {
				emit(in, "addi    r%d, r%d, %d", a.reg, a.reg, a.adv)
			}
		}
	}
	tile := func(rows int64, last bool) {
		first := true
		wait := func() string {
			if first {
				first = false
				if n := sp.stores(); n > 1 {
					return fmt.Sprintf(" wait s2:%d", n)
				}
				return " wait s2"
			}
			return ""
		}
		hbmOp := func(a *hbmAccess, row []int64, oneRow bool) string {
			if a.smem != nil {
				r := rows
				if oneRow {
					r = 1
				}
				return fmt.Sprintf("smem[%#x]:%s[%s]{%s}", *a.smem, a.src.dt, joinDims(append([]int64{r}, row...)), joinDims(a.strides))
			}
			base := a.src.tensor
			if a.reg != 0 {
				base = fmt.Sprintf("r%d+%s", a.reg, a.src.tensor)
			}
			if b := a.base + rowBase[a] + extra[a]; b != 0 {
				base += fmt.Sprintf("+%d", b)
			}
			r := rows
			if oneRow {
				r = 1
			}
			return fmt.Sprintf("hbm[%s]:%s[%s]{%s}", base, a.src.dt, joinDims(append([]int64{r}, row...)), joinDims(a.strides))
		}
		tileOp := func(name string) string {
			if sp.direct && name == sp.result {
				return hbmOp(store, sp.outRow, false)
			}
			b := byName[name]
			if b.direct {
				return hbmOp(b.load, b.row, false)
			}
			r := rows
			if b.oneRow {
				r = 1
			}
			if b.hull != nil {
				return hullOperand(b, setReg+"+", 0, r)
			}
			if b.static {
				return fmt.Sprintf("sram[%d]:%s[%s]", b.off, b.dt, joinDims(append([]int64{r}, b.row...)))
			}
			return fmt.Sprintf("sram[%s+%d]:%s[%s]", setReg, b.off, b.dt, joinDims(append([]int64{r}, b.row...)))
		}
		nloads := 0
		loads := func() {
			for _, b := range sp.bufs {
				if b.load == nil || b.static || b.direct {
					continue
				}
				if b.span > 0 {
					// The tile's rows and the span its shifted sharers read.
					rows += b.span
					dst, src := tileOp(b.name), hbmOp(b.load, b.row, b.oneRow)
					rows -= b.span
					emit(b.at, "dma     %s%s signal s0", squeezedDMA(dst, src), wait())
					nloads++
					continue
				}
				emit(b.at, "dma     %s%s signal s0", squeezedDMA(tileOp(b.name), hbmOp(b.load, b.row, b.oneRow)), wait())
				nloads++
			}
		}
		if onlyLoads {
			loads()
			advanceLoads()
			return
		}
		if !skew {
			loads()
		} else {
			// This tile's loads were issued ahead (by the tile before, or
			// before the first); the next tile's go into the set after.
			emit(in, "wait    s0, %d", perTileLoads)
			if nextRows > 0 {
				if sp.sets == 3 {
					// Two tiles ahead: the set before this one's.
					emit(in, "addi    r28, r30, %d", -set)
					emit(in, "seqi    r%d, r30, 0", rotationReg)
					emit(in, "muli    r%d, r%d, %d", rotationReg, rotationReg, 3*set)
					emit(in, "add     r28, r28, r%d", rotationReg)
				} else {
					emit(in, "xori    r28, r30, %d", set)
				}
				saved := rows
				rows, setReg = nextRows, "r28"
				loads()
				rows, setReg = saved, "r30"
				advanceLoads()
			}
			first, nloads = false, 0 // the loads took the set
		}
		ops := tileOps(&sp)
		syncs := make([]string, len(ops))
		for i := range ops {
			sync := wait()
			if i == 0 && nloads > 0 {
				sync = fmt.Sprintf(" wait s0:%d", nloads)
			}
			if i == len(ops)-1 {
				switch n := sp.stores(); {
				case sp.accumulate && !last, sp.direct:
					// (A direct result frees its set as a store would.)
					sync += " signal s2"
				case n > 1:
					sync += fmt.Sprintf(" signal s1:%d", n)
				default:
					sync += " signal s1"
				}
			}
			syncs[i] = sync
		}
		if sp.chunks != nil && len(ops) > 0 {
			head, _ := splitSync(syncs[0])
			_, tail := splitSync(syncs[len(ops)-1])
			nchunk++
			// The chunks walk direct operands and results in VMEM from
			// this tile's place (their access's register, when it moves).
			for name, wk := range sp.chunks.walks {
				a := store
				if name != sp.result || !sp.direct {
					a = byName[name].load
				}
				wk.access, wk.base = a, a.base+rowBase[a]+extra[a]
			}
			c.emitChunkedTile(sp.chunks, sp.chunks.ops, byName, rows, head, tail, fmt.Sprintf("%s_chunk%d", label, nchunk))
		}
		for i, op := range ops {
			if sp.chunks != nil {
				break
			}
			c.loc(op.at)
			if op.emitRows != nil {
				op.emitRows(view, rows, syncs[i])
			} else {
				op.emit(tileOp, syncs[i])
			}
		}
		if !sp.direct && (!sp.accumulate || last) {
			storeWait, storeSignal := " wait s1", "s2"
			switch {
			case len(ops) == 0 && nloads > 0:
				storeWait = fmt.Sprintf(" wait s0:%d", nloads)
			case len(ops) == 0:
				// A copy whose source is read where it lies (a direct
				// load): the store waits for nothing but its set.
				storeWait = wait()
			}
			if sp.accumulate {
				storeSignal = "s3"
			}
			emit(res.at, "dma     %s, %s @%d%s signal %s", hbmOp(store, sp.outRow, sp.accumulate), tileOp(sp.result), storeEngine, storeWait, storeSignal)
			for i, x := range sp.extraStores {
				emit(byName[x.result].at, "dma     %s, %s @%d wait s1 signal s2", hbmOp(accesses[len(accesses)-1-len(sp.extraStores)+i], sp.outRow, false), tileOp(x.result), storeEngine)
			}
		}
		for _, a := range accesses {
			if a.reg != 0 && a.adv != 0 && !(skew && loadAcc[a]) {
				emit(in, "addi    r%d, r%d, %d", a.reg, a.reg, a.adv)
			}
		}
		if sp.sets == 3 {
			// r30 steps 0, set, 2*set, 0, ...
			emit(in, "addi    r30, r30, %d", set)
			emit(in, "seqi    r%d, r30, %d", rotationReg, 3*set)
			emit(in, "muli    r%d, r%d, %d", rotationReg, rotationReg, 3*set)
			emit(in, "sub     r30, r30, r%d", rotationReg)
		} else {
			emit(in, "xori    r30, r30, %d", set)
		}
	}
	c.loadInvariants(&sp, emit)
	// Constants are filled once, for the largest tile.
	for _, op := range sp.ops {
		if op.static {
			c.loc(op.at)
			op.emit(func(name string) string {
				b := byName[name]
				return fmt.Sprintf("sram[%d]:%s[%s]", b.off, b.dt, joinDims(append([]int64{TR}, b.row...)))
			}, "")
		}
	}
	outerAt := func(a *hbmAccess, pass int) int64 {
		if pass < len(a.outer) {
			return a.outer[pass]
		}
		return 0
	}
	// Passes whose offsets all advance by a fixed step run as a counted
	// loop (r31) rather than unrolled: a depthwise convolution's 96
	// images are one loop body, not 96 copies of it. Passes over two
	// dims (offsets affine in each: n1 runs of n2) run as two nested
	// loops, the outer one counting in the first free register.
	step := func(a *hbmAccess, k int) int64 { return outerAt(a, k) - outerAt(a, k-1) }
	looped := passes > 2
	for _, a := range accesses {
		if a.reg == 0 {
			continue
		}
		for k := 2; k < passes; k++ {
			if step(a, k) != step(a, 1) {
				looped = false
			}
		}
	}
	// A register holds a signed 32-bit offset: a walk that would take one
	// past 2 GiB (a 24000^2 f32 operand is 2.3 GB) is split. Its passes
	// are unrolled and its rows cut into segments; each segment starts its
	// registers at 0 and carries its position in the instruction's 43-bit
	// constant instead. Without this the offset wrapped and the last rows
	// read and wrote other arrays, silently (issue 44).
	big := false
	ntiles := (R + TR - 1) / TR
	var rowBytes int64 // the most bytes an offset register advances per row
	for _, a := range accesses {
		if a.reg == 0 {
			continue
		}
		rowBytes = max(rowBytes, abs64(a.adv)/TR)
		for k := 0; k < passes; k++ {
			if abs64(outerAt(a, k))+ntiles*abs64(a.adv) > registerReach {
				big = true
			}
		}
	}
	segRows := R
	if big {
		looped = false
		segRows = registerReach / max(rowBytes, 1) / TR * TR
		if segRows < TR {
			return c.fail(in, "one tile of %d rows spans more than the 2 GiB a scalar register reaches", TR)
		}
	}
	inner := passes // passes per run of the inner loop
	outerReg := 0
	lastFree := 29
	if sp.sets == 3 {
		lastFree = rotationReg - 1
	}
	if !looped && !big && passes > 2 && reg <= lastFree {
		if n2 := nestedPasses(accesses, passes, outerAt); n2 > 0 {
			looped, inner, outerReg = true, n2, reg
		}
	}
	if looped {
		passes = 1
		for _, a := range accesses {
			if a.reg != 0 {
				emit(in, "li      r%d, %d", a.reg, outerAt(a, 0))
			}
		}
		if outerReg != 0 {
			emit(in, "li      r%d, %d", outerReg, sp.passes/inner)
			fmt.Fprintf(w, "%s_run:\n", label)
		}
		emit(in, "li      r31, %d", inner)
		fmt.Fprintf(w, "%s_pass:\n", label)
	}
	for pass := 0; pass < passes; pass++ {
		for _, op := range sp.ops {
			if op.perPass {
				// Waits for the accumulator's last store; gives back the
				// buffer set of the last pass's final tile.
				c.loc(op.at)
				op.emit(func(name string) string { return view(name, 0, 1) }, " wait s3 signal s2")
			}
		}
		var nt, lastRows int64
		for seg := int64(0); seg < R; seg += segRows {
			rows := min(segRows, R-seg)
			for _, a := range accesses {
				switch {
				case a.reg == 0 || looped:
				case big:
					extra[a] = outerAt(a, pass) + seg/TR*a.adv
					emit(in, "li      r%d, 0", a.reg)
				default:
					emit(in, "li      r%d, %d", a.reg, outerAt(a, pass))
				}
			}
			nt, lastRows = rows/TR, rows%TR
			if sp.accumulate && lastRows == 0 && seg+rows == R {
				nt, lastRows = nt-1, TR // the final tile is peeled
			}
			if skew {
				// The first tiles' loads ahead of the walk, as many as the
				// sets leave room for beside the tile computing; each tile
				// then loads the one that far ahead. A walk beyond the
				// registers' reach does so within each segment: the loads
				// ahead never cross into the next one, whose registers
				// restart at 0.
				var sizes []int64
				for range nt {
					sizes = append(sizes, TR)
				}
				if lastRows > 0 {
					sizes = append(sizes, lastRows)
				}
				ahead := int(sp.sets) - 1
				onlyLoads = true
				for j := 0; j < min(ahead, len(sizes)); j++ {
					if j > 0 {
						// The set j after r30's: the walk starts at set 0,
						// but a segment after the first starts wherever the
						// rotation stands, and wraps.
						switch {
						case sp.sets == 2:
							emit(in, "xori    r28, r30, %d", set)
						case seg == 0:
							emit(in, "addi    r28, r30, %d", int64(j)*set)
						default:
							emit(in, "addi    r28, r30, %d", int64(j)*set)
							emit(in, "seqi    r%d, r28, %d", rotationReg, 3*set)
							emit(in, "muli    r%d, r%d, %d", rotationReg, rotationReg, 3*set)
							emit(in, "sub     r28, r28, r%d", rotationReg)
						}
						setReg = "r28"
					}
					tile(sizes[j], false)
					setReg = "r30"
				}
				onlyLoads = false
				next := func(t int) int64 {
					if t+ahead < len(sizes) {
						return sizes[t+ahead]
					}
					return 0
				}
				looped := max(0, int(nt)-ahead) // full tiles loading full tiles
				t := 0
				if looped > 1 {
					nextRows = TR
					tileLabel := fmt.Sprintf("%s_tile%d", label, pass)
					emit(in, "li      r1, %d", looped)
					fmt.Fprintf(w, "%s:\n", tileLabel)
					tile(TR, false)
					emit(in, "loop    r1, %s", tileLabel)
					t = looped
				}
				for ; t < len(sizes); t++ {
					nextRows = next(t)
					tile(sizes[t], false)
				}
				continue
			}
			if nt > 0 {
				tileLabel := fmt.Sprintf("%s_tile%d", label, pass)
				if seg > 0 {
					tileLabel += fmt.Sprintf("_%d", seg/segRows)
				}
				emit(in, "li      r1, %d", nt)
				fmt.Fprintf(w, "%s:\n", tileLabel)
				tile(TR, false)
				emit(in, "loop    r1, %s", tileLabel)
			}
			if lastRows > 0 {
				tile(lastRows, sp.accumulate && seg+rows == R)
			}
		}
		if looped {
			// From this pass's advanced offsets to the next pass's start.
			ntiles := nt
			if lastRows > 0 {
				ntiles++
			}
			for _, a := range accesses {
				if d := step(a, 1) - ntiles*a.adv; a.reg != 0 && d != 0 {
					emit(in, "addi    r%d, r%d, %d", a.reg, a.reg, d)
				}
			}
			emit(in, "loop    r31, %s_pass", label)
			if outerReg != 0 {
				// From where the inner loop left the offsets (inner passes
				// on) to the next run's start.
				for _, a := range accesses {
					if d := outerAt(a, inner) - outerAt(a, 0) - int64(inner)*step(a, 1); a.reg != 0 && d != 0 {
						emit(in, "addi    r%d, r%d, %d", a.reg, a.reg, d)
					}
				}
				emit(in, "loop    r%d, %s_run", outerReg, label)
			}
		}
	}
	emit(in, "barrier")
	return nil
}

// nestedPasses finds n2 for passes walked as n1 runs of n2 whose every
// access's offsets are affine in both (outer[i*n2+j] = outer[0] +
// i*outer[n2] + j*outer[1], relative to outer[0]); 0 when there is no
// such n2 (or only the trivial ones).
func nestedPasses(accesses []*hbmAccess, passes int, outerAt func(*hbmAccess, int) int64) int {
	n2 := passes
	for _, a := range accesses {
		if a.reg == 0 {
			continue
		}
		for k := 2; k < n2; k++ {
			if outerAt(a, k)-outerAt(a, k-1) != outerAt(a, 1)-outerAt(a, 0) {
				n2 = k
				break
			}
		}
	}
	if n2 < 2 || n2 >= passes || passes%n2 != 0 {
		return 0
	}
	for _, a := range accesses {
		if a.reg == 0 {
			continue
		}
		o0 := outerAt(a, 0)
		s1, s2 := outerAt(a, n2)-o0, outerAt(a, 1)-o0
		for k := 0; k < passes; k++ {
			if outerAt(a, k) != o0+int64(k/n2)*s1+int64(k%n2)*s2 {
				return 0
			}
		}
	}
	return n2
}

// storeAccess writes the result rows: row-major, one pass after another.
// reachRows is the most rows a tile may hold so that a segment of the
// 2 GiB a register reaches holds two tiles, when some access walks beyond
// that reach; else R.
func (sp *streamSpec) reachRows(R int64) int64 {
	storeRows := R
	if sp.accumulate {
		storeRows = 1
	}
	accesses := []*hbmAccess{sp.storeAccess(storeRows)}
	for _, x := range sp.extraStores { // results of other element widths
		accesses = append(accesses, sp.extraStoreAccess(x, storeRows))
	}
	for _, b := range sp.bufs {
		if b.load != nil {
			accesses = append(accesses, b.load)
		}
	}
	most := R
	for _, a := range accesses {
		rowBytes := abs64(a.strides[0]) * int64(a.src.dt.Size())
		if a == accesses[0] && sp.accumulate {
			rowBytes = 0 // stored once per pass
		}
		far := R * rowBytes
		for _, o := range a.outer {
			far = max(far, abs64(o)+R*rowBytes)
		}
		if far > registerReach && rowBytes > 0 {
			most = min(most, registerReach/rowBytes/2)
		}
	}
	return most
}

// extraStoreAccess writes an extra result's rows, as storeAccess does
// the result's.
func (sp *streamSpec) extraStoreAccess(x extraStore, R int64) *hbmAccess {
	return sp.storeAccessTo(x.out, R)
}

func (sp *streamSpec) storeAccess(R int64) *hbmAccess { return sp.storeAccessTo(sp.out, R) }

func (sp *streamSpec) storeAccessTo(out *value, R int64) *hbmAccess {
	a := &hbmAccess{src: out, strides: hlo.Strides(append([]int64{R}, sp.outRow...))}
	if sp.storeAt != nil && out == sp.out {
		a.outer = append([]int64{}, sp.storeAt...)
		return a
	}
	if sp.passes > 1 {
		step := R * prod(sp.outRow) * int64(out.dt.Size())
		for k := 0; k < sp.passes; k++ {
			a.outer = append(a.outer, int64(k)*step)
		}
	}
	return a
}

// compactBroadcasts replaces every load whose pattern repeats elements
// (a zero stride: a broadcast) by a load of the distinct elements into a
// small buffer and a vbcast on the vector unit. A stride-0 DMA would read
// the same bytes from HBM again for every repetition — in short runs when
// the repeated dimension is the innermost one.
func (c *compiler) compactBroadcasts(sp *streamSpec) {
	var extra []*streamBuf
	var pre []streamOp
	for _, b := range sp.bufs {
		l := b.load
		if l == nil || b.oneRow {
			continue // a row for every tile is compact already
		}
		// A zero stride over a dimension of one element repeats nothing.
		zero := l.strides[0] == 0 && sp.rows > 1
		for i, s := range l.strides[1:] {
			zero = zero || s == 0 && b.row[i] > 1
		}
		if !zero {
			continue
		}
		row := make([]int64, len(b.row))
		for i, d := range b.row {
			row[i] = d
			if l.strides[i+1] == 0 {
				row[i] = 1
			}
		}
		src := &streamBuf{name: b.name + ".src", at: b.at, dt: b.dt, row: row, load: l, oneRow: l.strides[0] == 0}
		b.load = nil
		extra = append(extra, src)
		dst := b
		pre = append(pre, streamOp{at: b.at, bcast: src.name, dst: dst.name, emit: func(tile func(string) string, sync string) {
			fmt.Fprintf(&c.out, "        vbcast  %s, %s%s\n", tile(dst.name), tile(src.name), sync)
		}})
	}
	sp.bufs = append(sp.bufs, extra...)
	if len(pre) > 0 {
		// Static fills first (they leave the loop), then the broadcasts.
		var static, rest []streamOp
		for _, op := range sp.ops {
			if op.static {
				static = append(static, op)
			} else {
				rest = append(rest, op)
			}
		}
		sp.ops = append(append(static, pre...), rest...)
	}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func prod(d []int64) int64 {
	n := int64(1)
	for _, x := range d {
		n *= x
	}
	return n
}

// squeezedDMA is "dst, src" for a load from HBM tile src into the
// contiguous SRAM tile dst of the same dims, with the dims of one element
// dropped from both: they move nothing, but a DMA engine walks a
// descriptor's innermost dimension as its contiguous run, and a broadcast
// operand's trailing [.., 1] of stride 0 made every element a run of its
// own (a batched outer product's f32[64,128,1] load: 8,192 bursts of 4
// bytes).
func squeezedDMA(dst, src string) string {
	dd, ok1 := tileDims(dst)
	sd, ok2 := tileDims(src)
	if !ok1 || !ok2 || len(dd.dims) != len(sd.dims) || len(sd.strides) != len(sd.dims) || len(dd.strides) != 0 || !slices.Equal(dd.dims, sd.dims) || !slices.Contains(sd.dims, 1) {
		return dst + ", " + src
	}
	var dims, strides []int64
	for i, n := range sd.dims {
		if n != 1 {
			dims, strides = append(dims, n), append(strides, sd.strides[i])
		}
	}
	if len(dims) == 0 {
		dims, strides = []int64{1}, []int64{1}
	}
	return fmt.Sprintf("%s[%s], %s[%s]{%s}", dd.head, joinDims(dims), sd.head, joinDims(dims), joinDims(strides))
}

// tileText is a tile operand's text split: "space[base]:dtype", its dims
// and its strides (none when it has no {...}).
type tileText struct {
	head          string
	dims, strides []int64
}

func tileDims(t string) (tileText, bool) {
	open := strings.LastIndexByte(t, '[')
	close := strings.LastIndexByte(t, ']')
	if open < 0 || close < open {
		return tileText{}, false
	}
	out := tileText{head: t[:open]}
	var ok bool
	if out.dims, ok = intsOf(t[open+1 : close]); !ok {
		return tileText{}, false
	}
	if rest := t[close+1:]; rest != "" {
		if !strings.HasPrefix(rest, "{") || !strings.HasSuffix(rest, "}") {
			return tileText{}, false
		}
		if out.strides, ok = intsOf(rest[1 : len(rest)-1]); !ok {
			return tileText{}, false
		}
	}
	return out, true
}

// intsOf reads "a,b,c".
func intsOf(s string) ([]int64, bool) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}
