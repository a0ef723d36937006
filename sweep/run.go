package sweep

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sync"
	"time"

	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/internal/host"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/pulse-sim/pulse/traces"
	"golang.org/x/sync/semaphore"
)

// Options tune how a plan runs.
type Options struct {
	Dir    string // results directory
	Jobs   int    // workers (0: the spec's jobs, else the host's cores)
	Shard  Shard  // the part of the points this run takes (zero: all)
	Resume bool   // skip points already in Dir/results.jsonl
	// MemoryBudget bounds the estimated memory of the points in flight
	// (0: half the host's memory, when known), so that N workers on big
	// value runs cannot exhaust the host.
	MemoryBudget int64
	// HeapFloor is the garbage the collector may leave per worker before
	// it collects (heapFloor; 0: 16 MiB, negative: Go's own pacing).
	HeapFloor int64
	// Progress is called after every finished point (from one goroutine
	// at a time).
	Progress func(Progress)
}

// Progress is a sweep's state after a point finishes.
type Progress struct {
	Done, Total, Failed int
	Elapsed             time.Duration
	Last                *Row
}

// Summary is what a run did.
type Summary struct {
	Points  int `json:"points"`  // points of this shard
	Ran     int `json:"ran"`     // points simulated by this run
	Resumed int `json:"resumed"` // points found in results.jsonl
	Failed  int `json:"failed"`  // points (ran or resumed) whose status is not ok
	// NotModelled counts the points (ran or resumed) whose cycles leave
	// out some of their workload's work (Row.NotModelled).
	NotModelled int  `json:"not_modelled,omitempty"`
	Interrupted bool `json:"interrupted,omitempty"`
}

// Run simulates the plan's points (those of opt.Shard) into opt.Dir:
// results.jsonl as points finish, then results.csv and sweep.json. When
// ctx is cancelled it stops taking points, writes what finished and
// returns with Summary.Interrupted set; points in flight are abandoned
// (a later --resume runs them).
func Run(ctx context.Context, plan *Plan, opt Options) (*Summary, error) {
	if err := checkMetrics(plan.Spec.Metrics); err != nil {
		return nil, err
	}
	points := opt.Shard.Select(plan.Points)
	store, err := openStore(opt.Dir, plan, opt.Shard, opt.Resume)
	if err != nil {
		return nil, err
	}
	defer store.close()
	sum := &Summary{Points: len(points)}
	var pending []*Point // the points this run simulates
	for _, p := range points {
		if r, ok := store.done[p.ID]; ok {
			sum.Resumed++
			if !r.ok {
				sum.Failed++
			}
			if r.notModelled {
				sum.NotModelled++
			}
			continue
		}
		pending = append(pending, p)
	}
	if err := store.writeManifest(sum, false); err != nil {
		return nil, err
	}
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = plan.Spec.Jobs
	}
	if jobs <= 0 {
		jobs = goruntime.NumCPU()
	}
	budget := opt.MemoryBudget
	if budget <= 0 {
		budget = host.Memory() / 2
	}
	if budget <= 0 {
		budget = 4 << 30
	}
	r := &runner{plan: plan, compiled: newCompileCache(64), mem: semaphore.NewWeighted(budget), budget: budget}

	floor := opt.HeapFloor
	if floor == 0 {
		floor = defaultHeapFloor
	}
	defer heapFloor(floor * int64(jobs))()

	start := time.Now()
	rows := make(chan *Row)
	sched := newSchedule(ctx, pending, min(jobs, r.compiled.max/2), r.compile)
	defer sched.close()
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				p, ok := sched.take()
				if !ok {
					return
				}
				rows <- r.run(p)
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	done := sum.Resumed
	failed := sum.Failed
	var werr error
loop:
	for {
		select {
		case row := <-rows:
			if werr == nil {
				werr = store.append(row)
			}
			sum.Ran++
			done++
			if len(row.NotModelled) > 0 {
				sum.NotModelled++
			}
			if row.Status != StatusOK {
				sum.Failed++
				failed++
			}
			if opt.Progress != nil {
				opt.Progress(Progress{Done: done, Total: len(points), Failed: failed, Elapsed: time.Since(start), Last: row})
			}
		case <-finished:
			break loop
		case <-ctx.Done():
			sum.Interrupted = true
			break loop
		}
	}
	if werr != nil {
		return sum, werr
	}
	if err := store.finish(points, sum); err != nil {
		return sum, err
	}
	return sum, nil
}

// defaultHeapFloor is Options.HeapFloor's default: on 16 cores a 1,005-
// point sweep's workers spent a fifth of their time on collections without
// a floor, and 16 MiB a worker took most of it back (docs/performance.md).
const defaultHeapFloor = 16 << 20

// runner runs single points.
type runner struct {
	plan     *Plan
	compiled *compileCache
	mem      *semaphore.Weighted
	budget   int64
}

