// Package dma models DMA engines. An engine takes descriptors in order and
// splits each into bursts that follow the contiguous runs of the HBM-side
// tile (an on-chip side's runs less than a bank line apart join a burst); it keeps at most MaxOutstanding bursts in flight (across
// descriptors) and issues them no faster than its own bandwidth cap. It
// accepts the next descriptor as soon as the current one has issued its last
// burst, so descriptors pipeline, and it reports completions in order. HBM is
// shared by all engines, so engines with work interleave their bursts.
//
// A descriptor's setup (Config.Setup) runs from its acceptance, or, with
// Config.Prefetch, from when it was available to the engine (queued, its
// semaphore met) once one of Prefetch descriptor slots is free: the setup of
// queued descriptors then overlaps the transfers before them, and only a
// descriptor that waited for a semaphore, or found the engine idle, pays it
// in full.
package dma

import (
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/memory"
	"github.com/pulse-sim/pulse/sim"
)

// Config is the timing of one engine.
type Config struct {
	BurstBytes     int
	MaxOutstanding int
	Setup          sim.Time // from accepting a descriptor to its first burst
	// Prefetch is how many descriptors beyond the one issuing the engine
	// sets up ahead (0: none; each setup starts at acceptance).
	Prefetch   int
	EngineGBps float64 // issue rate cap, 0: none
	// Banks gives the bank model of an on-chip space (nil: no bank timing,
	// as for scalar memory).
	Banks func(isa.Space) *memory.Banks
	// HostIn and HostOut time the host link's two directions (reads of
	// and writes to host memory), shared by every engine as HBM is; nil:
	// host memory is reached at no cost (a chip without a host link has no
	// host memory to reach).
	HostIn, HostOut memory.HBM
}

// side is one end of a transfer: an off-chip memory (HBM, or host memory
// behind the link), or an on-chip space with its banks.
type side struct {
	far   memory.HBM // nil: on-chip
	banks *memory.Banks
	runs  memory.Runs
	addr  int64
	left  int64
}

// take carves the next chunk of at most max bytes from the side's runs.
func (s *side) take(max int64) (int64, int64) {
	if s.left == 0 {
		s.addr, s.left, _ = s.runs.Next()
	}
	n := min(max, s.left)
	a := s.addr
	s.addr += n
	s.left -= n
	return a, n
}

// giveBack returns the last n bytes taken.
func (s *side) giveBack(n int64) { s.addr -= n; s.left += n }

// gather carves up to n bytes from an on-chip side's runs as long as each
// next run starts less than gap bytes past the last one's end: it returns
// the first address, the bytes taken and the span they lie in. An engine
// scatters a burst's bytes into (or gathers them from) on-chip memory at
// any stride; only the off-chip side's bursts need to be contiguous.
func (s *side) gather(n, gap int64) (addr, got, span int64) {
	var end int64
	for got < n {
		if s.left == 0 {
			s.addr, s.left, _ = s.runs.Next()
		}
		if got > 0 && (s.addr < end || s.addr-end >= gap) {
			break
		}
		if got == 0 {
			addr = s.addr
		}
		k := min(n-got, s.left)
		s.addr += k
		s.left -= k
		got += k
		end = s.addr
	}
	return addr, got, end - addr
}

// transfer is one descriptor in flight; it is also the completion handler
// of its bursts.
type transfer struct {
	d           *Engine
	remaining   int64
	outstanding int
	src, dst    side
	first       sim.Time // earliest first burst (after setup)
	done        bool
	doneAt      sim.Time
	ready       func(sim.Time)
	finish      func(sim.Time)
}

// Engine is one DMA engine.
type Engine struct {
	cfg    Config
	eng    *sim.Engine
	hbm    memory.HBM
	psPerB float64 // engine cap, 0: none

	flight      []*transfer // accepted, not yet reported complete, in order
	cur         *transfer   // the one issuing bursts
	outstanding int
	nextIssue   sim.Time
	carry       float64
	issueQueued bool
	issueH      issueHandler
	lastDone    sim.Time
	// firsts holds the first-burst times of the last Prefetch descriptors
	// accepted (a ring): a descriptor's setup slot frees when the one
	// Prefetch before it starts issuing.
	firsts []sim.Time
	nth    int

	copies pool[farCopy]
	writes pool[chipWrite]

	// Bytes moved and Transfers completed.
	Bytes     int64
	Transfers int64
}

