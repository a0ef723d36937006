package traces

import (
	"fmt"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/energy"

	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/sim"
)

// DefaultMaxEvents caps a timeline's slices and counter samples. A
// recorded event takes about 200 bytes of JSON (195 MB for a million on
// MobileNet-v2), so the default keeps a trace near 160 MB however long the
// run; --trace-window picks the part of a long run to keep instead.
const DefaultMaxEvents = 800_000

// TimelineOptions choose what a timeline keeps.
type TimelineOptions struct {
	// Start and End are the window in core cycles: only activity in
	// [Start, End) is recorded, slices are clipped to it. End 0: to the
	// end of the run.
	Start, End int64
	// MaxEvents caps the recorded slices and counter samples (0:
	// DefaultMaxEvents). Past the cap, the trace ends with a note saying
	// where it stopped.
	MaxEvents int
}

// Timeline records a run as Perfetto reads it: one track per unit whose
// slices are the unit's busy stretches (named by instruction) and stalls
// (named by reason), a track of kernel runs, and counters of HBM bandwidth
// per channel, unit queue depths and the SRAM the running kernel touches.
// Attach it through core.Options.Observers; write it with WriteJSON.
type Timeline struct {
	tracks coreTracks // every core's sequencer and units
	src    *Source
	opt    TimelineOptions
	m      *core.Model
	ws, we sim.Time // window in picoseconds

	slices  []slice
	open    []slice // per track: the stretch being extended, state < 0 when none
	kernels []slice // kernel runs: track = lane, pc = kernel index
	laneEnd []sim.Time
	counts  []counterSample
	lastCnt map[counterKey]int // index into counts of the counter's last sample

	// Dynamic power: each unit instruction's energy over its run, in
	// femtojoules per bin (nil prices: the chip has no energy section).
	power  bins
	prices *energy.Prices
	seenPJ []float64 // by pc: priced actions at the last completion

	// The kernel running, for the kernel track and the SRAM counter.
	runs runTracker
	sram intervals

	hbm bins

	events      int
	truncated   bool
	truncatedAt sim.Time
}

// slice is a stretch of one track: a unit's state on behalf of pc.
type slice struct {
	track int32 // unit index + 1 (0: the sequencer); for kernel runs, the lane
	pc    int32 // instruction; for kernel runs, the kernel
	state int8  // index in stateOrder; -1: none
	start sim.Time
	end   sim.Time
}

type counterKey struct {
	kind  uint8 // counterQueue, counterSRAM
	index int32
}

const (
	counterQueue uint8 = iota
	counterSRAM
)

type counterSample struct {
	key   counterKey
	at    sim.Time
	value float64
}

// stateOrder names the states a unit reports (sim.HookState's Reason);
// the index is the slice's state.
var stateOrder = []string{"busy", "semaphore", "structural", "memory", "bank_conflict", "idle"}

const (
	stBusy = iota
	stIdle = 5
)

func stateIndex(reason string) int8 {
	for i, s := range stateOrder {
		if s == reason {
			return int8(i)
		}
	}
	return -1
}

// NewTimeline makes a timeline of a run of src's program.
func NewTimeline(src *Source, opt TimelineOptions) *Timeline {
	if opt.MaxEvents <= 0 {
		opt.MaxEvents = DefaultMaxEvents
	}
	t := &Timeline{src: src, opt: opt, lastCnt: map[counterKey]int{}}
	t.runs.init(src, t.closeRun)
	return t
}

// Attach implements core.Observer.
func (t *Timeline) Attach(m *core.Model) {
	t.m = m
	t.ws = m.Clock.Time(t.opt.Start)
	t.we = 1<<62 - 1
	if t.opt.End > 0 {
		t.we = m.Clock.Time(t.opt.End)
	}
	t.tracks.add(m)
	t.open = make([]slice, len(m.Units)+1)
	for i := range t.open {
		t.open[i].state = -1
	}
	t.hbm = newBins(m.HBM.Channels(), m.Clock.Period*256)
	t.power = newBins(1, m.Clock.Period*256)
	if m.Chip.Energy != (config.Energy{}) {
		t.prices = energy.PricesOf(m.Chip)
		t.seenPJ = make([]float64, len(m.Prog.Code))
	}
	m.Seq.AcceptHook(t)
	for _, u := range m.Units {
		u.AcceptHook(t)
	}
	m.HBM.AcceptHook(t)
}

// AttachCore implements core.CoreObserver: the core's sequencer and units
// get tracks of their own after the cores before it, their queue depths
// counters, and their instructions' energy joins the power counter. The
// kernel track and the SRAM counter follow core 0 (every core runs the same
// kernels between barriers), and the HBM, which the cores share, is watched
// once.
func (t *Timeline) AttachCore(m *core.Model, k int) {
	base := t.tracks.add(m)
	for range len(m.Units) + 1 {
		t.open = append(t.open, slice{state: -1})
	}
	tc := &timelineCore{t: t, m: m}
	if t.prices != nil {
		tc.seenPJ = make([]float64, len(m.Prog.Code))
	}
	h := &shifted{h: tc, base: base, want: func(p sim.HookPos) bool {
		return p == sim.HookState || p == sim.HookDispatch || p == sim.HookDequeue || p == sim.HookInstEnd
	}}
	m.Seq.AcceptHook(h)
	for _, u := range m.Units {
		u.AcceptHook(h)
	}
}

