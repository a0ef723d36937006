package sweep

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// groupsOf makes points in groups of the given sizes, each group its own
// compile target of one HLO workload.
func groupsOf(sizes ...int) []*Point {
	w := &Workload{Name: "w.hlo", Kind: "hlo"}
	var ps []*Point
	for g, n := range sizes {
		for range n {
			ps = append(ps, &Point{Index: len(ps), Workload: w, Target: string(rune('a' + g))})
		}
	}
	return ps
}

// drain takes every point with n workers and returns them in the order
// they were taken.
func drain(s *schedule, n int) []*Point {
	var mu sync.Mutex
	var got []*Point
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				p, ok := s.take()
				if !ok {
					return
				}
				mu.Lock()
				got = append(got, p)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return got
}

// Every point is taken once, whatever the workers and the compile times.
func TestScheduleTakesEveryPointOnce(t *testing.T) {
	for _, jobs := range []int{1, 2, 7} {
		for _, ahead := range []int{0, 1, 3} {
			ps := groupsOf(5, 1, 3, 8, 2)
			s := newSchedule(context.Background(), ps, ahead, func(p *Point) {
				time.Sleep(time.Duration(len(p.Target)) * time.Millisecond)
			})
			got := drain(s, jobs)
			s.close()
			seen := map[int]bool{}
			for _, p := range got {
				require.False(t, seen[p.Index], "point %d taken twice", p.Index)
				seen[p.Index] = true
			}
			require.Len(t, seen, len(ps), "jobs %d ahead %d", jobs, ahead)
		}
	}
}

// While the first group's executable compiles, workers take the points of
// a later group whose executable is ready; none is taken before its
// group's compile has finished.
func TestScheduleRunsAReadyGroupFirst(t *testing.T) {
	ps := groupsOf(3, 3)
	release := make(chan struct{})
	var mu sync.Mutex
	compiled := map[string]bool{}
	s := newSchedule(context.Background(), ps, 1, func(p *Point) {
		if p.Target == "a" {
			<-release
		}
		mu.Lock()
		compiled[p.Target] = true
		mu.Unlock()
	})
	defer s.close()
	for range 3 {
		p, ok := s.take()
		require.True(t, ok)
		require.Equal(t, "b", p.Target, "the first group is still compiling")
	}
	close(release)
	for range 3 {
		p, ok := s.take()
		require.True(t, ok)
		require.Equal(t, "a", p.Target)
		mu.Lock()
		require.True(t, compiled["a"])
		mu.Unlock()
	}
	_, ok := s.take()
	require.False(t, ok)
}

// Cancelling the context ends the schedule, waking a worker that waits
// for a compile.
func TestScheduleCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	block := make(chan struct{})
	defer close(block)
	s := newSchedule(ctx, groupsOf(2), 0, func(*Point) { <-block })
	defer s.close()
	done := make(chan bool)
	go func() {
		_, ok := s.take()
		done <- ok
	}()
	time.Sleep(10 * time.Millisecond)
	cancel()
	require.False(t, <-done)
}

// heapFloor raises GOGC so that the collector's goal is the live heap plus
// the floor, and its stop restores the setting; a GOGC the user set is
// left alone.
func TestHeapFloor(t *testing.T) {
	t.Setenv("GOGC", "")
	stop := heapFloor(1 << 30)
	runtime.GC()
	raised := 0
	for range 100 { // the tuner runs from a finalizer, after the collection
		if raised = debug.SetGCPercent(-1); raised > 100 {
			break
		}
		debug.SetGCPercent(raised)
		time.Sleep(10 * time.Millisecond)
	}
	debug.SetGCPercent(raised)
	require.Greater(t, raised, 100, "a 1 GiB floor over a small live heap")
	stop()
	require.Equal(t, 100, debug.SetGCPercent(100), "restored")

	t.Setenv("GOGC", "100")
	stop = heapFloor(1 << 30)
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	require.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: untouched")
	stop()
}
