package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/lowering/hlo"
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
	adv     int64
	reg     int // offset register, 0 when adv is 0
}

type streamBuf struct {
	name string
	at   *hlo.Instruction // for .loc
	dt   isa.DType
	row  []int64    // the shape of one row
	load *hbmAccess // nil: computed
	off  int64
}

type streamOp struct {
	at   *hlo.Instruction
	emit func(tile func(name string) string, sync string)
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
}

func (c *compiler) streamKernel(sp streamSpec) error {
	in := sp.in
	byName := map[string]*streamBuf{}
	var bytesPerRow int64
	for _, b := range sp.bufs {
		byName[b.name] = b
		bytesPerRow += align64(prod(b.row) * int64(b.dt.Size()))
	}
	res := byName[sp.result]
	if res == nil {
		return c.fail(in, "internal error: no result buffer")
	}
	budget := c.chip.Memory.SRAMBytes / 2
	if budget > 4<<20 {
		budget = 4 << 20 // big enough to stream at full rate, small enough to overlap
	}
	TR := budget / bytesPerRow
	if TR < 1 {
		return c.fail(in, "one row of the kernel's %d buffers takes %d bytes, more than SRAM allows", len(sp.bufs), bytesPerRow)
	}
	R := sp.rows
	if TR > R {
		TR = R
	}
	var off int64
	for _, b := range sp.bufs {
		b.off = off
		off += align64(TR * prod(b.row) * int64(b.dt.Size()))
	}
	set := off
	if 2*set > c.chip.Memory.SRAMBytes {
		return c.fail(in, "internal error: buffers exceed SRAM")
	}
	reg := 2
	var accesses []*hbmAccess
	for _, b := range sp.bufs {
		if b.load != nil {
			accesses = append(accesses, b.load)
		}
	}
	store := &hbmAccess{src: sp.out, strides: rowMajorStrides(append([]int64{R}, sp.outRow...))}
	accesses = append(accesses, store)
	for _, a := range accesses {
		a.adv = TR * a.strides[0] * int64(a.src.dt.Size())
		if a.adv != 0 {
			if reg > 29 {
				return c.fail(in, "more than 28 streamed operands")
			}
			a.reg = reg
			reg++
		}
	}
	c.nlabel++
	label := fmt.Sprintf("k%d", c.nlabel)
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: sp.kind, Pos: in.Pos, FLOPs: sp.flops, Bytes: sp.bytes})
	w := &c.out
	fmt.Fprintf(w, "\n; ---- kernel %s: %s %s (%s:%d) -> %s, %d rows in tiles of %d\n", label, in.Opcode, in.Name, c.file, in.Pos.Line, sp.out.shape, R, TR)
	fmt.Fprintf(w, ".origin %q\n", in.Name)
	emit := func(at *hlo.Instruction, format string, a ...any) {
		c.loc(at)
		fmt.Fprintf(w, "        "+format+"\n", a...)
	}
	emit(in, "semset  s0, 0")
	emit(in, "semset  s1, 0")
	emit(in, "semset  s2, 2")
	emit(in, "li      r30, 0")
	for _, a := range accesses {
		if a.reg != 0 {
			emit(in, "li      r%d, 0", a.reg)
		}
	}
	storeEngine := 0
	if c.chip.DMA.Engines > 1 {
		storeEngine = 1
	}
	tile := func(rows int64) {
		first := true
		wait := func() string {
			if first {
				first = false
				return " wait s2"
			}
			return ""
		}
		tileOp := func(name string) string {
			b := byName[name]
			return fmt.Sprintf("sram[r30+%d]:%s[%s]", b.off, b.dt, joinDims(append([]int64{rows}, b.row...)))
		}
		hbmOp := func(a *hbmAccess, row []int64) string {
			base := a.src.tensor
			if a.reg != 0 {
				base = fmt.Sprintf("r%d+%s", a.reg, a.src.tensor)
			}
			return fmt.Sprintf("hbm[%s]:%s[%s]{%s}", base, a.src.dt, joinDims(append([]int64{rows}, row...)), joinDims(a.strides))
		}
		nloads := 0
		for _, b := range sp.bufs {
			if b.load == nil {
				continue
			}
			emit(b.at, "dma     %s, %s%s signal s0", tileOp(b.name), hbmOp(b.load, b.row), wait())
			nloads++
		}
		for i, op := range sp.ops {
			sync := wait()
			if i == 0 && nloads > 0 {
				sync = fmt.Sprintf(" wait s0:%d", nloads)
			}
			if i == len(sp.ops)-1 {
				sync += " signal s1"
			}
			c.loc(op.at)
			op.emit(tileOp, sync)
		}
		storeWait := " wait s1"
		if len(sp.ops) == 0 {
			storeWait = fmt.Sprintf(" wait s0:%d", nloads)
		}
		emit(res.at, "dma     %s, %s @%d%s signal s2", hbmOp(store, sp.outRow), tileOp(sp.result), storeEngine, storeWait)
		for _, a := range accesses {
			if a.reg != 0 {
				emit(in, "addi    r%d, r%d, %d", a.reg, a.reg, a.adv)
			}
		}
		emit(in, "xori    r30, r30, %d", set)
	}
	if nt := R / TR; nt > 0 {
		emit(in, "li      r1, %d", nt)
		fmt.Fprintf(w, "%s_tile:\n", label)
		tile(TR)
		emit(in, "loop    r1, %s_tile", label)
	}
	if rem := R % TR; rem > 0 {
		tile(rem)
	}
	emit(in, "barrier")
	return nil
}

func prod(d []int64) int64 {
	n := int64(1)
	for _, x := range d {
		n *= x
	}
	return n
}
