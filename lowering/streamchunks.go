package lowering

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// Register-resident chains: a stream kernel's vector instructions on a
// chip with a vector register file (memory.vreg_bytes). A TPU's vector unit
// computes a fused elementwise chain in its registers: it loads each
// operand's (8,128) vregs from VMEM once, runs the chain on them, and
// stores the result, so the intermediates never cost VMEM bandwidth (the
// VLIW bundle has one vector load and one vector store slot beside two
// ALU slots). Run as whole-tile instructions from SRAM to SRAM, a chain of
// 36 integer ops (a threefry hash) read and wrote 3 lines of SRAM for
// every element of every op, three times the lanes' own time.
//
// So each tile's instructions run over chunks of its rows: the buffers the
// chain computes and consumes within the tile live in vreg slots sized to
// a chunk, reused once their last reader has run; the loaded operands and
// the stored results stay in SRAM and are read or written chunk by chunk.
// The chunk is as many rows as the slots leave room for, in whole vregs
// where the rows allow.

// chunkPlan is how a stream kernel's tile runs in chunks of rows.
type chunkPlan struct {
	rows  int64            // rows per chunk
	slots map[string]int64 // vreg byte offset of each buffer held in registers
	// views are broadcasts the chunks read from their sources through a
	// stride of 0 (the broadcast's buffer, to its source's): a chain used
	// to spend an instruction a chunk on each (a threefry round, 10 of 36).
	views map[string]string
	ops   []streamOp // the tile's ops less those broadcasts
	// regs walk the SRAM buffers the ops read and write, one per group of
	// buffers that advance by the same bytes a chunk.
	regs    map[chunkGroup]int
	counter int // counts the chunks of a tile's middle run
	// walks are the buffers read or written where they lie in VMEM (a
	// direct result, direct loads): each chunk's operand is its own
	// register's walk from the tile's place.
	walks map[string]*chunkWalk
}

// chunkWalk is a direct buffer's walk: its register, and where the tile
// starts (set per tile): the access (its register holding the tile's
// offset, when it moves) and the bytes past its tensor's start.
type chunkWalk struct {
	reg    int
	access *hbmAccess
	base   int64
}

// chunkGroup: SRAM buffers whose chunks advance alike. Static buffers
// (constants filled once, outside the rotating sets) are addressed from 0,
// the others from the set's base (r30).
type chunkGroup struct {
	rowBytes int64
	static   bool
}

// tileOps lists the ops that run once per tile (not the static fills nor
// an accumulator's per-pass fill).
func tileOps(sp *streamSpec) []streamOp {
	var ops []streamOp
	for _, op := range sp.ops {
		if !op.static && !op.perPass {
			ops = append(ops, op)
		}
	}
	return ops
}

