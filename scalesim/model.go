package scalesim

import (
	"fmt"
	"math/big"
)

// Result is one layer's figures, as SCALE-Sim v3 reports them in CALC
// mode. Operands are indexed ifmap, filter, ofmap.
type Result struct {
	Layer   *Layer
	Folds   int64
	M, N, K int64

	// COMPUTE_REPORT.csv
	TotalInclPrefetch int64
	TotalCycles       int64
	StallCycles       int64
	OverallUtil       float64 // %
	MappingEff        float64 // %
	ComputeUtil       float64 // %

	// SRAM: requests (reads of ifmap and filter, writes of ofmap) and the
	// cycles of the first and last.
	SRAMAccesses        [3]int64
	SRAMStart, SRAMStop [3]int64
	// DRAM: elements moved and the first and last cycle. The ifmap and
	// filter stops and counts need the whole address stream (DRAMReads).
	DRAMAccesses        [3]int64
	DRAMStart, DRAMStop [3]int64
	DRAMReads           bool
	// User is InterfaceBandwidth USER: the figures that depend on the
	// bandwidth (stalls, DRAM cycles and counts, SRAM stop cycles) are not
	// reproduced and are left out of the reports (docs/scalesim.md).
	User bool
}

// Options tune a run.
type Options struct {
	// DRAMReads replays every ifmap and filter request through SCALE-Sim's
	// prefetching read buffers, for the DRAM stop cycles and read counts
	// of those operands (and their DRAM bandwidths). It costs time in
	// proportion to the requests; without it those columns are left empty.
	DRAMReads bool
}