type issueHandler struct{ e *Engine }

func (h issueHandler) Handle(now sim.Time) { h.e.issueQueued = false; h.e.issue(now) }

// New makes an engine that uses hbm.
func New(cfg Config, e *sim.Engine, hbm memory.HBM) *Engine {
	d := &Engine{cfg: cfg, eng: e, hbm: hbm}
	if cfg.EngineGBps > 0 {
		d.psPerB = 1000 / cfg.EngineGBps
	}
	d.issueH = issueHandler{d}
	return d
}

// Busy reports whether any transfer is in flight.
func (d *Engine) Busy() bool { return len(d.flight) > 0 }

// Start accepts a copy from src to dst at now; avail (<= now) is when the
// descriptor was available to the engine (see Config.Prefetch). ready is
// called when the engine can accept the next descriptor, finish when this
// one has completed (in order).
func (d *Engine) Start(now, avail sim.Time, dst, src memory.Tile, ready, finish func(sim.Time)) {
	n := dst.Layout.Elems() * int64(dst.Layout.DType.Size())
	first := now + d.cfg.Setup
	if p := d.cfg.Prefetch; p > 0 {
		if d.firsts == nil {
			d.firsts = make([]sim.Time, p)
		}
		slot := &d.firsts[d.nth%p] // the first burst of the descriptor p before
		first = max(now, max(min(avail, now), *slot)+d.cfg.Setup)
		*slot = first
		d.nth++
	}
	t := &transfer{d: d, remaining: n, first: first, ready: ready, finish: finish,
		src: d.side(src, d.cfg.HostIn), dst: d.side(dst, d.cfg.HostOut)}
	d.Bytes += n
	d.flight = append(d.flight, t)
	d.cur = t
	d.schedule(max(now, t.first, d.nextIssue))
}

// side makes one end of a transfer; host is the link direction it uses
// if it is in host memory.
func (d *Engine) side(t memory.Tile, host memory.HBM) side {
	s := side{runs: memory.NewRuns(t)}
	switch t.Layout.Space {
	case isa.HBM:
		s.far = d.hbm
	case isa.HOST:
		s.far = host
	default:
		if d.cfg.Banks != nil {
			s.banks = d.cfg.Banks(t.Layout.Space)
		}
	}
	return s
}

func (d *Engine) schedule(at sim.Time) {
	if !d.issueQueued {
		d.issueQueued = true
		d.eng.Schedule(at, d.issueH)
	}
}

func (d *Engine) issue(now sim.Time) {
	t := d.cur
	if t == nil {
		return
	}
	if now < t.first || now < d.nextIssue {
		d.schedule(max(t.first, d.nextIssue))
		return
	}
	for t.remaining > 0 && d.outstanding < d.cfg.MaxOutstanding && now >= d.nextIssue {
		// A burst never crosses a contiguous run of an off-chip side; its
		// on-chip side may be runs a few bytes apart (an image's rows
		// landing in a padded buffer), whose span its banks serve.
		var sa, da, n, srcSpan, dstSpan int64
		switch near := t.nearGap(); {
		case near > 0:
			// The off-chip side sets the burst; the on-chip side gathers
			// its bytes.
			off, on := &t.src, &t.dst
			offAddr, onAddr, onSpan := &sa, &da, &dstSpan
			if t.src.far == nil {
				off, on, offAddr, onAddr, onSpan = &t.dst, &t.src, &da, &sa, &srcSpan
			}
			*offAddr, n = off.take(min(int64(d.cfg.BurstBytes), t.remaining))
			var got int64
			*onAddr, got, *onSpan = on.gather(n, near)
			if got < n {
				off.giveBack(n - got)
				n = got
			}
			srcSpan, dstSpan = max(srcSpan, n), max(dstSpan, n)
		default:
			// A burst never crosses a contiguous run on either side.
			sa, n = t.src.take(min(int64(d.cfg.BurstBytes), t.remaining))
			var nw int64
			da, nw = t.dst.take(n)
			if nw < n {
				t.src.giveBack(n - nw)
				n = nw
			}
			srcSpan, dstSpan = n, n
		}
		t.remaining -= n
		t.outstanding++
		d.outstanding++
		at := now
		if d.psPerB > 0 {
			// The engine's own data path moves a burst at its rate.
			d.nextIssue = now + d.span(n, d.psPerB)
			at = d.nextIssue
		}
		// Reading an on-chip side happens as the burst leaves.
		if b := t.src.banks; b != nil {
			at = b.ReserveRange(at, sa, srcSpan)
		}
		switch {
		case t.src.far != nil && t.dst.far != nil:
			c := d.copies.get()
			*c = farCopy{t, da, n}
			t.src.far.Request(at, sa, n, false, c)
		case t.src.far != nil:
			t.src.far.Request(at, sa, n, false, t.arrival(da, dstSpan))
		case t.dst.far != nil:
			t.dst.far.Request(at, da, n, true, t)
		default:
			if b := t.dst.banks; b != nil {
				at = b.ReserveRange(at, da, dstSpan)
			}
			d.eng.Schedule(at, t)
		}
	}
	if t.remaining == 0 {
		d.cur = nil
		t.ready(now) // the last burst is out: take the next descriptor
		return
	}
	if d.outstanding < d.cfg.MaxOutstanding {
		d.schedule(d.nextIssue)
	}
	// Otherwise a burst completion resumes issuing.
}

