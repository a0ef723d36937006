// Package memory holds the timing models of Pulse's memories.
package memory

import "github.com/pulse-sim/pulse/sim"

// HBM is the timing interface of off-chip memory: a request of n bytes made
// at time t is served and completes at the returned time.
type HBM interface {
	Access(t sim.Time, n int64, write bool) sim.Time
	Stats() HBMStats
	// PeakBytesPerSecond is the model's peak bandwidth.
	PeakBytesPerSecond() float64
}

// HBMStats counts traffic.
type HBMStats struct {
	BytesRead    int64
	BytesWritten int64
	Requests     int64
	BusyTime     sim.Time // time the data bus was transferring
}

// Ideal is the "ideal" HBM model: a single data bus of fixed bandwidth, served
// first come first served, plus a fixed latency. A request of n bytes arriving
// at t starts at max(t, bus free), holds the bus n / bandwidth, and completes
// latency after its last byte.
type Ideal struct {
	psPerByte float64
	latency   sim.Time
	busFree   sim.Time
	carry     float64 // fractional picoseconds, so that many small requests add up exactly
	bw        float64
	stats     HBMStats
}

// NewIdeal makes an ideal HBM of bandwidthGBps (1e9 bytes/s) and latencyNS.
func NewIdeal(bandwidthGBps, latencyNS float64) *Ideal {
	return &Ideal{psPerByte: 1000 / bandwidthGBps, latency: sim.Time(latencyNS*1000 + 0.5), bw: bandwidthGBps * 1e9}
}

// Access implements HBM.
func (h *Ideal) Access(t sim.Time, n int64, write bool) sim.Time {
	start := max(t, h.busFree)
	d := float64(n)*h.psPerByte + h.carry
	whole := sim.Time(d)
	h.carry = d - float64(whole)
	h.busFree = start + whole
	h.stats.BusyTime += whole
	h.stats.Requests++
	if write {
		h.stats.BytesWritten += n
	} else {
		h.stats.BytesRead += n
	}
	return h.busFree + h.latency
}

// Stats implements HBM.
func (h *Ideal) Stats() HBMStats { return h.stats }

// PeakBytesPerSecond implements HBM.
func (h *Ideal) PeakBytesPerSecond() float64 { return h.bw }
