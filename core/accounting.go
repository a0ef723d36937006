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
	// BankConflict: the vector or cross-lane unit's instruction is done
	// computing but waits for SRAM or accumulator banks that other
	// requests (or its own strided lines) keep busy: the time beyond what
	// a perfect spread of its lines over the banks would take.
	BankConflict
	numStates
)

var stateNames = [...]string{"idle", "busy", "semaphore", "structural", "memory", "bank_conflict"}

func (s State) String() string { return stateNames[s] }

// States lists the states in report order.
func States() []State { return []State{Busy, SemWait, Structural, Memory, BankConflict, Idle} }

// Accounting attributes time to states, and each stretch of time to the
// instruction it belongs to: the one executing, or the one whose wait a
// stall is (-1 when the unit is idle). Work can outlast the moment a unit
// moves on (a stream still entering the array while the MXU issues its next
// weight load), so busy time is kept as windows [from, until) that override
// the state for the time they cover (a window may also be a bank-conflict
// stall that follows the instruction's busy time).
type Accounting struct {
	state   State
	pc      int
	since   sim.Time
	windows []window // in time order; those from head on are not yet fully attributed
	head    int
	T       [numStates]sim.Time

	// obs, when set, is told every attributed stretch (sim.HookState).
	obs  *sim.Hookable
	unit int
}

type window struct {
	from, until sim.Time
	pc          int
	st          State // Busy or BankConflict
}

// observe reports the accounting's stretches to h's observers as unit.
func (a *Accounting) observe(h *sim.Hookable, unit int) { a.obs, a.unit = h, unit }

// set attributes the time up to now and enters state s on behalf of pc.
func (a *Accounting) set(now sim.Time, s State, pc int) {
	for a.since < now {
		end, st, at := now, a.state, a.pc
		if a.head < len(a.windows) {
			w := a.windows[a.head]
			switch {
			case a.since < w.from:
				end = min(now, w.from)
			case a.since < w.until:
				end, st, at = min(now, w.until), w.st, w.pc
			default:
				if a.head++; a.head == len(a.windows) {
					a.windows, a.head = a.windows[:0], 0 // reuse the array
				}
				continue
			}
		}
		a.T[st] += end - a.since
		if a.obs != nil && a.obs.Wants(sim.HookState) {
			c := a.obs.HookCtx()
			*c = sim.HookCtx{Pos: sim.HookState, Now: end, Start: a.since, Unit: a.unit, PC: at, Reason: stateNames[st]}
			a.obs.InvokeHook(c)
		}
		a.since = end
	}
	a.state, a.pc = s, pc
}

// busy marks [from, until) as busy for instruction pc, merging with the
// last window when they touch and belong to the same instruction, or when
// no observer looks at instructions (a window that overlaps the last one is
// otherwise given the time after it).
func (a *Accounting) busy(from, until sim.Time, pc int) { a.mark(from, until, pc, Busy) }

// bankConflict marks [from, until) as a bank-conflict stall of pc.
func (a *Accounting) bankConflict(from, until sim.Time, pc int) {
	a.mark(from, until, pc, BankConflict)
}

func (a *Accounting) mark(from, until sim.Time, pc int, st State) {
	if n := len(a.windows); n > a.head && from <= a.windows[n-1].until {
		last := &a.windows[n-1]
		if last.st == st && (last.pc == pc || until <= last.until || a.obs == nil || !a.obs.Wants(sim.HookState)) {
			last.until = max(last.until, until)
			return
		}
		from = last.until
	}
	if from < until {
		a.windows = append(a.windows, window{from, until, pc, st})
	}
}

// endBusy closes the open-ended last window at t.
func (a *Accounting) endBusy(t sim.Time) {
	if n := len(a.windows); n > a.head {
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
