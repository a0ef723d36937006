package core

import "github.com/pulse-sim/pulse/sim"

// State is what a unit is doing; every moment of a run is attributed to one.
type State uint8

const (
	Idle       State = iota // nothing queued
	Busy                    // executing (for the MXU: streaming rows into the array)
	SemWait                 // the next instruction waits on a semaphore
	Structural              // the next instruction waits for a resource: queue space, the array, a barrier
	Memory                  // a DMA engine has issued its requests and waits for the data
	numStates
)

var stateNames = [...]string{"idle", "busy", "semaphore", "structural", "memory"}

func (s State) String() string { return stateNames[s] }

// States lists the states in report order.
func States() []State { return []State{Busy, SemWait, Structural, Memory, Idle} }

// Accounting attributes time to states. Work can outlast the moment a
// unit moves on (a stream still entering the array while the MXU issues its
// next weight load), so busy time is kept as windows [from, until) that
// override the state for the time they cover.
type Accounting struct {
	state   State
	since   sim.Time
	windows []window // in time order, not yet fully attributed
	T       [numStates]sim.Time
}

type window struct{ from, until sim.Time }

// set attributes the time up to now and enters state s.
func (a *Accounting) set(now sim.Time, s State) {
	for a.since < now {
		end, st := now, a.state
		if len(a.windows) > 0 {
			w := a.windows[0]
			switch {
			case a.since < w.from:
				end = min(now, w.from)
			case a.since < w.until:
				end, st = min(now, w.until), Busy
			default:
				a.windows = a.windows[1:]
				continue
			}
		}
		a.T[st] += end - a.since
		a.since = end
	}
	a.state = s
}

// busy marks [from, until) as busy, merging with the last window when they touch.
func (a *Accounting) busy(from, until sim.Time) {
	if n := len(a.windows); n > 0 && from <= a.windows[n-1].until {
		a.windows[n-1].until = max(a.windows[n-1].until, until)
		return
	}
	a.windows = append(a.windows, window{from, until})
}

// endBusy closes the open-ended last window at t.
func (a *Accounting) endBusy(t sim.Time) {
	if n := len(a.windows); n > 0 {
		a.windows[n-1].until = max(a.windows[n-1].from, t)
	}
}

// Total is the attributed time.
func (a *Accounting) Total() sim.Time {
	var t sim.Time
	for _, x := range a.T {
		t += x
	}
	return t
}
