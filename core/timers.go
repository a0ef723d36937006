package core

import (
	"slices"

	"github.com/pulse-sim/pulse/dma"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/memory"
	"github.com/pulse-sim/pulse/sim"
	"github.com/pulse-sim/pulse/systolic"
)

// timer decides when a unit's instruction starts, when the unit may start
// its next one, and when this one completes. next or end < 0: the timer calls
// u.complete itself (the DMA engine, whose end depends on traffic to come).
type timer interface {
	begin(u *Unit, now sim.Time, pc int, tiles [3]*isa.Layout, bases [3]int64) (start, next, end sim.Time)
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

type mxuTimer struct{ arr *systolic.Array }

func (t *mxuTimer) begin(u *Unit, now sim.Time, pc int, v [3]*isa.Layout, _ [3]int64) (sim.Time, sim.Time, sim.Time) {
	c := u.m.Clock
	in := &u.m.Prog.Code[pc]
	tc := c.CyclesCeil(now)
	act := &u.m.actions[pc]
	if in.Op.Info().Format == isa.FmtT1 { // mxu.ldw
		act.access(v[0], false)
		k := v[0].Shape[0] // the weight rows the chain shifts in: K
		if in.Op.Info().Func == isa.LdwTransposed {
			k = v[0].Shape[1] // the tile is W^T[N,K]
		}
		s, e := t.arr.Load(tc, int(k))
		return c.Time(s), c.Time(s), c.Time(e) // weight loads run beside streams: not array time
	}
	m, k, n := int(v[1].Shape[0]), int(v[1].Shape[1]), int(v[0].Shape[1])
	rate := u.m.Chip.StreamRowCycles(v[1].DType, int(in.Passes))
	s, _, d := t.arr.Stream(tc, m, k, n, rate)
	u.acct.busy(c.Time(t.arr.Busy[0]), c.Time(t.arr.Busy[1]), pc)
	u.m.flops += 2 * int64(m) * int64(k) * int64(n)
	act.MACs[macIndex(v[1].DType)] += int64(m) * int64(k) * int64(n)
	act.access(v[1], false) // X streams from SRAM
	act.access(v[0], true)  // results into the accumulators
	if in.Op.Info().Func == isa.MMAccumulate {
		act.access(v[0], false)
	}
	return c.Time(s), c.Time(s), c.Time(d)
}

// vpuTimer: the vector and cross-lane units. An instruction occupies the
// unit for max(element groups x op cost, the time the banks take to serve its
// operands' lines), and completes latency later.
type vpuTimer struct {
	lanes   int64
	latency int64
	trans   int64
	div     int64
	f64     int64 // f64 arithmetic's cost multiplier (vpu.f64_cost; 2 on the XLU: two 32-bit halves)
	f16     int64 // cycles per element group for each f16 operand or result converted (vpu.f16_convert_cost)
}

// Vector op classes: what an element-op costs in time and energy.
const (
	opSimple = iota
	opTranscendental
	opDivide
)

func opClass(in *isa.Inst) int {
	info := in.Op.Info()
	switch info.Code {
	case isa.CodeVUn, isa.CodeVAct:
		switch info.Func {
		case isa.FnExp, isa.FnLog, isa.FnTanh, isa.FnLogistic, isa.FnGelu:
			return opTranscendental
		case isa.FnSqrt, isa.FnRsqrt, isa.FnRcp:
			return opDivide
		}
	case isa.CodeVBin:
		if info.Func == isa.VDiv || info.Func == isa.VPow {
			return opDivide
		}
	}
	return opSimple
}

func opCost(t *vpuTimer, in *isa.Inst) int64 {
	switch opClass(in) {
	case opTranscendental:
		return t.trans
	case opDivide:
		return t.div
	}
	return 1
}

// wideCost: lanes are 32 bits wide, so 64-bit integers take two passes,
// as does moving f64 data; f64 arithmetic, which the lanes emulate, costs
// vpu.f64_cost times the f32 op.
func (t *vpuTimer) wideCost(in *isa.Inst, v [3]*isa.Layout) int64 {
	cost := int64(1)
	for _, l := range v {
		switch {
		case l == nil:
		case l.DType == isa.F64 && !movesData(in):
			cost = max(cost, t.f64, 2)
		case l.DType.IsWide(), l.DType == isa.F64:
			cost = max(cost, 2)
		}
	}
	return cost
}

// f16Cost is what an instruction's f16 operands and result add per element
// group on lanes without an f16 format: each one read is converted to f32
// and a result written converted back, with integer ops (vpu.f16_convert_cost
// each). An instruction that only moves elements moves their bits as they are.
func (t *vpuTimer) f16Cost(in *isa.Inst, v [3]*isa.Layout) int64 {
	if t.f16 == 0 || movesData(in) {
		return 0
	}
	n := int64(0)
	for _, l := range v {
		if l != nil && l.DType == isa.F16 {
			n++
		}
	}
	return n * t.f16
}

// movesData reports whether a vector instruction copies elements without
// arithmetic.
func movesData(in *isa.Inst) bool {
	switch in.Op.Info().Code {
	case isa.CodeVCopy, isa.CodeVBcast, isa.CodeVSel, isa.CodeVFill:
		return true
	}
	return false
}

func (t *vpuTimer) begin(u *Unit, now sim.Time, pc int, v [3]*isa.Layout, b [3]int64) (sim.Time, sim.Time, sim.Time) {
	c := u.clock
	in := &u.m.Prog.Code[pc]
	start := c.NextEdge(now)
	elems := v[0].Elems()
	memEnd, idealEnd := start, start
	for i, l := range v {
		if l == nil {
			continue
		}
		elems = max(elems, l.Elems())
		if banks := u.m.banks(l.Space); banks != nil {
			bl := l
			if i > 0 {
				bl = spannedLines(distinctLines(l), banks.LineBytes())
			}
			end, ideal := banks.ReserveTile(start, memory.Tile{Base: b[i], Layout: bl})
			memEnd, idealEnd = max(memEnd, end), max(idealEnd, ideal)
		}
	}
	occ := max(ceilDiv(elems, t.lanes)*(opCost(t, in)*t.wideCost(in, v)+t.f16Cost(in, v)), 1)
	switch in.Op.Info().Code {
	case isa.CodeVBin, isa.CodeVUn, isa.CodeVScale, isa.CodeVAct, isa.CodeVRed, isa.CodeXRed:
		u.m.flops += elems
	}
	act := &u.m.actions[pc]
	for i, l := range v {
		if l != nil {
			act.access(l, i == 0)
		}
	}
	switch {
	case u.ID.Class == isa.UnitXLU:
		act.XLUElements += elems
	case opClass(in) == opTranscendental:
		act.VTranscendental += elems
	case opClass(in) == opDivide:
		act.VDivide += elems
	default:
		act.VSimple += elems
	}
	next := max(start+c.Time(occ), c.NextEdge(memEnd))
	// Busy for the work and for the lines a perfect spread over the banks
	// would take; the rest is a bank-conflict stall.
	busyEnd := min(next, max(start+c.Time(occ), c.NextEdge(idealEnd)))
	u.acct.busy(start, busyEnd, pc)
	u.acct.bankConflict(busyEnd, next, pc)
	return start, next, next + c.Time(t.latency)
}

type dmaTimer struct{ eng *dma.Engine }

func (t *dmaTimer) begin(u *Unit, now sim.Time, pc int, v [3]*isa.Layout, b [3]int64) (sim.Time, sim.Time, sim.Time) {
	// Busy while the engine issues this descriptor's bursts; once they are
	// all out, the wait for the data is a memory stall.
	u.acct.busy(now, 1<<62, pc)
	act := &u.m.actions[pc]
	act.access(v[0], true)
	act.access(v[1], false)
	act.DMABytes += layoutBytes(v[1])
	t.eng.Start(now, u.headAvail, memory.Tile{Base: b[0], Layout: v[0]}, memory.Tile{Base: b[1], Layout: v[1]},
		func(ready sim.Time) {
			u.acct.endBusy(ready)
			u.readyAsync(ready)
		},
		func(end sim.Time) { u.complete(pc, now, end) })
	return now, -1, -1
}

// distinctLines is a source operand's layout less its dims of stride 0: a
// broadcast read fetches each line once and the operand path repeats it,
// as a TPU's vector load broadcasts a row across sublanes and its ALUs
// take a scalar operand from a scalar register.
func distinctLines(l *isa.Layout) *isa.Layout {
	if !slices.Contains(l.Strides[:l.Rank], 0) {
		return l
	}
	c := *l
	for d := 0; d < int(c.Rank); d++ {
		if c.Strides[d] == 0 {
			c.Shape[d] = 1
		}
	}
	return &c
}

// spannedLines is a source operand's layout read as the lines it spans
// when its elements lie closer than a line apart along its minor dim (a
// stride-2 window of a strided convolution): each line is read once and
// the lanes take their elements from it, so the operand costs the lines
// of its span (twice a dense one's for a stride of 2), not a line an
// element.
func spannedLines(l *isa.Layout, lineBytes int64) *isa.Layout {
	d := int(l.Rank) - 1
	if d < 0 {
		return l
	}
	s, sz := int64(l.Strides[d]), int64(l.DType.Size())
	if s <= 1 || s*sz >= lineBytes || l.Shape[d] < 2 {
		return l
	}
	c := *l
	c.Shape[d] = uint32((int64(c.Shape[d])-1)*s + 1)
	c.Strides[d] = 1
	return &c
}