// Simulate computes one layer in CALC bandwidth mode.
func Simulate(c *Config, l *Layer, opt Options) (*Result, error) {
	g := newGeometry(c, l)
	if rows := float64(g.folds()) * float64(g.perFold); rows > maxRows {
		return nil, fmt.Errorf("%.3g cycles of demand: beyond the %.0g the compatibility model replays (SCALE-Sim would build matrices of that many rows)", rows, float64(maxRows))
	}
	if opt.DRAMReads {
		for op := opIfmap; op <= opFilter; op++ {
			if _, span := g.addressRange(op); span > maxAddresses {
				return nil, fmt.Errorf("the %s has %d addresses, more than --dram-reads tracks (%d); use --dram-reads=false", opName[op], span, int64(maxAddresses))
			}
		}
	}
	r := &Result{Layer: l, Folds: g.folds(), M: l.M(), N: l.N(), K: l.K()}
	R, C := g.R, g.C

	// The compute modules' per-fold figures, summed in their order.
	var effSum, utilSum float64
	macs := R * C
	for f := int64(0); f < g.folds(); f++ {
		fr, fc := g.fold(f)
		ru, cu := g.rowUsed(fr), g.colUsed(fc)
		used := ru * cu
		effSum += pyDiv(used, macs)
		utilSum += pyDiv(used*g.T, macs*g.foldCycles())
		switch g.df {
		case "ws":
			r.SRAMAccesses[opIfmap] += g.T * ru
			r.SRAMAccesses[opFilter] += used
			r.SRAMAccesses[opOfmap] += g.T * cu
		case "os":
			r.SRAMAccesses[opIfmap] += g.T * ru
			r.SRAMAccesses[opFilter] += g.T * cu
			// systolic_compute_os.py adds the padded fold's height and
			// width to the ofmap writes, on top of its elements.
			r.SRAMAccesses[opOfmap] += used + R + C
		case "is":
			r.SRAMAccesses[opIfmap] += used
			r.SRAMAccesses[opFilter] += g.T * ru
			r.SRAMAccesses[opOfmap] += g.T * cu
		}
	}
	n := float64(g.folds())
	r.MappingEff = effSum / n * 100
	r.ComputeUtil = utilSum / n * 100

	// The rows of the first and last request of each operand.
	var first, last [3]int64
	for op := opIfmap; op <= opOfmap; op++ {
		first[op], last[op] = g.firstRow(op), g.lastRow(op)
	}

	// The memory system, row by row (double_buffered_scratchpad_mem.py).
	// Reads never stall in CALC mode. The ofmap buffer delays the row that
	// starts a drain, but SCALE-Sim v3's CALC results (its golden reports,
	// test/general/golden_trace_calc) carry no stall into later rows: the
	// array's cycle is the row's index, and Stall Cycles is 0. The current
	// v3 source would carry them (docs/scalesim.md, "Stalls").
	w := newWriteBuffer(c.OfmapSRAMkB*1024, C)
	var rb [2]*readBuffer
	for op := range rb {
		var base, span int64
		if opt.DRAMReads {
			base, span = g.addressRange(op)
		}
		rb[op] = newReadBuffer(sramBytes(c, op), 10, base, span)
	}
	var out int64
	rows := g.rows()
	for i := int64(0); i < rows; i++ {
		cycle := i
		f, row := i/g.perFold, i%g.perFold
		if opt.DRAMReads {
			for op := opIfmap; op <= opFilter; op++ {
				any := false
				for col := int64(0); col < g.width(op); col++ {
					if a := g.elem(op, f, row, col); a >= 0 {
						if !any {
							rb[op].row(cycle)
							any = true
						}
						rb[op].request(cycle, a)
					}
				}
			}
		}
		out = cycle
		if k := g.ofmapWrites(f, row); k > 0 {
			out = w.write(cycle, k)
		}
		for op := opIfmap; op <= opFilter; op++ {
			if i == first[op] {
				r.SRAMStart[op] = cycle + 1 // the SRAM's hit latency
			}
			if i == last[op] {
				r.SRAMStop[op] = cycle + 1
			}
		}
		if i == first[opOfmap] {
			r.SRAMStart[opOfmap] = out
		}
		if i == last[opOfmap] {
			r.SRAMStop[opOfmap] = out
		}
	}
	w.finish(out)
	// The last row's cycle: folds x rows per fold - 1 (SCALE-Sim's law).
	r.TotalCycles = rows - 1

	r.OverallUtil = ratio(r.M, r.N, r.K, 100)(r.TotalCycles, macs)
	r.DRAMAccesses[opOfmap] = w.accesses
	r.DRAMStart[opOfmap], r.DRAMStop[opOfmap] = w.first, w.last

	// The read buffers' first prefetch, from the distinct addresses read
	// and the first request (exact without the stream: see prefetchStart).
	for op := opIfmap; op <= opFilter; op++ {
		r.DRAMStart[op] = prefetchStart(sramBytes(c, op), 10, g.distinct(op), first[op])
		if opt.DRAMReads {
			b := rb[op]
			b.finish()
			if b.traceFirst != r.DRAMStart[op] {
				return nil, fmt.Errorf("internal error: %s DRAM start %d from the stream, %d from the formula", opName[op], b.traceFirst, r.DRAMStart[op])
			}
			r.DRAMStop[op], r.DRAMAccesses[op] = b.traceLast, b.accesses
		}
	}
	r.DRAMReads = opt.DRAMReads
	r.User = c.UserBandwidth
	r.TotalInclPrefetch = r.DRAMStop[opOfmap] - min(r.DRAMStart[opIfmap], r.DRAMStart[opFilter])
	return r, nil
}

// Limits of what a run replays: rows of demand, and addresses an operand
// may name when its reads are tracked (4 bytes each).
const (
	maxRows      = 1 << 34
	maxAddresses = 1 << 31
)

var opName = [3]string{"ifmap", "filter", "ofmap"}

// sramBytes is the size of an operand's SRAM.
func sramBytes(c *Config, op int) int64 {
	switch op {
	case opIfmap:
		return c.IfmapSRAMkB * 1024
	case opFilter:
		return c.FilterSRAMkB * 1024
	}
	return c.OfmapSRAMkB * 1024
}

