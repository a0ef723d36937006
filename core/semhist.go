package core

import "github.com/pulse-sim/pulse/sim"

// semHistLen is how many of a semaphore's changes semHistory remembers.
const semHistLen = 16

// semHistory remembers a semaphore's recent values (each with the time it
// took it), so that a consumer can tell since when its wait has been met:
// a DMA engine sets a descriptor up from then (dma.Config.Prefetch), not
// from when the unit got round to it.
type semHistory struct {
	t [semHistLen]sim.Time
	v [semHistLen]uint32
	n int // changes recorded
}

func (h *semHistory) record(t sim.Time, v uint32) {
	i := h.n % semHistLen
	h.t[i], h.v[i] = t, v
	h.n++
}

// metSince is the earliest time from which the value has been at least c
// without a break, as far as the history reaches (its oldest change when
// every change remembered is); now when the last change took it below c.
func (h *semHistory) metSince(c uint32, now sim.Time) sim.Time {
	since := now
	for k := 0; k < min(h.n, semHistLen); k++ {
		i := (h.n - 1 - k) % semHistLen
		if h.v[i] < c {
			break
		}
		since = h.t[i]
	}
	return since
}
