// Package systolic is the timing model of a systolic matrix unit (MXU): an
// exact wavefront model, in cycles of the array's clock. array_test.go checks
// it against a processing-element-by-processing-element simulation.
//
// Weight-stationary (the default). mxu.ldw shifts K weight rows down a chain
// of shadow registers, one row every LdwCyclesPerRow cycles. A stream (mxu.mm)
// of M rows enters the array one row every `rate` cycles (rate by dtype): row
// m reaches PE (k, n) at start + m*rate + k + n, and the result of output
// (m, n) leaves the bottom row at start + m*rate + n + R - 1, landing in
// accumulator memory the cycle after. So a stream finishes at
//
//	done = start + (M-1)*rate + R + N - 1
//
// (with a full-array weight load in front, rate 1 and N = C this is the
// single-fold time 2R + C + M - 2 of SCALE-Sim's WS law). Scheduling rules:
//   - operations start in program order;
//   - a stream starts once the previous stream's rows have all entered
//     (back-to-back streams are pipelined, at least MinStreamCycles apart);
//   - a stream that uses a newly loaded tile starts once the load has ended;
//     each PE swaps the tile from its shadow registers as the stream's first
//     row passes it;
//   - a load of k rows overwrites the shadow registers of rows 0..k-1 at its
//     first shift, so it starts after the previous load has ended and after
//     every swap in progress has passed those rows: a stream that swaps in a
//     tile of K rows protects row r < K until start + r + C (its first row has
//     then passed the row's last PE). A loaded tile that no stream used is
//     simply overwritten.
//
// Output- and input-stationary (what-if): the stream is computed as folds of
// the array, each costing SCALE-Sim's 2*Sr + Sc + T - 2 cycles (OS: T = K,
// folds = ceil(M/R)*ceil(N/C); IS: T = N, folds = ceil(K/R)*ceil(M/C)), not
// pipelined; weights are not preloaded (ldw costs nothing).
package systolic

// Config is the geometry and timing of one array.
type Config struct {
	Rows, Cols      int
	Dataflow        string // ws, os, is
	LdwCyclesPerRow int
	MinStreamCycles int // a stream occupies the array at least this long (Trainium's MM initiation interval)
}

// Array is the timing state of one MXU. Times are cycles.
type Array struct {
	cfg        Config
	streamFree int64   // earliest cycle the next stream may start entering
	loadEnd    int64   // when the latest load finishes
	pending    bool    // a loaded tile waits in the shadow registers
	issued     int64   // start of the latest operation: operations start in order
	freeAt     []int64 // per shadow row: when a swap in progress has passed it
	pendingK   int     // rows of the pending tile

	// BusyCycles counts cycles the array is occupied by streams; MACs the
	// useful multiply-accumulates it performed.
	BusyCycles int64
	MACs       int64
}

// New makes an idle array.
func New(cfg Config) *Array { return &Array{cfg: cfg, freeAt: make([]int64, cfg.Rows)} }

// Config returns the array's configuration.
func (a *Array) Config() Config { return a.cfg }

// Load models mxu.ldw of a K-row tile issued at cycle t. It returns when the
// load starts and ends. The unit may issue its next instruction at start.
func (a *Array) Load(t int64, k int) (start, end int64) {
	if a.cfg.Dataflow != "ws" {
		a.pending = false
		return t, t // weights stream with the data; nothing to preload
	}
	start = max(t, a.issued, a.loadEnd)
	for r := 0; r < k && r < len(a.freeAt); r++ {
		start = max(start, a.freeAt[r])
	}
	a.pendingK = k
	end = start + int64(k)*int64(a.cfg.LdwCyclesPerRow)
	a.issued = start
	a.loadEnd = end
	a.pending = true
	return start, end
}

// Stream models mxu.mm / mxu.mma of x[M,K] through w[K,N] issued at cycle t,
// each row taking rate cycles. It returns when the stream starts, when the
// array can take the next stream (the unit's next issue), and when the last
// result has been written to accumulator memory.
func (a *Array) Stream(t int64, m, k, n, rate int) (start, free, done int64) {
	a.MACs += int64(m) * int64(k) * int64(n)
	R, C := int64(a.cfg.Rows), int64(a.cfg.Cols)
	switch a.cfg.Dataflow {
	case "os", "is":
		start = max(t, a.issued, a.streamFree)
		a.issued = start
		var folds, sr, sc, tt int64
		if a.cfg.Dataflow == "os" {
			folds = ceil(int64(m), R) * ceil(int64(n), C)
			sr, sc, tt = R, C, int64(k)
		} else {
			folds = ceil(int64(k), R) * ceil(int64(m), C)
			sr, sc, tt = R, C, int64(n)
		}
		occ := folds * (2*sr + sc + tt*int64(rate) - 2)
		a.streamFree = start + occ
		a.BusyCycles += occ
		return start, a.streamFree, a.streamFree
	}
	start = max(t, a.issued, a.streamFree)
	if a.pending {
		start = max(start, a.loadEnd)
		a.pending = false
		for r := 0; r < a.pendingK && r < len(a.freeAt); r++ {
			a.freeAt[r] = start + int64(r) + C
		}
	}
	a.issued = start
	occ := max(int64(m)*int64(rate), int64(a.cfg.MinStreamCycles))
	a.streamFree = start + occ
	a.BusyCycles += occ
	done = start + int64(m-1)*int64(rate) + R + int64(n) - 1
	return start, a.streamFree, done
}

func ceil(a, b int64) int64 { return (a + b - 1) / b }