// planChunks decides whether and how a stream kernel's tiles run in chunks
// through the vector registers; nil keeps whole-tile instructions. A chunk
// is at most most rows (a tile's); registers firstReg..lastReg are free for
// the chunk walk.
func (c *compiler) planChunks(sp *streamSpec, byName map[string]*streamBuf, most int64, firstReg, lastReg int) *chunkPlan {
	vregBytes := c.chip.Memory.VRegBytes
	if vregBytes == 0 || sp.accumulate {
		return nil
	}
	views := map[string]string{}
	var ops []streamOp
	for _, op := range tileOps(sp) {
		if op.bcast != "" && byName[op.dst] != nil && len(byName[op.dst].row) == len(byName[op.bcast].row) {
			views[op.dst] = op.bcast
			continue
		}
		ops = append(ops, op)
	}
	if len(ops) < 2 && (len(ops) == 0 || len(views) == 0) {
		return nil // nothing is both computed and consumed within the tile
	}
	// The buffers each op names, by emitting it into a discarding buffer:
	// an intermediate is live from the op that writes it to its last reader.
	first, last := map[string]int{}, map[string]int{}
	var names []string
	saved := c.out
	c.out = asmBuf{discard: true}
	for i, op := range ops {
		if op.emitRows != nil {
			c.out = saved
			return nil // addresses runs of rows (a reduction): not chunked
		}
		op.emit(func(name string) string {
			if _, ok := first[name]; !ok {
				first[name] = i
				names = append(names, name)
			}
			last[name] = i
			return "sram[0]:f32[1]"
		}, "")
	}
	c.out = saved
	stored := map[string]bool{sp.result: true}
	for _, x := range sp.extraStores {
		stored[x.result] = true
	}
	shared := map[string]bool{}
	for _, b := range sp.bufs {
		if b.share != nil {
			shared[b.share.name] = true
		}
	}
	inRegs := func(name string) bool {
		b := byName[name]
		return b != nil && views[name] == "" && b.load == nil && b.hull == nil && !b.static && !b.oneRow && b.share == nil && b.span == 0 && !stored[name] && !shared[name]
	}
	// Slots of equal size, assigned in op order and freed after the last
	// reader (a buffer written and read by one op keeps its slot for it).
	slotOf := map[string]int{}
	var free []int
	nslots := 0
	var maxRowBytes, rowElems int64
	for i := range ops {
		for _, n := range names {
			if s, ok := slotOf[n]; ok && last[n] == i-1 {
				free = append(free, s)
			}
		}
		slices.Sort(free)
		for _, n := range names {
			if first[n] != i || !inRegs(n) {
				continue
			}
			if len(free) > 0 {
				slotOf[n], free = free[0], free[1:]
			} else {
				slotOf[n] = nslots
				nslots++
			}
			b := byName[n]
			if rb := prod(b.row) * int64(b.dt.Size()); rb > maxRowBytes {
				maxRowBytes, rowElems = rb, prod(b.row)
			}
		}
	}
	if nslots == 0 && len(views) == 0 {
		return nil
	}
	slotBytes := vregBytes / int64(max(nslots, 1)) &^ 63
	CR := most // only broadcasts read through views: the tile in one chunk
	if nslots > 0 {
		CR = slotBytes / max(maxRowBytes, 1)
	}
	// Whole vregs where a chunk spans more than one.
	if vreg := int64(c.chip.VPU.Lanes * c.chip.VPU.Sublanes); rowElems < vreg {
		if g := vreg / max(rowElems, 1); CR >= g {
			CR -= CR % g
		}
	}
	CR = min(CR, most)
	if CR < 1 {
		return nil
	}
	p := &chunkPlan{rows: CR, slots: map[string]int64{}, regs: map[chunkGroup]int{}, views: views, ops: ops}
	for n, s := range slotOf {
		p.slots[n] = int64(s) * slotBytes
	}
	// One register per direct buffer (at most all but the groups' and the
	// counter's: the loads beyond go through SRAM), one per group of SRAM
	// buffers, and the counter.
	reg := firstReg
	p.walks = map[string]*chunkWalk{}
	groupsOf := func(skip func(*streamBuf) bool) int {
		seen := map[chunkGroup]bool{}
		for _, n := range names {
			if src, ok := views[n]; ok {
				n = src
			}
			b := byName[n]
			if _, inVreg := slotOf[n]; inVreg || b == nil || b.oneRow || skip(b) {
				continue
			}
			seen[chunkGroup{chunkRowBytes(b), b.static}] = true
		}
		return len(seen)
	}
	direct := func(b *streamBuf) bool { return b.direct || sp.direct && b.name == sp.result }
	if sp.direct {
		p.walks[sp.result] = &chunkWalk{reg: reg}
		reg++
	}
	for _, n := range names {
		b := byName[n]
		if b == nil || !b.direct || p.walks[n] != nil {
			continue
		}
		if reg+groupsOf(direct)+1 > lastReg {
			b.direct = false // read through SRAM
			continue
		}
		p.walks[n] = &chunkWalk{reg: reg}
		reg++
	}
	for _, n := range names {
		if src, ok := views[n]; ok {
			n = src // the chunks walk the broadcast's source
		}
		b := byName[n]
		if _, inVreg := slotOf[n]; inVreg || b == nil || b.oneRow || direct(b) {
			continue
		}
		g := chunkGroup{chunkRowBytes(b), b.static}
		if _, ok := p.regs[g]; !ok {
			p.regs[g] = reg
			reg++
		}
	}
	p.counter = reg
	if reg > lastReg {
		return nil
	}
	return p
}

