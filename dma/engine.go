// Package dma models DMA engines: each runs one descriptor at a time,
// splits it into bursts, keeps at most MaxOutstanding bursts in flight and
// issues them no faster than its own bandwidth cap. HBM is shared by all
// engines first come first served, so engines with work interleave their
// bursts and share its bandwidth.
package dma

import (
	"github.com/pulse-sim/pulse/memory"
	"github.com/pulse-sim/pulse/sim"
)

// Config is the timing of one engine.
type Config struct {
	BurstBytes     int
	MaxOutstanding int
	Setup          sim.Time // from start to the first burst
	EngineGBps     float64  // issue rate cap, 0: none
	OnChipGBps     float64  // rate of a transfer with no HBM side (SRAM port)
}

// Engine is one DMA engine.
type Engine struct {
	cfg    Config
	eng    *sim.Engine
	hbm    memory.HBM
	psPerB float64 // engine cap, 0: none
	chipPB float64

	active            bool
	remaining         int64
	outstanding       int
	nextIssue         sim.Time
	carry             float64
	readHBM, writeHBM bool
	issueQueued       bool
	finish            func(sim.Time)
	issueH            issueHandler

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

// Busy reports whether a transfer is in progress.
func (d *Engine) Busy() bool { return d.active }

// Start begins a transfer of n bytes at now; fromHBM/toHBM say which sides
// are off-chip. finish is called when the last burst completes.
func (d *Engine) Start(now sim.Time, n int64, fromHBM, toHBM bool, finish func(sim.Time)) {
	d.active = true
	d.remaining = n
	d.Bytes += n
	d.readHBM, d.writeHBM = fromHBM, toHBM
	d.finish = finish
	d.nextIssue = now + d.cfg.Setup
	d.issueQueued = true
	d.eng.Schedule(d.nextIssue, d.issueH)
}

func (d *Engine) issue(now sim.Time) {
	for d.remaining > 0 && d.outstanding < d.cfg.MaxOutstanding && now >= d.nextIssue {
		n := min(int64(d.cfg.BurstBytes), d.remaining)
		d.remaining -= n
		d.outstanding++
		t := now
		switch {
		case d.readHBM && d.writeHBM:
			t = d.hbm.Access(d.hbm.Access(t, n, false), n, true)
		case d.readHBM:
			t = d.hbm.Access(t, n, false)
		case d.writeHBM:
			t = d.hbm.Access(t, n, true)
		default:
			t += d.span(n, d.chipPB)
		}
		if d.psPerB > 0 {
			// The engine's own data path moves a burst at its rate.
			d.nextIssue = now + d.span(n, d.psPerB)
			t = max(t, d.nextIssue)
		}
		d.eng.Schedule(t, d)
	}
	if d.remaining > 0 && d.outstanding < d.cfg.MaxOutstanding && !d.issueQueued {
		d.issueQueued = true
		d.eng.Schedule(d.nextIssue, d.issueH)
	}
}

// span converts bytes at a rate to time, carrying fractions of a picosecond.
func (d *Engine) span(n int64, psPerByte float64) sim.Time {
	f := float64(n)*psPerByte + d.carry
	w := sim.Time(f)
	d.carry = f - float64(w)
	return w
}

// Handle is a burst completion.
func (d *Engine) Handle(now sim.Time) {
	d.outstanding--
	if d.remaining == 0 && d.outstanding == 0 {
		d.active = false
		d.Transfers++
		f := d.finish
		d.finish = nil
		f(now)
		return
	}
	if d.remaining > 0 && !d.issueQueued {
		if now >= d.nextIssue {
			d.issue(now)
		} else {
			d.issueQueued = true
			d.eng.Schedule(d.nextIssue, d.issueH)
		}
	}
}