func (r *runner) run(p *Point) *Row {
	s := r.plan.Spec
	row := &Row{Index: p.Index, ID: p.ID, Workload: p.Workload.Name, Axes: map[string]string{}}
	for i, a := range s.Axes {
		row.Axes[a.Key] = p.Values[i]
	}
	t0 := time.Now()
	defer func() { row.WallSeconds = time.Since(t0).Seconds() }()
	fail := func(status string, err error) *Row {
		row.Status, row.Error = status, err.Error()
		return row
	}
	w := p.Workload
	ch, err := r.plan.Chip(p)
	if err != nil { // Expand built this chip already
		return fail(StatusError, err)
	}
	var (
		report  *chip.Report
		kernels []traces.KernelStats
	)
	switch w.Kind {
	case "hlo", "layer":
		x, err := r.compiled.get(w, ch, p.Target)
		if err != nil {
			return fail(StatusCompileError, err)
		}
		est := x.PeakHBMBytes
		if s.Values {
			est *= 4 // float64 values of f32/bf16 elements, and the evaluator's copies
		}
		release := r.reserve(est)
		defer release()
		var args []*eval.Value
		if s.Values {
			if args, err = eval.RandomArgsWithin(w.module, 1, r.budget); err != nil {
				return fail(StatusError, err)
			}
		}
		client := &runtime.Client{Chip: ch}
		res, err := client.Execute(x, args, runtime.ExecOptions{TimingOnly: !s.Values, MaxCycles: s.MaxCycles})
		if err != nil {
			return fail(statusOf(err), err)
		}
		report, kernels = res.Report, res.Kernels
		row.NotModelled = res.NotModelled
	default: // asm, exe
		release := r.reserve(0)
		defer release()
		k := traces.NewKernels(traces.ProgramSource(w.prog, w.file))
		m, err := chip.Simulate(ch, w.prog, nil, chip.Options{TimingOnly: !s.Values, MaxCycles: s.MaxCycles, Observers: []core.Observer{k}})
		if err != nil {
			return fail(statusOf(err), err)
		}
		report, kernels = chip.NewReport(w.Name, m, !s.Values), k.Stats()
	}
	row.Status = StatusOK
	row.Metrics = metricsOf(report)
	if s.Kernels {
		row.Kernels = kernels
	}
	return row
}

// compile puts p's executable in the cache: the schedule calls it ahead
// of the workers.
func (r *runner) compile(p *Point) {
	if ch, err := r.plan.Chip(p); err == nil {
		r.compiled.get(p.Workload, ch, p.Target)
	}
}

// reserve takes est bytes (at least 64 MiB, at most the budget) of the
// memory budget until release is called.
func (r *runner) reserve(est int64) (release func()) {
	n := min(max(est, 64<<20), r.budget)
	r.mem.Acquire(context.Background(), n)
	return func() { r.mem.Release(n) }
}

// compileCache holds compiled executables by workload and compile target
// (lowering.Target): a sweep over timing knobs compiles each workload once.
// It keeps the most recently used entries, so memory stays flat however
// many targets a sweep visits.
type compileCache struct {
	mu      sync.Mutex
	max     int
	entries map[string]*compileEntry
	tick    int64
}

type compileEntry struct {
	once sync.Once
	x    *runtime.Executable
	err  error
	used int64
}

func newCompileCache(max int) *compileCache {
	return &compileCache{max: max, entries: map[string]*compileEntry{}}
}

func (c *compileCache) get(w *Workload, ch *config.Chip, target string) (*runtime.Executable, error) {
	key := w.Name + "\x00" + target
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok {
		if len(c.entries) >= c.max {
			var oldest string
			var t int64 = -1
			for k, v := range c.entries {
				if t < 0 || v.used < t {
					oldest, t = k, v.used
				}
			}
			delete(c.entries, oldest)
		}
		e = &compileEntry{}
		c.entries[key] = e
	}
	c.tick++
	e.used = c.tick
	c.mu.Unlock()
	e.once.Do(func() {
		client := &runtime.Client{Chip: ch}
		e.x, e.err = client.Compile(w.file, w.module)
	})
	return e.x, e.err
}

// Shard is the part K of N of a sweep's points (zero: all of them).
type Shard struct{ K, N int }

// ParseShard reads "K/N" (1 <= K <= N).
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if s == "" {
		return sh, nil
	}
	var rest string
	if n, _ := fmt.Sscanf(s, "%d/%d%s", &sh.K, &sh.N, &rest); n < 2 || rest != "" {
		return sh, fmt.Errorf("--shard %q: want K/N, e.g. 1/4", s)
	}
	if sh.N < 1 || sh.K < 1 || sh.K > sh.N {
		return sh, fmt.Errorf("--shard %s: K must be between 1 and N", s)
	}
	return sh, nil
}

func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Select returns the shard's points: every N-th from the K-th, so that
// shards get similar mixes of workloads and configurations.
func (s Shard) Select(ps []*Point) []*Point {
	if s.N <= 1 {
		return ps
	}
	var out []*Point
	for _, p := range ps {
		if p.Index%s.N == s.K-1 {
			out = append(out, p)
		}
	}
	return out
}
