package eval

import (
	"github.com/pulse-sim/pulse/hlo"
	"runtime"
	"runtime/metrics"
)

// The live budget (MaxLiveElements) counts the values the evaluator holds,
// but not what the Go heap holds besides: a while body's copies of its
// state in flight, buffers freed but not yet collected. An evaluation
// within its budget of values reached 3.2 GB of resident memory under a
// 2 GiB budget (XLA's host_offloader_test.cc:4241: a 537 MB
// dynamic-update-slice per iteration). MaxHeapBytes bounds the heap
// itself.

// heapCheckEvery is how many instructions may run between two heap checks
// (an instruction with a large result is checked at once).
const heapCheckEvery = 64

// HeapBytes is what the Go heap's objects take now, collected or not
// (runtime/metrics' /memory/classes/heap/objects:bytes): cheap to read,
// no stop of the world.
func HeapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// checkHeap stops the evaluation when the heap is over MaxHeapBytes even
// after a collection. It runs after large results and every
// heapCheckEvery instructions; the collection only when the heap is over.
func (e *Evaluator) checkHeap(in *hlo.Instruction, large bool) error {
	if e.MaxHeapBytes <= 0 {
		return nil
	}
	e.sinceHeapCheck++
	if !large && e.sinceHeapCheck < heapCheckEvery {
		return nil
	}
	e.sinceHeapCheck = 0
	if HeapBytes() <= e.MaxHeapBytes {
		return nil
	}
	runtime.GC()
	if h := HeapBytes(); h > e.MaxHeapBytes {
		return e.Fail(in, "evaluating this module holds %d MiB of host memory after a collection, more than the %d MiB it may (its values' budget and the evaluator's working room); the host evaluator stops here", h>>20, e.MaxHeapBytes>>20)
	}
	return nil
}

// largeValue reports whether v holds an array of packMin elements or more.
func largeValue(v *Value) bool {
	if v == nil {
		return false
	}
	for _, t := range v.Tuple {
		if largeValue(t) {
			return true
		}
	}
	return len(v.Data) >= packMin || len(v.packed) >= packMin
}
