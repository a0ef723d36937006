package core

import (
	"fmt"
	"math"
	"sort"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/sim"
)

// Races is a race detector: an observer that reports two instructions of
// different units that touch the same bytes (one of them writing) while
// both are in flight, which only a missing semaphore allows: a correctly
// synchronized consumer starts after its producer completes. The ISA gives
// such a program no defined result (docs/isa.md, "Synchronization"); the
// timing model's effects happen when an instruction starts, so the result
// would silently depend on latencies.
//
// It sees races that overlap in time in this run. A reader that runs
// entirely before its unordered writer starts is not seen; rerunning with
// other latencies (queue depth, DMA setup) moves instructions and usually
// exposes it (the lab grader does both).
type Races struct {
	// Max caps the races kept (0: 10); Count counts them all.
	Max   int
	Found []Race
	Count int

	m        *Model
	cur      []access // the executing instruction's accesses
	inflight map[inflightKey]*flight
	seen     map[[2]int]bool // pc pairs already reported
}

// Race is two instructions that touched the same bytes unordered.
type Race struct {
	Cycle       int64 // when the second started
	First, Then RaceSide
	Space       isa.Space
	Addr        int64 // the first byte both touch
}

// RaceSide is one instruction of a race.
type RaceSide struct {
	PC    int
	Unit  string
	Pos   string // source position
	Write bool
}

func (r Race) String() string {
	verb := func(w bool) string {
		if w {
			return "writes"
		}
		return "reads"
	}
	return fmt.Sprintf("race at cycle %d: %s on %s (%s) %s %s[0x%x] while %s on %s (%s), still in flight, %s it; no semaphore orders them (a missing wait)",
		r.Cycle, r.Then.Pos, r.Then.Unit, "pc "+fmt.Sprint(r.Then.PC), verb(r.Then.Write), r.Space, r.Addr,
		r.First.Pos, r.First.Unit, "pc "+fmt.Sprint(r.First.PC), verb(r.First.Write))
}

type access struct {
	space  isa.Space
	lo, hi int64
	write  bool
}

type inflightKey struct {
	unit  int
	pc    int
	start sim.Time
}

type flight struct {
	unit int
	pc   int
	acc  []flightRun
	ends []int64 // running maximum of acc's ends
}

// Attach hooks the detector to m's machine and units.
func (r *Races) Attach(m *Model) {
	r.m = m
	r.inflight = map[inflightKey]*flight{}
	r.seen = map[[2]int]bool{}
	if r.Max == 0 {
		r.Max = 10
	}
	m.Arch.Access = func(pc int, s isa.Space, addr, n int64, write bool) {
		if s == isa.SMEM {
			return
		}
		if k := len(r.cur) - 1; k >= 0 && r.cur[k].space == s && r.cur[k].write == write && r.cur[k].hi == addr {
			r.cur[k].hi += n // extend the last run
			return
		}
		r.cur = append(r.cur, access{s, addr, addr + n, write})
	}
	for _, u := range m.Units {
		u.AcceptHook(r)
	}
}

// Wants selects the hooks the detector needs.
func (r *Races) Wants(p sim.HookPos) bool { return p == sim.HookInstStart || p == sim.HookInstEnd }

// Func is called at each instruction's start (after it executed) and end.
func (r *Races) Func(c *sim.HookCtx) {
	switch c.Pos {
	case sim.HookInstStart:
		acc, ends := keyed(r.cur)
		r.cur = r.cur[:0]
		for _, f := range r.sortedFlights() {
			if f.unit == c.Unit {
				continue // one unit's queue is in order
			}
			if a, b, addr, ok := overlap(f.acc, acc, ends); ok {
				r.report(c, f, a, b, addr)
			}
		}
		r.inflight[inflightKey{c.Unit, c.PC, c.Start}] = &flight{c.Unit, c.PC, acc, ends}
	case sim.HookInstEnd:
		delete(r.inflight, inflightKey{c.Unit, c.PC, c.Start})
	}
}

// sortedFlights lists the in-flight instructions in a fixed order, so the
// races reported do not depend on map iteration.
func (r *Races) sortedFlights() []*flight {
	keys := make([]inflightKey, 0, len(r.inflight))
	for k := range r.inflight {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.unit != b.unit {
			return a.unit < b.unit
		}
		return a.pc < b.pc
	})
	out := make([]*flight, len(keys))
	for i, k := range keys {
		out[i] = r.inflight[k]
	}
	return out
}

// overlap finds two accesses, one a write, that share a byte, and the
// first such byte. Both lists are sorted by start (sortAccesses) and keyed
// by space (spaceKey), so a merge finds it in time about linear in their
// lengths: a strided tile is hundreds of runs, and a pairwise test made
// the detector cost several times the simulation itself.
func overlap(x, y []flightRun, ym []int64) (a, b access, addr int64, ok bool) {
	j0 := 0
	for _, p := range x {
		// ym[j] is the furthest end among y[:j+1]; runs wholly before p
		// end before every later p too, since x is sorted by start.
		for j0 < len(y) && ym[j0] <= p.lo {
			j0++
		}
		for j := j0; j < len(y) && y[j].lo < p.hi; j++ {
			q := y[j]
			if (p.write || q.write) && q.hi > p.lo {
				return p.access, q.access, max(p.access.lo, q.access.lo), true
			}
		}
	}
	return access{}, access{}, 0, false
}

// flightRun is an access keyed for overlap: lo and hi carry the space in
// their top bits, so runs of different spaces never meet.
type flightRun struct {
	lo, hi int64
	write  bool
	access
}

// keyed sorts an instruction's accesses by start and returns them with
// the running maximum of their ends.
func keyed(acc []access) ([]flightRun, []int64) {
	runs := make([]flightRun, len(acc))
	for i, a := range acc {
		base := int64(a.space) << 56
		runs[i] = flightRun{base + a.lo, base + a.hi, a.write, a}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].lo < runs[j].lo })
	ends := make([]int64, len(runs))
	m := int64(math.MinInt64)
	for i, r := range runs {
		m = max(m, r.hi)
		ends[i] = m
	}
	return runs, ends
}

func (r *Races) report(c *sim.HookCtx, f *flight, a, b access, addr int64) {
	r.Count++
	key := [2]int{f.pc, c.PC}
	if r.seen[key] || len(r.Found) >= r.Max {
		return
	}
	r.seen[key] = true
	side := func(unit, pc int, write bool) RaceSide {
		return RaceSide{PC: pc, Unit: r.m.Units[unit].Name, Pos: r.m.Prog.DebugAt(pc).Pos(), Write: write}
	}
	r.Found = append(r.Found, Race{
		Cycle: r.m.Clock.Cycles(c.Start),
		First: side(f.unit, f.pc, a.write),
		Then:  side(c.Unit, c.PC, b.write),
		Space: a.space,
		Addr:  addr,
	})
}
