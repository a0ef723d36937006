package sweep

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// A sweep's points each build a small simulated chip, allocate a few
// megabytes and drop them: the live heap stays at a few megabytes while
// the workers allocate a gigabyte a second, so Go's default pacing (a
// collection each time the heap doubles) ran a collection every few
// milliseconds, with write barriers on most of the time. On 16 cores that
// cost a fifth of the workers' time. heapFloor raises the collector's goal
// to the live heap plus floor bytes, retuning GOGC after each collection
// (the tuner of the Go GC guide's "memory limit" discussion, done with a
// finalizer that runs once a cycle): collections come every floor bytes of
// allocation whatever the live heap, and memory stays within live + floor.
// Nothing changes when the user set GOGC. stop restores the collector's
// setting.
func heapFloor(floor int64) (stop func()) {
	if floor <= 0 || os.Getenv("GOGC") != "" {
		return func() {}
	}
	t := &gcTuner{floor: floor, old: debug.SetGCPercent(100)}
	t.tune()
	t.arm()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.stopped.Store(true)
		debug.SetGCPercent(t.old)
	}
}

type gcTuner struct {
	floor   int64
	old     int // the GOGC before
	mu      sync.Mutex
	stopped atomic.Bool
}

// sentinel is garbage the moment it is made; its finalizer runs after the
// next collection.
type sentinel struct{ t *gcTuner }

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&sentinel{t}, func(s *sentinel) {
		if !s.t.stopped.Load() {
			s.t.tune()
			s.t.arm()
		}
	})
}

// maxGCPercent bounds the tuned GOGC: at a live heap of a few hundred
// kilobytes the floor would ask for millions.
const maxGCPercent = 100_000

func (t *gcTuner) tune() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	pct := 100
	if s[0].Value.Kind() == metrics.KindUint64 {
		if live := int64(s[0].Value.Uint64()); live > 0 && t.floor > live {
			pct = int(min(100*t.floor/live, maxGCPercent))
		}
	}
	t.mu.Lock() // not after stop has restored the setting
	defer t.mu.Unlock()
	if !t.stopped.Load() {
		debug.SetGCPercent(pct)
	}
}
