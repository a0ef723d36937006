package scalesim

// The two memory models of SCALE-Sim v3's CALC ("estimate bandwidth")
// mode, ported for their figures: scalesim/memory/write_buffer.py (the
// ofmap SRAM draining to DRAM; it can stall the array) and
// read_buffer_estimate_bw.py (the ifmap and filter SRAMs, whose prefetches
// never stall the array but give the DRAM columns). Their behaviour is
// replayed exactly, quirks included (noted where they show in a figure).

// writeBuffer is write_buffer.py with word size 1 and active fraction 0.5.
// Requests are counted, not stored: the model never looks at addresses.
type writeBuffer struct {
	total, active, drain int64 // elements
	bw                   int64 // elements per trace line (the array width in CALC)

	free       int64
	lineFill   int64           // requests in the line being filled
	lines      int64           // lines in the trace (full ones and flushed partial ones)
	partial    map[int64]int64 // fill of each line flushed before it was full
	drainStart int64           // first trace line not yet drained
	drainEnd   int64           // cycle the drain in progress ends

	accesses       int64
	first, last    int64 // cycles of the DRAM writes
	drainedAnyLine bool
}

func newWriteBuffer(bytes, bw int64) *writeBuffer {
	active := (bytes + 1) / 2 // ceil(total * 0.5)
	return &writeBuffer{total: bytes, active: active, drain: bytes - active, bw: bw, free: bytes, partial: map[int64]int64{}}
}

// store adds n requests to the trace lines.
func (w *writeBuffer) store(n int64) {
	w.free -= n
	w.lines += (w.lineFill + n) / w.bw
	w.lineFill = (w.lineFill + n) % w.bw
}

// flush ends the line being filled (append_to_trace_mat(force=True)).
func (w *writeBuffer) flush() {
	if w.lineFill != 0 {
		w.partial[w.lines] = w.lineFill
		w.lines++
		w.lineFill = 0
	}
}

// drainFrom writes the next drain buffer's worth of lines to DRAM from
// cycle start, one line a cycle, and returns the cycle of the last.
// SCALE-Sim counts every slot of the lines drained as data except the
// empty slots of the last one: a partial line in the middle counts full.
func (w *writeBuffer) drainFrom(start int64) int64 {
	end := min(w.drainStart+ceilDiv(w.drain, w.bw), w.lines)
	n := end - w.drainStart
	if n <= 0 {
		return start
	}
	data := n * w.bw
	if fill, ok := w.partial[end-1]; ok {
		data -= w.bw - fill
	}
	w.accesses += data
	if !w.drainedAnyLine {
		w.first, w.drainedAnyLine = start, true
	}
	w.first, w.last = min(w.first, start), max(w.last, start+n-1)
	w.free += data
	w.drainStart = end
	return start + n - 1
}

// write serves k requests arriving at cycle and returns the cycle the
// array may go on (later than cycle when it stalled on a full buffer).
func (w *writeBuffer) write(cycle, k int64) int64 {
	cur := cycle
	for k > 0 {
		if cur < w.drainEnd {
			// A drain is under way: the array stalls when the buffer fills.
			n := max(w.free, 1)
			if n > k {
				w.store(k)
				break
			}
			w.store(n)
			k -= n
			cur = w.drainEnd
			continue
		}
		// Start a drain once the active half is full.
		n := max(w.free-w.active+1, 1)
		if n > k {
			w.store(k)
			break
		}
		w.store(n)
		k -= n
		w.flush()
		w.drainEnd = w.drainFrom(cur)
		cur = w.drainEnd
	}
	return cur
}

// finish drains everything left, from cycle (empty_all_buffers).
func (w *writeBuffer) finish(cycle int64) {
	w.flush()
	for w.drainStart < w.lines {
		w.drainEnd = w.drainFrom(cycle)
		cycle = w.drainEnd + 1
	}
}