// chunkedTileRows is the tile of a chunked walk of R rows (TR as SRAM
// allows). The walk loads two tiles ahead (streamRows), so it is cut into
// at least minChunkedTiles tiles of whole chunks: the first loads and the
// last tile's work and store, which nothing overlaps, are then a small
// part of it. On several cores each core's share is cut so, evenly (the
// shares are whole tiles); a tile holding no registers (only broadcasts
// read through views) is one chunk, and a walk of such tiles smaller than
// minChunkedTileBytes a tile is not cut.
func chunkedTileRows(sp *streamSpec, R, TR, cores int64, onCores bool, bytesPerRow int64) int64 {
	cr := sp.chunks.rows
	t := ((R+minChunkedTiles-1)/minChunkedTiles + cr - 1) / cr * cr
	switch {
	case onCores:
		t = ((R+cores-1)/cores + minChunkedTiles - 1) / minChunkedTiles
	case len(sp.chunks.slots) == 0 && R*bytesPerRow < minChunkedTiles*minChunkedTileBytes:
		t = TR
	case len(sp.chunks.slots) == 0:
		t = (R + minChunkedTiles - 1) / minChunkedTiles
	}
	if t%max(sp.rowMultiple, 1) != 0 {
		return TR
	}
	return min(t, TR)
}

// operand formats a buffer's chunk of n rows.
func (p *chunkPlan) operand(b *streamBuf, n int64, byName map[string]*streamBuf) string {
	if wk := p.walks[b.name]; wk != nil {
		a := wk.access
		return fmt.Sprintf("hbm[r%d+%s+%d]:%s[%s]{%s}", wk.reg, a.src.tensor, wk.base, a.src.dt,
			joinDims(append([]int64{n}, b.row...)), joinDims(a.strides))
	}
	if src, ok := p.views[b.name]; ok {
		return p.broadcastView(byName[src], b, n)
	}
	if off, ok := p.slots[b.name]; ok {
		return fmt.Sprintf("vreg[%d]:%s[%s]", off, b.dt, joinDims(append([]int64{n}, b.row...)))
	}
	if b.hull != nil && b.oneRow {
		return hullOperand(b, "r30+", 0, 1)
	}
	if b.oneRow {
		base := "r30+"
		if b.static {
			base = ""
		}
		return fmt.Sprintf("sram[%s%d]:%s[%s]", base, b.off, b.dt, joinDims(append([]int64{1}, b.row...)))
	}
	r := p.regs[chunkGroup{chunkRowBytes(b), b.static}]
	if b.hull != nil {
		return hullOperand(b, fmt.Sprintf("r%d+", r), 0, n)
	}
	return fmt.Sprintf("sram[r%d+%d]:%s[%s]", r, b.off, b.dt, joinDims(append([]int64{n}, b.row...)))
}

// chunkRowBytes is how far a buffer's chunks advance a row: its row, or
// its hull's.
func chunkRowBytes(b *streamBuf) int64 {
	if b.hull != nil {
		return prod(b.hull.of.row) * int64(b.dt.Size())
	}
	return prod(b.row) * int64(b.dt.Size())
}

// broadcastView reads src, a broadcast's compact source, as the chunk of n
// rows of dst: a stride of 0 along the rows when src is a single row, and
// along each dim src holds once.
func (p *chunkPlan) broadcastView(src, dst *streamBuf, n int64) string {
	at := p.operand(src, n, nil)
	at = at[:strings.Index(at, "]:")+1]
	// The source's own strides over [rows, row...]: compact, or its
	// place in a hull.
	own := make([]int64, len(src.row)+1)
	if src.hull != nil {
		copy(own, src.hull.strides)
	} else {
		step := int64(1)
		for i := len(src.row) - 1; i >= 0; i-- {
			own[i+1] = step
			step *= src.row[i]
		}
		own[0] = step
	}
	strides := make([]int64, len(dst.row)+1)
	for i := range src.row {
		if src.row[i] != 1 || dst.row[i] == 1 {
			strides[i+1] = own[i+1]
		}
	}
	if !src.oneRow {
		strides[0] = own[0]
	}
	return fmt.Sprintf("%s:%s[%s]{%s}", at, dst.dt, joinDims(append([]int64{n}, dst.row...)), joinDims(strides))
}

