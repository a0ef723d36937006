// Package dma models DMA engines. An engine takes descriptors in order and
// splits each into bursts that follow the contiguous runs of the HBM-side
// tile; it keeps at most MaxOutstanding bursts in flight (across
// descriptors) and issues them no faster than its own bandwidth cap. It
// accepts the next descriptor as soon as the current one has issued its last
// burst, so descriptors pipeline, and it reports completions in order. HBM is
// shared by all engines, so engines with work interleave their bursts.
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
	EngineGBps     float64  // issue rate cap, 0: none
	OnChipGBps     float64  // rate of a transfer with no HBM side (SRAM port)
}

// transfer is one descriptor in flight; it is also the completion handler
// of its bursts, so a burst costs no allocation (except HBM-to-HBM copies).
type transfer struct {
	d                 *Engine
	remaining         int64
	outstanding       int
	readHBM, writeHBM bool
	rd, wr            runs // HBM-side runs
	rdAddr, rdLeft    int64
	wrAddr, wrLeft    int64
	first             sim.Time // earliest first burst (after setup)
	done              bool
	doneAt            sim.Time
	ready             func(sim.Time)
	finish            func(sim.Time)
}

// Engine is one DMA engine.
type Engine struct {
	cfg    Config
	eng    *sim.Engine
	hbm    memory.HBM
	psPerB float64 // engine cap, 0: none
	chipPB float64

	flight      []*transfer // accepted, not yet reported complete, in order
	cur         *transfer   // the one issuing bursts
	outstanding int
	nextIssue   sim.Time
	carry       float64
	issueQueued bool
	issueH      issueHandler
	lastDone    sim.Time

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
	d.chipPB = 1000 / cfg.OnChipGBps
	d.issueH = issueHandler{d}
	return d
}

// Busy reports whether any transfer is in flight.
func (d *Engine) Busy() bool { return len(d.flight) > 0 }

// Start accepts a copy from src to dst at now. ready is called when the
// engine can accept the next descriptor, finish when this one has completed
// (in order).
func (d *Engine) Start(now sim.Time, dst, src Tile, ready, finish func(sim.Time)) {
	n := dst.Layout.Elems() * int64(dst.Layout.DType.Size())
	t := &transfer{d: d, remaining: n, readHBM: src.Layout.Space == isa.HBM, writeHBM: dst.Layout.Space == isa.HBM,
		first: now + d.cfg.Setup, ready: ready, finish: finish}
	if t.readHBM {
		t.rd = newRuns(src)
	}
	if t.writeHBM {
		t.wr = newRuns(dst)
	}
	d.Bytes += n
	d.flight = append(d.flight, t)
	d.cur = t
	d.schedule(max(now, t.first, d.nextIssue))
}

func (d *Engine) schedule(at sim.Time) {
	if !d.issueQueued {
		d.issueQueued = true
		d.eng.Schedule(at, d.issueH)
	}
}

// take carves the next burst of at most max bytes from a side's runs.
func take(r *runs, addr, left *int64, max int64) (int64, int64) {
	if *left == 0 {
		a, n, _ := r.next()
		*addr, *left = a, n
	}
	n := min(max, *left)
	a := *addr
	*addr += n
	*left -= n
	return a, n
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
		n := min(int64(d.cfg.BurstBytes), t.remaining)
		var ra, wa int64
		if t.readHBM {
			ra, n = take(&t.rd, &t.rdAddr, &t.rdLeft, n)
		}
		if t.writeHBM {
			var nw int64
			wa, nw = take(&t.wr, &t.wrAddr, &t.wrLeft, n)
			if t.readHBM && nw < n {
				// The write run is shorter: give the rest back to the read side.
				t.rdAddr -= n - nw
				t.rdLeft += n - nw
			}
			n = nw
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
		switch {
		case t.readHBM && t.writeHBM:
			d.hbm.Request(at, ra, n, false, &copyBurst{t, wa, n})
		case t.readHBM:
			d.hbm.Request(at, ra, n, false, t)
		case t.writeHBM:
			d.hbm.Request(at, wa, n, true, t)
		default:
			d.eng.Schedule(at+d.span(n, d.chipPB), t)
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

// copyBurst is the read half of an HBM-to-HBM burst; its completion issues the write.
type copyBurst struct {
	t    *transfer
	addr int64
	n    int64
}

func (c *copyBurst) Complete(now sim.Time) { c.t.d.hbm.Request(now, c.addr, c.n, true, c.t) }

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