// readBuffer is read_buffer_estimate_bw.py with word size 1, active
// fraction 0.5 and a read port of latency 1: it groups the distinct
// addresses requested into sets of 1% of the SRAM, and prefetches half the
// buffer's sets at a time over the cycles since the last prefetch. Only
// its DRAM figures are kept: the first and last prefetch cycles and the
// number of elements fetched.
type readBuffer struct {
	items                    int64 // elements per set
	activeSets, prefetchSets int64
	bw                       int64 // the default prefetch bandwidth (10 in CALC)
	latency                  int64

	setOf                 []int32 // address - base -> 1 + the latest set it was put in (0: none)
	base                  int64
	curSet, curElems      int64
	readStart, readEnd    int64
	pfStart               int64
	lastStart, lastEnd    int64
	firstReq              int64
	firstSeen, activeDone bool
	accesses              int64
	traceFirst, traceLast int64
	traceValid            bool
}

// newReadBuffer makes a read buffer of bytes for addresses in [base,
// base+span) (span 0: no addresses are tracked).
func newReadBuffer(bytes, bw, base, span int64) *readBuffer {
	r := &readBuffer{items: bytes / 100, activeSets: 50, prefetchSets: 50, bw: bw, latency: 1,
		readEnd: 49, lastStart: -2, lastEnd: -1, base: base}
	if span > 0 {
		r.setOf = make([]int32, span)
	}
	return r
}

// row notes the first cycle with a request.
func (r *readBuffer) row(cycle int64) {
	if !r.firstSeen {
		r.firstReq, r.firstSeen = cycle, true
	}
}

// request serves one address at cycle (manage_prefetches).
func (r *readBuffer) request(cycle, addr int64) {
	slot := &r.setOf[addr-r.base]
	if *slot > 0 {
		s := int64(*slot - 1)
		if s == r.curSet {
			return // already in the set being filled
		}
		if end := min(r.curSet, r.readEnd+1); s >= r.readStart && s < end {
			return // a hit in the active sets
		}
	}
	*slot = int32(r.curSet + 1)
	r.curElems++
	if r.curElems != r.items {
		return
	}
	r.curElems = 0
	r.curSet++
	if r.curSet != r.readEnd+1 {
		return
	}
	if !r.activeDone {
		r.lastEnd = r.firstReq - 1 - r.latency
		r.lastStart = r.lastEnd - ceilDiv(r.prefetchSets*r.items, r.bw) + 1
		r.prefetch(r.activeSets * r.items)
		r.pfStart = r.readEnd + 1
		r.activeDone = true
	} else {
		r.prefetch(r.prefetchSets * r.items)
		r.pfStart += r.prefetchSets
	}
	r.readStart += r.prefetchSets
	r.readEnd += r.prefetchSets
	r.lastStart = r.lastEnd + 1
	r.lastEnd = cycle
}

// prefetch records a prefetch of n elements over [lastStart, lastEnd].
func (r *readBuffer) prefetch(n int64) {
	r.accesses += n
	if !r.traceValid {
		r.traceFirst, r.traceValid = r.lastStart+r.latency, true
	}
	r.traceLast = r.lastEnd + r.latency
}

// finish prefetches what is left (complete_all_prefetches).
func (r *readBuffer) finish() {
	partial := r.curElems
	if partial == 0 {
		r.curSet--
	}
	if !r.activeDone {
		r.lastEnd = -1 - r.latency
		sets := r.curSet + 1
		r.lastStart = r.lastEnd - ceilDiv(sets*r.items, r.bw) + 1
		r.prefetch(fullAndPartial(sets, r.items, partial))
		r.activeDone = true
		return
	}
	r.prefetch(fullAndPartial(r.curSet-r.pfStart+1, r.items, partial))
}

// fullAndPartial counts the elements of n sets, the last of which holds
// partial elements when partial > 0.
func fullAndPartial(n, items, partial int64) int64 {
	if n <= 0 {
		return 0
	}
	if partial > 0 {
		return (n-1)*items + partial
	}
	return n * items
}
