package sweep

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
)

// parallel calls fn(i) for every i in [0, n) over the host's cores and
// returns when all have: each i once, in no particular order, so fn writes
// only what belongs to i.
func parallel(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(goruntime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
