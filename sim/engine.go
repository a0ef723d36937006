// Package sim is Pulse's discrete-event engine. It knows nothing about
// accelerators: time, clocks, events, ports and hooks. Components elsewhere
// schedule work on an Engine; a component that is busy schedules its next
// event, one that waits schedules nothing and is woken by whoever unblocks it.
package sim

import "fmt"

// Time is simulated time in picoseconds.
type Time int64

// Clock converts between time and the cycles of one clock domain.
type Clock struct {
	Name   string
	Period Time // picoseconds per cycle, at least 1
}

// NewClockMHz makes a clock of the given frequency; the period is rounded to
// the nearest picosecond (1050 MHz -> 952 ps).
func NewClockMHz(name string, mhz float64) Clock {
	p := Time(1e6/mhz + 0.5)
	if p < 1 {
		p = 1
	}
	return Clock{Name: name, Period: p}
}

// Cycles is the number of whole cycles elapsed at t.
func (c Clock) Cycles(t Time) int64 { return int64(t / c.Period) }

// CyclesCeil is the number of cycles needed to cover t.
func (c Clock) CyclesCeil(t Time) int64 { return int64((t + c.Period - 1) / c.Period) }

// Time is the time of the start of cycle n.
func (c Clock) Time(n int64) Time { return Time(n) * c.Period }

// NextEdge rounds t up to a cycle boundary.
func (c Clock) NextEdge(t Time) Time { return (t + c.Period - 1) / c.Period * c.Period }

// MHz is the clock frequency.
func (c Clock) MHz() float64 { return 1e6 / float64(c.Period) }

// Handler receives an event.
type Handler interface {
	Handle(now Time)
}

// HandlerFunc adapts a function to Handler. Converting a func to HandlerFunc
// allocates when the func is a closure; hot paths use a component pointer.
type HandlerFunc func(now Time)

// Handle implements Handler.
func (f HandlerFunc) Handle(now Time) { f(now) }

type event struct {
	t   Time
	seq uint64
	h   Handler
}

// Engine runs events in (time, sequence) order: two events at the same time
// run in the order they were scheduled, so runs are deterministic.
type Engine struct {
	now  Time
	seq  uint64
	heap []event
	// Events counts handled events.
	Events int64
}

// Now is the current time.
func (e *Engine) Now() Time { return e.now }

// Pending is the number of scheduled events.
func (e *Engine) Pending() int { return len(e.heap) }

// Next is the time of the earliest pending event (false when none).
func (e *Engine) Next() (Time, bool) {
	if len(e.heap) == 0 {
		return 0, false
	}
	return e.heap[0].t, true
}

// Schedule arranges for h to be called at time t (not before now).
func (e *Engine) Schedule(t Time, h Handler) {
	if t < e.now {
		panic(fmt.Sprintf("sim: event scheduled in the past (%d < %d)", t, e.now))
	}
	e.seq++
	e.heap = append(e.heap, event{t, e.seq, h})
	e.up(len(e.heap) - 1)
}

func (a event) before(b event) bool { return a.t < b.t || a.t == b.t && a.seq < b.seq }

// up and down move the element at i to its place, carrying it through a
// hole rather than swapping at every level (half the writes: the heap's
// upkeep is a tenth of a large run's host time).
func (e *Engine) up(i int) {
	h := e.heap
	x := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !x.before(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

func (e *Engine) down(i int) {
	h := e.heap
	n := len(h)
	x := h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			m = r
		}
		if !h[m].before(x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}

// Step runs the earliest event; it returns false when none is left.
func (e *Engine) Step() bool {
	if len(e.heap) == 0 {
		return false
	}
	ev := e.heap[0]
	last := len(e.heap) - 1
	e.heap[0] = e.heap[last]
	e.heap[last] = event{}
	e.heap = e.heap[:last]
	if last > 0 {
		e.down(0)
	}
	e.now = ev.t
	e.Events++
	ev.h.Handle(ev.t)
	return true
}

// Run runs events until none is left or the next one is after limit
// (limit < 0: no limit). It reports whether events remain.
func (e *Engine) Run(limit Time) bool {
	for len(e.heap) > 0 {
		if limit >= 0 && e.heap[0].t > limit {
			return true
		}
		e.Step()
	}
	return false
}