// timelineCore records the events of a core after the first.
type timelineCore struct {
	t      *Timeline
	m      *core.Model
	seenPJ []float64
}

func (c *timelineCore) Func(ctx *sim.HookCtx) {
	t := c.t
	switch ctx.Pos {
	case sim.HookState:
		t.state(ctx)
	case sim.HookDispatch, sim.HookDequeue:
		t.counter(counterKey{counterQueue, int32(ctx.Unit)}, ctx.Now, float64(ctx.Depth))
	case sim.HookInstEnd:
		if c.seenPJ != nil {
			t.addEnergy(ctx, c.m, c.seenPJ)
		}
	}
}

// Func implements sim.Hook.
func (t *Timeline) Func(ctx *sim.HookCtx) {
	switch ctx.Pos {
	case sim.HookState:
		t.state(ctx)
	case sim.HookInstStart:
		t.instStart(ctx)
	case sim.HookInstEnd:
		t.runs.inst(ctx)
		t.instEnergy(ctx)
	case sim.HookDispatch, sim.HookDequeue:
		t.counter(counterKey{counterQueue, int32(ctx.Unit)}, ctx.Now, float64(ctx.Depth))
	case sim.HookTransfer:
		if ctx.Now > t.ws && ctx.Start < t.we {
			t.hbm.add(ctx.Unit, max(ctx.Start, t.ws)-t.ws, min(ctx.Now, t.we)-t.ws, ctx.Bytes)
		}
	}
}

// instEnergy spreads the dynamic energy an instruction just spent over its
// run, for the power counter: the growth of its pc's priced actions since
// its last completion.
func (t *Timeline) instEnergy(ctx *sim.HookCtx) {
	if t.prices != nil {
		t.addEnergy(ctx, t.m, t.seenPJ)
	}
}

// addEnergy adds what m's instruction at ctx.PC spent since seen[pc].
func (t *Timeline) addEnergy(ctx *sim.HookCtx, m *core.Model, seen []float64) {
	if ctx.Now <= t.ws || ctx.Start >= t.we {
		return
	}
	pj := t.prices.PJ(m.ActionsAt(ctx.PC))
	d := pj - seen[ctx.PC]
	seen[ctx.PC] = pj
	if d > 0 {
		t.power.add(0, max(ctx.Start, t.ws)-t.ws, min(ctx.Now, t.we)-t.ws, int64(d*1000)) // femtojoules
	}
}

// record counts an event against the cap; false once the cap is reached.
func (t *Timeline) record(at sim.Time) bool {
	if t.events >= t.opt.MaxEvents {
		if !t.truncated {
			t.truncated, t.truncatedAt = true, at
		}
		return false
	}
	t.events++
	return true
}

// state extends the unit's open stretch or starts a new one.
func (t *Timeline) state(ctx *sim.HookCtx) {
	tr := ctx.Unit + 1
	st := stateIndex(ctx.Reason)
	o := &t.open[tr]
	if o.state == st && int(o.pc) == ctx.PC && o.end == ctx.Start {
		o.end = ctx.Now
		return
	}
	t.flush(tr)
	if st < 0 || st == stIdle {
		return
	}
	*o = slice{track: int32(tr), pc: int32(ctx.PC), state: st, start: ctx.Start, end: ctx.Now}
}

// flush records track tr's open stretch, clipped to the window.
func (t *Timeline) flush(tr int) {
	o := &t.open[tr]
	if o.state < 0 {
		return
	}
	s := *o
	o.state = -1
	s.start, s.end = max(s.start, t.ws), min(s.end, t.we)
	if s.end <= s.start || !t.record(s.start) {
		return
	}
	t.slices = append(t.slices, s)
}

func (t *Timeline) instStart(ctx *sim.HookCtx) {
	if t.runs.inst(ctx) {
		t.sram.reset()
		t.counter(counterKey{counterSRAM, 0}, ctx.Now, 0)
	}
	if t.runs.cur < 0 {
		return
	}
	in := &t.src.Prog.Code[ctx.PC]
	grew := false
	for i, tl := range in.Tiles {
		l, ok := t.src.Prog.Layout(tl.Layout)
		if !ok || l.Space != isa.SRAM {
			continue
		}
		lo, hi := l.Extent()
		base := ctx.Bases[i] + tl.Off
		grew = t.sram.add(base+lo, base+hi) || grew
	}
	if grew {
		t.counter(counterKey{counterSRAM, 0}, ctx.Now, float64(t.sram.total()))
	}
}

