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
// Output-stationary. Each PE (i, j) holds one output Y[i][j] of an
// instruction's M x N block (M <= R, N <= C); both operands stream in,
// skewed: X[i][k] from the left edge and W[k][j] from the top reach PE
// (i, j) together at start + i + j + k*rate, so its last MAC is at start
// + i + j + (K-1)*rate and its result leaves through the output path the
// cycle after (SCALE-Sim's OS model). So an instruction finishes at
//
//	done = start + M + N + (K-1)*rate - 1
//
// (K + R + C - 2 for a full fold at rate 1: SCALE-Sim's OS law). With
// FoldOverlap (double-buffered accumulators) a PE starts the next fold the
// cycle after its last MAC, so the next instruction may start at start +
// (K-1)*rate + 1: consecutive folds fill under each other's drain. Without
// it the next starts when this one is done. mxu.ldw only names the W
// operand (it streams with the data): it costs nothing in the array.
//
// Input-stationary: the dual of weight-stationary. An mxu.mm's X block
// (M <= C columns of K <= R rows, X transposed) is shifted into the shadow
// registers as WS shifts weights (K rows, LdwCyclesPerRow each, double
// buffered: the next instruction's block shifts in under the current
// stream), then the N columns of W stream through it, one every rate
// cycles, and Y[m][n] leaves the bottom of column m: the WS formulas with
// the roles of M and N exchanged. mxu.ldw costs nothing here either.
package systolic

// Config is the geometry and timing of one array.
type Config struct {
	Rows, Cols      int
	Dataflow        string // ws, os, is
	LdwCyclesPerRow int
	MinStreamCycles int  // a stream occupies the array at least this long (Trainium's MM initiation interval)
	FoldOverlap     bool // os: the next fold starts in each PE right after its last MAC (double-buffered accumulators)
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
	// Busy is the latest stream's busy window [from, until): operands
	// entering the array.
	Busy [2]int64
}

// New makes an idle array.
func New(cfg Config) *Array { return &Array{cfg: cfg, freeAt: make([]int64, cfg.Rows)} }

// Config returns the array's configuration.
func (a *Array) Config() Config { return a.cfg }

// Load models mxu.ldw of a K-row tile issued at cycle t. It returns when the
// load starts and ends. The unit may issue its next instruction at start.
func (a *Array) Load(t int64, k int) (start, end int64) {
	if a.cfg.Dataflow != "ws" {
		return t, t // the W operand streams with the data: nothing to preload
	}
	return a.load(t, k)
}

// load shifts k rows of a stationary block into the shadow registers.
func (a *Array) load(t int64, k int) (start, end int64) {
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
// each row taking rate cycles. It returns when the instruction starts,
// when the unit can issue its next instruction, and when the last result
// has been written to accumulator memory; Busy holds its busy window.
func (a *Array) Stream(t int64, m, k, n, rate int) (start, free, done int64) {
	a.MACs += int64(m) * int64(k) * int64(n)
	switch a.cfg.Dataflow {
	case "os":
		start = max(t, a.issued, a.streamFree)
		a.issued = start
		occ := int64(k-1)*int64(rate) + 1 // until the first PE's last MAC
		done = start + int64(m) + int64(n) + int64(k-1)*int64(rate) - 1
		a.streamFree = start + occ
		if !a.cfg.FoldOverlap {
			a.streamFree = done
		}
		a.BusyCycles += occ
		a.Busy = [2]int64{start, start + occ}
		return start, a.streamFree, done
	case "is":
		// The X block shifts in (double-buffered), then W's N columns stream.
		ls, _ := a.load(t, k)
		s, _, d := a.wsStream(t, n, k, m, rate)
		return ls, s, d
	}
	return a.wsStream(t, m, k, n, rate)
}

// wsStream streams M rows of K through the stationary K x N block.
func (a *Array) wsStream(t int64, m, k, n, rate int) (start, free, done int64) {
	R, C := int64(a.cfg.Rows), int64(a.cfg.Cols)
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
	a.Busy = [2]int64{start, start + occ}
	done = start + int64(m-1)*int64(rate) + R + int64(n) - 1
	if a.cfg.Dataflow == "is" {
		return start, start, done // the next block may shift in under this stream
	}
	return start, a.streamFree, done
}

func ceil(a, b int64) int64 { return (a + b - 1) / b }
