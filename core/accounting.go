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

// Accounting attributes time to states. Time before busyUntil counts as
// busy whatever the state, so that work that outlasts its issue slot (a
// stream still entering the array) is not misattributed.
type Accounting struct {
	state     State
	since     sim.Time
	busyUntil sim.Time
	T         [numStates]sim.Time
}

func (a *Accounting) set(now sim.Time, s State) {
	if now > a.since {
		if b := min(now, a.busyUntil); b > a.since {
			a.T[Busy] += b - a.since
			a.since = b
		}
		a.T[a.state] += now - a.since
		a.since = now
	}
	a.state = s
}

func (a *Accounting) busyTill(t sim.Time) { a.busyUntil = max(a.busyUntil, t) }

// Total is the attributed time.
func (a *Accounting) Total() sim.Time {
	var t sim.Time
	for _, x := range a.T {
		t += x
	}
	return t
}