// closeRun records the current kernel run on the kernel track, on the
// first lane where it does not overlap the previous run.
func (t *Timeline) closeRun(k int, start, end sim.Time) {
	s := slice{pc: int32(k), state: -1, start: max(start, t.ws), end: min(max(end, start+1), t.we)}
	if s.end <= s.start || !t.record(s.start) {
		return
	}
	lane := 0
	for lane < len(t.laneEnd) && t.laneEnd[lane] > s.start {
		lane++
	}
	if lane == len(t.laneEnd) {
		t.laneEnd = append(t.laneEnd, 0)
	}
	t.laneEnd[lane] = s.end
	s.track = int32(lane)
	t.kernels = append(t.kernels, s)
}

// counter records a counter sample, replacing the counter's last sample
// when it has the same time and dropping it when the value is unchanged.
func (t *Timeline) counter(k counterKey, at sim.Time, v float64) {
	if at < t.ws || at >= t.we {
		return
	}
	if i, ok := t.lastCnt[k]; ok {
		last := &t.counts[i]
		if last.value == v {
			return
		}
		if last.at == at {
			last.value = v
			return
		}
	}
	if !t.record(at) {
		return
	}
	t.lastCnt[k] = len(t.counts)
	t.counts = append(t.counts, counterSample{k, at, v})
}

// finish closes what is still open at the end of the run.
func (t *Timeline) finish() {
	for tr := range t.open {
		t.flush(tr)
	}
	t.runs.close()
}

// Attached reports whether the timeline has watched a model.
func (t *Timeline) Attached() bool { return t.m != nil }

// Truncated reports whether the event cap was reached, and a note saying
// where the trace stops.
func (t *Timeline) Truncated() (bool, string) {
	if !t.truncated {
		return false, ""
	}
	return true, fmt.Sprintf("the trace reached its cap of %d events at cycle %d; the rest of the run is not in it (choose a part with --trace-window START:END or raise --trace-max-events)",
		t.opt.MaxEvents, t.m.Clock.Cycles(t.truncatedAt))
}

// intervals is a set of byte ranges, kept merged and sorted.
type intervals struct{ lo, hi []int64 }

func (v *intervals) reset() { v.lo, v.hi = v.lo[:0], v.hi[:0] }

// add inserts [lo, hi) and reports whether the set grew.
func (v *intervals) add(lo, hi int64) bool {
	if hi <= lo {
		return false
	}
	for i := range v.lo {
		if lo >= v.lo[i] && hi <= v.hi[i] {
			return false // the common case: a double buffer used again
		}
	}
	nlo, nhi := v.lo[:0:0], v.hi[:0:0]
	placed := false
	for i := range v.lo {
		switch {
		case v.hi[i] < lo:
			nlo, nhi = append(nlo, v.lo[i]), append(nhi, v.hi[i])
		case v.lo[i] > hi:
			if !placed {
				nlo, nhi, placed = append(nlo, lo), append(nhi, hi), true
			}
			nlo, nhi = append(nlo, v.lo[i]), append(nhi, v.hi[i])
		default:
			lo, hi = min(lo, v.lo[i]), max(hi, v.hi[i])
		}
	}
	if !placed {
		nlo, nhi = append(nlo, lo), append(nhi, hi)
	}
	v.lo, v.hi = nlo, nhi
	return true
}

func (v *intervals) total() int64 {
	var n int64
	for i := range v.lo {
		n += v.hi[i] - v.lo[i]
	}
	return n
}

// bins accumulate bytes per channel in time bins, doubling the bin width
// whenever a run outgrows maxBins, so memory stays bounded.
type bins struct {
	width sim.Time
	bytes [][]float64 // [channel][bin]
}

const maxBins = 4096

func newBins(channels int, width sim.Time) bins {
	return bins{width: max(width, 1), bytes: make([][]float64, channels)}
}

// add spreads n bytes moved over [from, to) across the bins it covers.
func (b *bins) add(ch int, from, to sim.Time, n int64) {
	if ch < 0 || ch >= len(b.bytes) {
		return
	}
	for to > b.width*maxBins {
		b.widen()
	}
	if to <= from {
		to = from + 1
	}
	per := float64(n) / float64(to-from)
	row := b.bytes[ch]
	for t := from; t < to; {
		i := int(t / b.width)
		end := min(sim.Time(i+1)*b.width, to)
		for len(row) <= i {
			row = append(row, 0)
		}
		row[i] += per * float64(end-t)
		t = end
	}
	b.bytes[ch] = row
}

func (b *bins) widen() {
	b.width *= 2
	for c, row := range b.bytes {
		for i := range row {
			if i%2 == 1 {
				row[i/2] += row[i]
			} else {
				row[i/2] = row[i]
			}
		}
		b.bytes[c] = row[:(len(row)+1)/2]
	}
}
