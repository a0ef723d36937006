package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// A topk of a few elements of each row (legalize.selectTopK's choice of a
// selection over a sort) whose rows fit SRAM is one kernel: the rows load
// once, become s32 keys in the order topk ranks them (a float's bits with
// the magnitude bits of negatives flipped: IEEE's total order, -NaN first,
// +NaN last; complemented for largest=false), and k rounds on the vector
// unit each take every row's largest key (vrmax), the lowest position
// holding it (vrmin over positions where the key is the largest), and
// retire that element (its key to the smallest, its position past the
// row, so that a retired element never wins a tie). The values come back
// from the keys (the flip is its own inverse). The selection rounds
// expanded as HLO were three kernels a round, each reading the rows from
// HBM: a top_k of 5 of f32[64,1000] took 35,422 cycles on tpuv4core.

// topKPlan lays out the kernel's SRAM: [rows, n] arrays of keys,
// positions, candidates, two masks and two fills, [rows, 1] columns, and
// the [rows, k] results.
type topKPlan struct {
	rows, n, k                    int64
	vals, key, pos, cand, eq, hit int64
	minFill, bigFill              int64
	shift, mask                   int64 // s32 [rows, n] fills of 31 and 0x7fffffff
	mx, idx, tmp, tmp2            int64 // s32 [rows, 1]
	outVals, outIdx               int64
}

// maxTopKRounds bounds the rounds (unrolled, a dozen vector ops each).
const maxTopKRounds = 64

func planTopK(elem string, rows, n, k, sramBytes int64) (*topKPlan, bool) {
	if elem != "f32" && elem != "s32" || k < 1 || k > n || k > maxTopKRounds || rows < 1 || rows > 1<<24 || n > 1<<24 {
		return nil, false
	}
	p := &topKPlan{rows: rows, n: n, k: k}
	var mem sramLayout
	take := mem.take
	full := rows * n
	p.vals, p.key, p.pos, p.cand = take(4*full), take(4*full), take(4*full), take(4*full)
	p.eq, p.hit = take(full), take(full)
	p.minFill, p.bigFill, p.shift, p.mask = take(4*full), take(4*full), take(4*full), take(4*full)
	p.mx, p.idx, p.tmp, p.tmp2 = take(4*rows), take(4*rows), take(4*rows), take(4*rows)
	p.outVals, p.outIdx = take(4*rows*k), take(4*rows*k)
	return p, mem.end <= sramBytes
}

// TopKFits is the legalization's question for this chip: does a topk of
// these rows run as the SRAM top-k kernel?
func TopKFits(sramBytes int64) func(elem string, rows, n, k int64) bool {
	return func(elem string, rows, n, k int64) bool {
		_, ok := planTopK(elem, rows, n, k, sramBytes/2)
		return ok
	}
}