// emitTile emits one tile's ops over rows in chunks: the first chunk
// carries the ops' wait (head), the last their signal (tail); the chunks
// between run as a counted loop.
func (c *compiler) emitChunkedTile(p *chunkPlan, ops []streamOp, byName map[string]*streamBuf, rows int64, head, tail, label string) {
	w := &c.out
	var sizes []int64
	for r := rows; r > 0; r -= p.rows {
		sizes = append(sizes, min(p.rows, r))
	}
	groups := make([]chunkGroup, 0, len(p.regs))
	for g := range p.regs {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b chunkGroup) int { return p.regs[a] - p.regs[b] })
	for _, g := range groups {
		if g.static {
			fmt.Fprintf(w, "        li      r%d, 0\n", p.regs[g])
		} else {
			fmt.Fprintf(w, "        add     r%d, r30, r0\n", p.regs[g])
		}
	}
	walks := make([]*chunkWalk, 0, len(p.walks))
	for _, wk := range p.walks {
		walks = append(walks, wk)
	}
	slices.SortFunc(walks, func(a, b *chunkWalk) int { return a.reg - b.reg })
	for _, wk := range walks {
		if wk.access.reg != 0 {
			fmt.Fprintf(w, "        add     r%d, r%d, r0\n", wk.reg, wk.access.reg)
		} else {
			fmt.Fprintf(w, "        li      r%d, 0\n", wk.reg)
		}
	}
	advance := func(n int64) {
		for _, g := range groups {
			fmt.Fprintf(w, "        addi    r%d, r%d, %d\n", p.regs[g], p.regs[g], n*g.rowBytes)
		}
		for _, wk := range walks {
			fmt.Fprintf(w, "        addi    r%d, r%d, %d\n", wk.reg, wk.reg, n*wk.access.strides[0]*int64(wk.access.src.dt.Size()))
		}
	}
	chunk := func(n int64, firstChunk, lastChunk bool) {
		for i, op := range ops {
			sync := ""
			if i == 0 && firstChunk {
				sync = head
			}
			if i == len(ops)-1 && lastChunk {
				sync += tail
			}
			c.loc(op.at)
			op.emit(func(name string) string { return p.operand(byName[name], n, byName) }, sync)
		}
	}
	k := len(sizes)
	chunk(sizes[0], true, k == 1)
	if k == 1 {
		return
	}
	advance(sizes[0])
	if mid := k - 2; mid > 0 {
		fmt.Fprintf(w, "        li      r%d, %d\n", p.counter, mid)
		fmt.Fprintf(w, "%s:\n", label)
		chunk(p.rows, false, false)
		advance(p.rows)
		fmt.Fprintf(w, "        loop    r%d, %s\n", p.counter, label)
	}
	chunk(sizes[k-1], false, true)
}

// hoistInvariantLoads makes the loads every tile would repeat from the
// same address (a scalar or a row broadcast over the rows: an optimizer's
// step size, a threefry key) static: loaded once, before the first tile,
// rather than a DMA descriptor per operand per tile. An accumulating walk
// keeps them per tile (its s3 guards the accumulator).
func hoistInvariantLoads(sp *streamSpec) {
	if sp.accumulate {
		return
	}
	for _, b := range sp.bufs {
		l := b.load
		if l == nil || !b.oneRow || b.span > 0 || len(l.strides) == 0 || l.strides[0] != 0 {
			continue
		}
		if slices.ContainsFunc(l.outer, func(o int64) bool { return o != 0 }) {
			continue
		}
		b.static = true
	}
}

// loadInvariants emits the hoisted loads (hoistInvariantLoads) and, on the
// vector unit ahead of every tile's instructions, a one-element copy that
// waits for them (s3).
func (c *compiler) loadInvariants(sp *streamSpec, emit func(at *hlo.Instruction, format string, a ...any)) {
	var first *streamBuf
	n := 0
	for _, b := range sp.bufs {
		if !b.static || b.load == nil {
			continue
		}
		l := b.load
		shape := joinDims(append([]int64{1}, b.row...))
		dst := fmt.Sprintf("sram[%d]:%s[%s]", b.off, b.dt, shape)
		var src string
		if l.smem != nil {
			src = fmt.Sprintf("smem[%#x]:%s[%s]{%s}", *l.smem, l.src.dt, shape, joinDims(l.strides))
		} else {
			base := l.src.tensor
			if l.base != 0 {
				base += fmt.Sprintf("+%d", l.base)
			}
			src = fmt.Sprintf("hbm[%s]:%s[%s]{%s}", base, l.src.dt, shape, joinDims(l.strides))
		}
		if n == 0 {
			emit(b.at, "semset  s3, 0")
			first = b
		}
		// Each a descriptor of its own: round the engines.
		emit(b.at, "dma     %s @%d signal s3", squeezedDMA(dst, src), n%max(c.chip.DMA.Engines, 1))
		n++
	}
	if first != nil {
		one := fmt.Sprintf("sram[%d]:%s[1]", first.off, first.dt)
		emit(first.at, "vcopy   %s, %s wait s3:%d", one, one, n)
	}
}
