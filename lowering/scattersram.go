package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
)

// A scatter that combines (add, multiply, maximum, minimum) into an
// operand that fits SRAM with all its updates combines there, as XLA's TPU
// scatter does in VMEM: the operand and the updates load in one pass each
// (in pieces over the engines), the sequencer walks the indices and issues
// one vector op a window (in order on the vector unit, so a repeated index
// combines in index order with no wait between windows), and the operand
// stores once. The read-combine-write through HBM it replaces paid two
// HBM round trips a window in series: an embedding gradient of 128 rows
// took 41,000 cycles for 300 KB.

// residentScatterFits reports whether the operand and the updates fit the
// streaming kernels' half of SRAM together.
func residentScatterFits(src, upd *value, sramBytes int64) bool {
	need := align64(src.shape.Elems()*int64(src.dt.Size())) + align64(upd.shape.Elems()*int64(upd.dt.Size()))
	return need <= sramBytes/2
}

// scatterInSRAM emits the combining scatter of upd into src at the
// windows w walks, into out; vop is the combiner's vector op, shape and
// strides the window's in the operand.
func (c *compiler) scatterInSRAM(in *hlo.Instruction, w *windowWalk, vop string, src, upd, out *value, shape, strides []int64) error {
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	esz := int64(src.dt.Size())
	N, K := src.shape.Elems(), upd.shape.Elems()
	opAt, updAt := int64(0), align64(N*esz)
	pool := dmaPool(c.chip.DMA.Engines, -1, -1)
	engine := inTurn(pool)
	// move copies n elements between SRAM at sramAt and a tensor, in
	// pieces over the pool, each signalling sem.
	move := func(toSRAM bool, sramAt int64, tensor string, n int64, sem int) int64 {
		np := dmaPieces(n, esz, 1, len(pool))
		for _, r := range splitRows(n, np) {
			s := fmt.Sprintf("sram[%d]:%s[%d]", sramAt+r[0]*esz, src.dt, r[1])
			h := fmt.Sprintf("hbm[%s+%d]:%s[%d]", tensor, r[0]*esz, src.dt, r[1])
			if toSRAM {
				emit("dma     %s, %s @%d signal s%d", s, h, engine(), sem)
			} else {
				emit("dma     %s, %s @%d", h, s, engine())
			}
		}
		return np
	}
	emit("semset  s1, 0")
	loads := move(true, opAt, src.tensor, N, 1)
	if K > 0 {
		loads += move(true, updAt, upd.tensor, K, 1)
	}
	emit("wait    s1, %d", loads) // every window's op reads what they load
	win := fmt.Sprintf("sram[r3+%d]:%s[%s]{%s}", opAt, src.dt, joinDims(shape), joinDims(strides))
	dense := fmt.Sprintf("sram[r6+%d]:%s[%s]", updAt, upd.dt, joinDims(shape))
	err := c.emitWalk(in, w, esz, prod(shape)*esz, true, func() {
		emit("%-7s %s, %s, %s", vop, win, win, dense)
	})
	if err != nil {
		return err
	}
	emit("barrier") // the vector unit has combined every window
	move(false, opAt, out.tensor, N, 0)
	emit("barrier")
	return nil
}