// farCopy is the read half of a burst between two off-chip sides (HBM to
// HBM, HBM to host, host to HBM); its completion issues the write.
type farCopy struct {
	t    *transfer
	addr int64
	n    int64
}

func (c *farCopy) Complete(now sim.Time) {
	t, addr, n := c.t, c.addr, c.n
	t.d.copies.put(c)
	t.dst.far.Request(now, addr, n, true, t)
}

func (c *farCopy) Handle(now sim.Time) { c.Complete(now) }

// arrival returns the handler of a burst read from HBM into the on-chip side:
// the data is written into the banks when it arrives.
// nearGap is, for a transfer between an off-chip side and an on-chip one
// with banks, the gap below which the on-chip side's runs join a burst
// (one bank line); 0 for any other.
func (t *transfer) nearGap() int64 {
	switch {
	case t.src.far != nil && t.dst.far == nil && t.dst.banks != nil:
		return t.dst.banks.LineBytes()
	case t.dst.far != nil && t.src.far == nil && t.src.banks != nil:
		return t.src.banks.LineBytes()
	}
	return 0
}

func (t *transfer) arrival(addr, n int64) memory.Done {
	if t.dst.banks == nil {
		return t
	}
	c := t.d.writes.get()
	*c = chipWrite{t, addr, n}
	return c
}

type chipWrite struct {
	t    *transfer
	addr int64
	n    int64
}

func (c *chipWrite) Complete(now sim.Time) {
	t := c.t
	end := t.dst.banks.ReserveRange(now, c.addr, c.n)
	t.d.writes.put(c)
	if end > now {
		t.d.eng.Schedule(end, t)
		return
	}
	t.Complete(now)
}

func (c *chipWrite) Handle(now sim.Time) { c.Complete(now) }

// pool recycles a burst's completion records: a run moves millions of
// bursts, and one allocation each was a third of the host time.
type pool[T any] struct{ free []*T }

func (p *pool[T]) get() *T {
	if n := len(p.free); n > 0 {
		x := p.free[n-1]
		p.free = p.free[:n-1]
		return x
	}
	return new(T)
}

func (p *pool[T]) put(x *T) { p.free = append(p.free, x) }

// span converts bytes at a rate to time, carrying fractions of a picosecond.
func (d *Engine) span(n int64, psPerByte float64) sim.Time {
	f := float64(n)*psPerByte + d.carry
	w := sim.Time(f)
	d.carry = f - float64(w)
	return w
}

// Handle is the completion of an on-chip burst.
func (t *transfer) Handle(now sim.Time) { t.Complete(now) }

// Complete is the completion of one of the transfer's bursts.
func (t *transfer) Complete(now sim.Time) {
	d := t.d
	t.outstanding--
	d.outstanding--
	if t.remaining == 0 && t.outstanding == 0 {
		t.done, t.doneAt = true, now
		// Report completions in order.
		for len(d.flight) > 0 && d.flight[0].done {
			h := d.flight[0]
			d.flight[0] = nil
			d.flight = d.flight[1:]
			d.lastDone = max(d.lastDone, h.doneAt)
			d.Transfers++
			h.finish(d.lastDone)
		}
	}
	if d.cur != nil && !d.issueQueued {
		d.issue(now)
	}
}
