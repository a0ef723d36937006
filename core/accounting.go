package core

import "github.com/pulse-sim/pulse/sim"

// State is what a unit is doing; every moment of a run is attributed to one.
type State uint8

const (
	Idle       State = iota // nothing queued
	Busy                    // executing (for the MXU: streaming rows into the array)
	SemWait                 // the next instruction waits on a semaphore
	Structural              // the next instruction waits for a resource: queue space, the array, a barrier
	numStates
)

var stateNames = [...]string{"idle", "busy", "semaphore", "structural"}

func (s State) String() string { return stateNames[s] }

// States lists the states in report order.
func States() []State { return []State{Busy, SemWait, Structural, Idle} }

// Accounting attributes time to states. Work can outlast the moment a
// unit moves on (a stream still entering the array while the MXU issues its
// next weight load), so busy time is a window [busyFrom, busyUntil) that
// overrides the state for the time it covers.
type Accounting struct {
	state     State
	since     sim.Time
	busyFrom  sim.Time
	busyUntil sim.Time
	T         [numStates]sim.Time
}

// set closes the interval up to now and enters state s.
func (a *Accounting) set(now sim.Time, s State) {
	for a.since < now {
		end, st := now, a.state
		switch {
		case a.since < a.busyFrom:
			end = min(now, a.busyFrom)
		case a.since < a.busyUntil:
			end, st = min(now, a.busyUntil), Busy
		}
		a.T[st] += end - a.since
		a.since = end
	}
	a.state = s
}

// busy marks [from, until) as busy, extending a window still open.
func (a *Accounting) busy(from, until sim.Time) {
	if from >= a.busyUntil {
		a.busyFrom = from
	}
	a.busyUntil = max(a.busyUntil, until)
}

// endBusy closes an open-ended busy window at t.
func (a *Accounting) endBusy(t sim.Time) { a.busyUntil = t }

// Total is the attributed time.
func (a *Accounting) Total() sim.Time {
	var t sim.Time
	for _, x := range a.T {
		t += x
	}
	return t
}