// prefetchStart is the cycle of a read buffer's first DRAM read: its
// first prefetch fills the active half (50 sets of 1% of the SRAM) over
// the cycles just before the first request, at 10 elements a cycle, and
// the read port adds 1. When the operand has fewer distinct addresses
// than the active half holds, the prefetch happens at the end of the run
// and is timed to end at cycle -1 instead.
func prefetchStart(bytes, bw, distinct, firstReq int64) int64 {
	items := bytes / 100
	if distinct >= 50*items {
		return firstReq - ceilDiv(50*items, bw)
	}
	sets := int64(0)
	if items > 0 {
		sets = ceilDiv(distinct, items)
	}
	return -ceilDiv(sets*items, bw)
}

// firstRow and lastRow are the rows holding an operand's first and last
// request (-1 if none).
func (g *geometry) firstRow(op int) int64 {
	for f := int64(0); f < g.folds(); f++ {
		for r := int64(0); r < g.perFold; r++ {
			if g.rowHasRequest(op, f, r) {
				return f*g.perFold + r
			}
		}
	}
	return -1
}

func (g *geometry) lastRow(op int) int64 {
	for f := g.folds() - 1; f >= 0; f-- {
		for r := g.perFold - 1; r >= 0; r-- {
			if g.rowHasRequest(op, f, r) {
				return f*g.perFold + r
			}
		}
	}
	return -1
}

func (g *geometry) rowHasRequest(op int, f, r int64) bool {
	if op == opOfmap {
		return g.ofmapWrites(f, r) > 0
	}
	for c := int64(0); c < g.width(op); c++ {
		if g.elem(op, f, r, c) >= 0 {
			return true
		}
	}
	return false
}

// addressRange is the first address of an operand and the number of
// addresses after it that its requests can name.
func (g *geometry) addressRange(op int) (base, span int64) {
	l := g.layer
	if op == opFilter {
		return g.cfg.FilterOffset, g.window * l.N()
	}
	return g.cfg.IfmapOffset, l.IfmapH * l.IfmapW * l.Channels
}

// distinct counts the distinct addresses an operand's requests name.
func (g *geometry) distinct(op int) int64 {
	l := g.layer
	if op == opFilter {
		return g.window * l.N()
	}
	// Input pixels some window covers: rows times columns, per channel.
	covered := func(size, filter, stride, out int64) int64 {
		var n, reach int64
		for e := int64(0); e < out; e++ {
			lo, hi := max(e*stride, reach), min(e*stride+filter, size)
			if hi > lo {
				n += hi - lo
			}
			reach = max(reach, hi)
		}
		return n
	}
	return covered(l.IfmapH, l.FilterH, l.StrideH, g.eh) * covered(l.IfmapW, l.FilterW, l.StrideW, g.ew) * l.Channels
}

// ratio is Python's (a*b*c*d) / (e*f) on integers, however large.
func ratio(a ...int64) func(b ...int64) float64 {
	return func(b ...int64) float64 {
		num, den := big.NewInt(1), big.NewInt(1)
		for _, x := range a {
			num.Mul(num, big.NewInt(x))
		}
		for _, x := range b {
			den.Mul(den, big.NewInt(x))
		}
		q, _ := new(big.Rat).SetFrac(num, den).Float64()
		return q
	}
}

// pyDiv is Python's a / b on integers: the correctly rounded quotient.
func pyDiv(a, b int64) float64 {
	const exact = 1 << 53
	if a < exact && a > -exact && b < exact && b > -exact {
		return float64(a) / float64(b)
	}
	q, _ := new(big.Rat).SetFrac(big.NewInt(a), big.NewInt(b)).Float64()
	return q
}

// Run computes every layer of a topology, calling progress (if set) after
// each.
func Run(c *Config, layers []Layer, opt Options, progress func(done int, r *Result)) ([]*Result, error) {
	var out []*Result
	for i := range layers {
		r, err := Simulate(c, &layers[i], opt)
		if err != nil {
			return out, fmt.Errorf("layer %d (%s): %w", i, layers[i].Name, err)
		}
		out = append(out, r)
		if progress != nil {
			progress(i+1, r)
		}
	}
	return out, nil
}
