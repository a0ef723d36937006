// Package memory holds the timing models of Pulse's memories.
package memory

import "github.com/pulse-sim/pulse/sim"

// Done receives the completion of a request. DMA transfers implement it, so
// that a request costs no allocation.
type Done interface {
	Complete(t sim.Time)
}

// A Done that is also a sim.Handler must make Handle(t) do Complete(t):
// the models schedule it directly.

// HBM is the timing interface of off-chip memory, with two models behind it:
// Ideal (latency + bandwidth) and Banked (channels, banks, row buffers,
// JEDEC timings, refresh, FR-FCFS).
type HBM interface {
	// Request submits a read or write of n bytes at addr at time t (now or
	// later); done.Complete is called when the last byte has been transferred.
	Request(t sim.Time, addr, n int64, write bool, done Done)
	Stats() HBMStats
	PeakBytesPerSecond() float64
	// Channels is the number of independent channels (1 for Ideal).
	Channels() int
	// AcceptHook attaches an observer of data transfers (sim.HookTransfer,
	// Unit = channel).
	AcceptHook(sim.Hook)
}

// HBMStats counts traffic.
type HBMStats struct {
	BytesRead    int64
	BytesWritten int64
	Requests     int64
	// Accesses and RowHits count column commands and those that found their
	// row open (banked model only).
	Accesses int64
	RowHits  int64
	// Refreshes counts refresh commands (banked model only).
	Refreshes int64
}

// RowHitRate is RowHits / Accesses.
func (s HBMStats) RowHitRate() float64 {
	if s.Accesses == 0 {
		return 0
	}
	return float64(s.RowHits) / float64(s.Accesses)
}

// Ideal is the "ideal" HBM model: a single data bus of fixed bandwidth, served
// first come first served, plus a fixed latency. A request of n bytes arriving
// at t starts at max(t, bus free), holds the bus n / bandwidth, and completes
// latency after its last byte.
type Ideal struct {
	sim.Hookable
	eng       *sim.Engine
	psPerByte float64
	latency   sim.Time
	busFree   sim.Time
	carry     float64 // fractional picoseconds, so that many small requests add up exactly
	bw        float64
	stats     HBMStats
	// The streaming model's DRAM costs (streaming.go); 0 for the ideal
	// bus: refresh scales every transfer by refresh, a write within
	// mixWindow of a read's start pays writeTurn of its transfer more.
	refresh   float64
	writeTurn float64
	mixWindow sim.Time
	lastRead  sim.Time
	readSeen  bool
	// Completions come in time order (the bus serves requests in order
	// and the latency is fixed), so they wait in a FIFO and only the
	// earliest is on the engine's event heap: a DMA keeps hundreds of
	// bursts in flight, and sifting them all through the heap was the
	// simulator's largest cost.
	queue []completion
	head  int
	armed bool
}

type completion struct {
	at sim.Time
	h  sim.Handler
}

// NewIdeal makes an ideal HBM of bandwidthGBps (1e9 bytes/s) and latencyNS.
func NewIdeal(e *sim.Engine, bandwidthGBps, latencyNS float64) *Ideal {
	return &Ideal{eng: e, psPerByte: 1000 / bandwidthGBps, latency: sim.Time(latencyNS*1000 + 0.5), bw: bandwidthGBps * 1e9}
}

// doneAt adapts a Done that is not also a sim.Handler (whose Handle is
// its Complete).
type doneAt struct{ d Done }

func (h doneAt) Handle(now sim.Time) { h.d.Complete(now) }

// Request implements HBM.
func (h *Ideal) Request(t sim.Time, addr, n int64, write bool, done Done) {
	at := h.finish(t, n, write)
	hd, ok := done.(sim.Handler) // no wrapper to allocate per burst
	if !ok {
		hd = doneAt{done}
	}
	h.queue = append(h.queue, completion{at, hd})
	if !h.armed {
		h.armed = true
		h.eng.Schedule(at, idealFire{h})
	}
}

type idealFire struct{ h *Ideal }

// Handle completes the earliest request and arms the next.
func (f idealFire) Handle(now sim.Time) {
	h := f.h
	c := h.queue[h.head]
	h.queue[h.head] = completion{}
	h.head++
	if h.head == len(h.queue) {
		h.queue, h.head = h.queue[:0], 0
	} else if h.head >= 1024 && h.head*2 >= len(h.queue) {
		n := copy(h.queue, h.queue[h.head:])
		h.queue, h.head = h.queue[:n], 0
	}
	c.h.Handle(now)
	if h.head < len(h.queue) {
		h.eng.Schedule(h.queue[h.head].at, f)
	} else {
		h.armed = false
	}
}

// finish reserves the bus and returns the completion time.
func (h *Ideal) finish(t sim.Time, n int64, write bool) sim.Time {
	start := max(t, h.busFree)
	d := float64(n) * h.psPerByte
	if h.refresh > 0 || h.writeTurn > 0 {
		d = h.dramCost(start, d, write)
	}
	d += h.carry
	whole := sim.Time(d)
	h.carry = d - float64(whole)
	h.busFree = start + whole
	if h.Wants(sim.HookTransfer) {
		c := h.HookCtx()
		*c = sim.HookCtx{Pos: sim.HookTransfer, Start: start, Now: h.busFree, PC: -1, Bytes: n, Write: write}
		h.InvokeHook(c)
	}
	h.stats.Requests++
	if write {
		h.stats.BytesWritten += n
	} else {
		h.stats.BytesRead += n
	}
	return h.busFree + h.latency
}

// dramCost is the streaming model's bus time for a transfer of d
// picoseconds on the ideal bus starting at start.
func (h *Ideal) dramCost(start sim.Time, d float64, write bool) float64 {
	c := d
	if write && h.readSeen && start-h.lastRead <= h.mixWindow {
		c += d * h.writeTurn
	}
	if !write {
		h.lastRead, h.readSeen = start, true
	}
	if h.refresh > 0 {
		c *= h.refresh
	}
	return c
}

// Stats implements HBM.
func (h *Ideal) Stats() HBMStats { return h.stats }

// PeakBytesPerSecond implements HBM.
func (h *Ideal) PeakBytesPerSecond() float64 { return h.bw }

// Channels implements HBM: the ideal model is one bus.
func (h *Ideal) Channels() int { return 1 }
