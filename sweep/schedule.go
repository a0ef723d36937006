package sweep

import (
	"context"
	"sync"
)

// A schedule hands a run's points to its workers. Points come in groups,
// runs of consecutive points of one workload and one compile target that
// share an executable. The executables of the next groups compile in the
// background, ahead of the workers, and a worker takes the next point of
// the first group whose executable is ready: in order, except that no
// worker waits for a compile while a later group could run. Without it
// every worker stopped at each new target until one of them had compiled
// it. The order points run in changes nothing in the results: each point
// is simulated alone, and results.csv is written in point order.
type schedule struct {
	mu      sync.Mutex
	cond    *sync.Cond
	points  []*Point
	groups  []*group
	first   int // the first group with points left
	started int // groups [0, started) are compiling or compiled
	ahead   int // groups beyond the first that may compile ahead
	compile func(*Point)
	closed  bool // cancelled: no more points
	stop    func() bool
}

type group struct {
	next, end int  // the points left: points[next:end]
	ready     bool // its executable is compiled (or it needs none)
}

// newSchedule schedules points, compiling with compile (which blocks until
// the point's executable is in the cache; nil for points that need none),
// up to ahead groups beyond the first unfinished one. Cancelling ctx ends
// the schedule: take then reports no more points.
func newSchedule(ctx context.Context, points []*Point, ahead int, compile func(*Point)) *schedule {
	s := &schedule{points: points, ahead: ahead, compile: compile}
	s.cond = sync.NewCond(&s.mu)
	for i, p := range points {
		if i == 0 || points[i-1].Workload != p.Workload || points[i-1].Target != p.Target {
			s.groups = append(s.groups, &group{next: i})
		}
		s.groups[len(s.groups)-1].end = i + 1
	}
	s.stop = context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.cond.Broadcast()
	})
	return s
}

// take returns the next point to run, false when there is none left (or
// the schedule was cancelled).
func (s *schedule) take() (*Point, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for s.first < len(s.groups) && s.groups[s.first].next == s.groups[s.first].end {
			s.first++
		}
		if s.closed || s.first == len(s.groups) {
			return nil, false
		}
		for s.started < len(s.groups) && s.started <= s.first+s.ahead {
			s.begin(s.groups[s.started])
			s.started++
		}
		for _, g := range s.groups[s.first:s.started] {
			if g.ready && g.next < g.end {
				g.next++
				return s.points[g.next-1], true
			}
		}
		s.cond.Wait()
	}
}

// begin starts compiling g's executable. The caller holds s.mu.
func (s *schedule) begin(g *group) {
	p := s.points[g.next]
	if s.compile == nil || !compiles(p) {
		g.ready = true
		return
	}
	go func() {
		s.compile(p) // an error is the point's, when it runs
		s.mu.Lock()
		g.ready = true
		s.mu.Unlock()
		s.cond.Broadcast()
	}()
}

// close releases the schedule's hold on its context.
func (s *schedule) close() { s.stop() }

// compiles reports whether p's workload is compiled (HLO) rather than a
// program already.
func compiles(p *Point) bool {
	return p.Workload.Kind == "hlo" || p.Workload.Kind == "layer"
}