// topKKernel emits a topk as the SRAM kernel, or returns false when its
// plan does not hold.
func (c *compiler) topKKernel(in *hlo.Instruction) (bool, error) {
	k, err := hlo.IntAttr(in, "k")
	x := c.bufs[in.Operands[0].Name]
	if err != nil || x == nil || x.tuple != nil || x.empty || len(x.shape.Dims) == 0 || !in.Shape.IsTuple {
		return false, nil
	}
	if len(in.Shape.Tuple) != 2 || in.Shape.Tuple[0].Elem != x.shape.Elem || in.Shape.Tuple[1].Elem != "s32" {
		return false, nil
	}
	largest := hlo.AttrOr(in, "largest", "true") == "true"
	n := x.shape.Dims[len(x.shape.Dims)-1]
	rows := x.shape.Elems() / n
	p, ok := planTopK(x.shape.Elem, rows, n, k, c.chip.Memory.SRAMBytes/2)
	if !ok {
		return false, nil
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return true, err
	}
	c.bufs[in.Name] = out
	vals, idxs := out.tuple[0], out.tuple[1]
	c.kernelHeader(in, "sort", 0, x.shape.Bytes()+vals.shape.Bytes()+idxs.shape.Bytes())
	if rp, ok := planTopKRegs(rows, n, k, c.chip.Memory.VRegBytes, int64(c.chip.VPU.Lanes*c.chip.VPU.Sublanes)); ok {
		c.topKInRegisters(in, x, vals, idxs, rp, rows, n, k, largest)
		return true, nil
	}
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	full := func(at int64, dt isa.DType) string { return fmt.Sprintf("sram[%d]:%s[%d,%d]", at, dt, rows, n) }
	col := func(at int64) string { return fmt.Sprintf("sram[%d]:s32[%d,1]", at, rows) }
	s32, pred := isa.S32, isa.Pred
	emit("semset  s1, 0")
	emit("dma     %s, hbm[%s+0]:%s[%d,%d] @0 signal s1", full(p.vals, x.dt), x.tensor, x.dt, rows, n)
	emit("viota   %s, 1", full(p.pos, s32))
	emit("vfill   %s, -2147483648", full(p.minFill, s32))
	emit("vfill   %s, %d", full(p.bigFill, s32), n)
	if x.dt == isa.F32 {
		emit("vfill   %s, 31", full(p.shift, s32))
		emit("vfill   %s, 2147483647", full(p.mask, s32))
	}
	emit("wait    s1, 1")
	// The keys: a float's bits read as s32, the magnitude bits of
	// negatives flipped (key ^ ((key >> 31) & 0x7fffffff)).
	emit("vcopy   %s, %s", full(p.key, s32), full(p.vals, s32))
	if x.dt == isa.F32 {
		flipKeys(emit, full(p.key, s32), full(p.key, s32), full(p.cand, s32), full(p.shift, s32), full(p.mask, s32), "")
	}
	if !largest {
		emit("vnot    %s, %s", full(p.key, s32), full(p.key, s32))
	}
	for r := range k {
		emit("vrmax   %s, %s", col(p.mx), full(p.key, s32))
		emit("vbcast  %s, %s", full(p.cand, s32), col(p.mx))
		emit("vcmp.eq %s, %s, %s", full(p.eq, pred), full(p.key, s32), full(p.cand, s32))
		emit("vcopy   %s, %s", full(p.cand, s32), full(p.bigFill, s32))
		emit("vsel    %s, %s, %s", full(p.cand, s32), full(p.eq, pred), full(p.pos, s32))
		emit("vrmin   %s, %s", col(p.idx), full(p.cand, s32))
		emit("vbcast  %s, %s", full(p.cand, s32), col(p.idx))
		emit("vcmp.eq %s, %s, %s", full(p.hit, pred), full(p.pos, s32), full(p.cand, s32))
		emit("vsel    %s, %s, %s", full(p.key, s32), full(p.hit, pred), full(p.minFill, s32))
		emit("vsel    %s, %s, %s", full(p.pos, s32), full(p.hit, pred), full(p.bigFill, s32))
		// Round r's column of each result: the index, and the value
		// back from its key.
		emit("vcopy   sram[%d]:s32[%d,1]{%d,1}, %s", p.outIdx+4*r, rows, k, col(p.idx))
		if !largest {
			emit("vnot    %s, %s", col(p.mx), col(p.mx))
		}
		if x.dt == isa.F32 {
			flipKeys(emit, col(p.mx), col(p.mx), col(p.tmp), fmt.Sprintf("sram[%d]:s32[%d,1]", p.shift, rows), fmt.Sprintf("sram[%d]:s32[%d,1]", p.mask, rows), "")
		}
		emit("vcopy   sram[%d]:s32[%d,1]{%d,1}, %s", p.outVals+4*r, rows, k, col(p.mx))
	}
	emit("barrier")
	emit("dma     hbm[%s+0]:%s[%d,%d], sram[%d]:%s[%d,%d] @0", vals.tensor, vals.dt, rows, k, p.outVals, vals.dt, rows, k)
	emit("dma     hbm[%s+0]:s32[%d,%d], sram[%d]:s32[%d,%d] @%d", idxs.tensor, rows, k, p.outIdx, rows, k, min(1, max(c.chip.DMA.Engines, 1)-1))
	emit("barrier")
	return true, nil
}

// flipKeys emits dst = src ^ ((src >> 31) & 0x7fffffff) through tmp (shift
// and mask hold 31 and 0x7fffffff): a float's bits as an s32 key in IEEE's
// total order, and back, as the flip is its own inverse. sync goes on the
// first instruction.
func flipKeys(emit func(string, ...any), dst, src, tmp, shift, mask, sync string) {
	emit("vsra    %s, %s, %s%s", tmp, src, shift, sync)
	emit("vand    %s, %s, %s", tmp, tmp, mask)
	emit("vxor    %s, %s, %s", dst, src, tmp)
}
