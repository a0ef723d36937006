package sweep_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/pulse-sim/pulse/sweep"
	"github.com/stretchr/testify/require"
)

const (
	mlp     = "testdata/mlp.hlo"
	gemm256 = "../examples/kernels/gemm256.s"
)

func TestParseValues(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		err  string
	}{
		{in: "ws,os,is", want: "ws os is"},
		{in: "32:256:x2", want: "32 64 128 256"},
		{in: "100:400:100", want: "100 200 300 400"},
		{in: "100:450:100", want: "100 200 300 400"},
		{in: "0.1:0.5:0.1", want: "0.1 0.2 0.3 0.4 0.5"},
		{in: "1:2:0.5", want: "1 1.5 2"},
		{in: "10:1:-3", want: "10 7 4 1"},
		{in: "1.5:20:x3", want: "1.5 4.5 13.5"},
		{in: "", err: "no values"},
		{in: "a,,b", err: "empty value"},
		{in: "1:10:0", err: "never reaches"},
		{in: "10:1:1", err: "never reaches"},
		{in: "1:10:x1", err: "factor above 1"},
		{in: "0:10:x2", err: "start > 0"},
		{in: "1:x:1", err: "not a number"},
		{in: "1:2", err: "start:stop:step"},
		{in: "1:1e9:1", err: "more than"},
	} {
		got, err := sweep.ParseValues(c.in)
		if c.err != "" {
			require.ErrorContains(t, err, c.err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, strings.Join(got, " "), c.in)
	}
}

// Everything wrong with a spec is an error before any point runs.
func TestBadSpecs(t *testing.T) {
	base := func() *sweep.Spec {
		return &sweep.Spec{Workloads: []string{mlp}, Chip: "tpuv4core",
			Axes: sweep.Axes{{Key: "mxu.rows", Values: []string{"32", "64"}}, {Key: "mxu.cols", Values: []string{"32", "64"}}}}
	}
	for _, c := range []struct {
		name string
		edit func(*sweep.Spec)
		err  string
	}{
		{"unknown key", func(s *sweep.Spec) { s.Axes[0].Key = "mxu.rowz" }, "axis mxu.rowz: unknown config key"},
		{"out of range", func(s *sweep.Spec) { s.Axes[0].Values = []string{"32", "5000"} }, "mxu.rows: 5000 out of range 1..4096"},
		{"not a number", func(s *sweep.Spec) { s.Axes[0].Values = []string{"big"} }, "mxu.rows"},
		// Issue 44, 2: fractions were truncated, and 1000.2 and 1000.7 ran
		// as one point at 1000 under one id.
		{"fraction", func(s *sweep.Spec) { s.Axes[0].Values = []string{"32.2", "32.7"} }, "mxu.rows: 32.2 is not an integer"},
		{"one chip twice", func(s *sweep.Spec) { s.Axes[0].Values = []string{"32", "32.0"} }, "give the same chip configuration"},
		{"empty axis", func(s *sweep.Spec) { s.Axes[1].Values = nil }, "axis mxu.cols: no values"},
		{"twice", func(s *sweep.Spec) { s.Axes[1].Key = "mxu.rows" }, "given twice"},
		{"drops all", func(s *sweep.Spec) { s.Constraints = []string{"mxu.rows * mxu.cols > 1e9"} }, "drop every one of the 4"},
		{"bad constraint", func(s *sweep.Spec) { s.Constraints = []string{"mxu.rowz > 1"} }, `constraint "mxu.rowz > 1"`},
		{"not bool", func(s *sweep.Spec) { s.Constraints = []string{"mxu.rows + 1"} }, "constraint"},
		{"zip lengths", func(s *sweep.Spec) {
			s.Axes[1].Values = []string{"32"}
			s.Zip = [][]string{{"mxu.rows", "mxu.cols"}}
		}, "zipped axes move together"},
		{"zip non-axis", func(s *sweep.Spec) { s.Zip = [][]string{{"mxu.rows", "vpu.lanes"}} }, "vpu.lanes is not an axis"},
		{"no chip", func(s *sweep.Spec) { s.Chip = "" }, "no chip"},
		{"bad set", func(s *sweep.Spec) { s.Set = []string{"hbm.nope=1"} }, "unknown key"},
		{"no workloads", func(s *sweep.Spec) { s.Workloads = nil }, "no workloads"},
		{"missing workload", func(s *sweep.Spec) { s.Workloads = []string{"testdata/none.hlo"} }, "none.hlo"},
		{"unknown kind", func(s *sweep.Spec) { s.Workloads = []string{"spec.go"} }, "not a known kind"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base()
			c.edit(s)
			_, err := sweep.Expand(s)
			require.ErrorContains(t, err, c.err)
		})
	}
	for _, s := range []string{"3/2", "0/2", "1/0", "a/b", "1/2/3", "2"} {
		_, err := sweep.ParseShard(s)
		require.Error(t, err, s)
	}
	s := base()
	s.Metrics = []string{"cycles", "joules_per_banana"}
	plan, err := sweep.Expand(s)
	require.NoError(t, err)
	_, err = sweep.Run(context.Background(), plan, sweep.Options{Dir: t.TempDir()})
	require.ErrorContains(t, err, `metric "joules_per_banana"`)
}

func gridSpec() *sweep.Spec {
	return &sweep.Spec{Workloads: []string{mlp, gemm256}, Chip: "tpuv4core",
		Axes: sweep.Axes{{Key: "mxu.rows", Values: []string{"32", "64", "128"}}, {Key: "dma.engines", Values: []string{"1", "2", "4"}}}}
}

func run(t *testing.T, s *sweep.Spec, opt sweep.Options) (*sweep.Summary, string) {
	t.Helper()
	plan, err := sweep.Expand(s)
	require.NoError(t, err)
	if opt.Dir == "" {
		opt.Dir = t.TempDir()
	}
	sum, err := sweep.Run(context.Background(), plan, opt)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(opt.Dir, "results.csv"))
	require.NoError(t, err)
	return sum, string(b)
}

// Point by point, a sweep gives the cycles of single timing-only runs
// with the same --set (and the same failures).
func TestSweepMatchesSingleRuns(t *testing.T) {
	dir := t.TempDir()
	sum, _ := run(t, gridSpec(), sweep.Options{Dir: dir, Jobs: 2})
	require.Equal(t, 18, sum.Points)
	require.Equal(t, 18, sum.Ran)
	rs, err := sweep.Load(dir)
	require.NoError(t, err)
	require.Len(t, rs.Rows, 18)
	ok := 0
	for _, r := range rs.Rows {
		sets := []string{"mxu.rows=" + r.Axes["mxu.rows"], "dma.engines=" + r.Axes["dma.engines"]}
		c, err := config.Load("tpuv4core", sets)
		require.NoError(t, err)
		var cycles int64
		var runErr error
		if strings.HasSuffix(r.Workload, ".hlo") {
			src, _ := os.ReadFile(r.Workload)
			m, err := hlo.Parse(r.Workload, string(src))
			require.NoError(t, err)
			client := &runtime.Client{Chip: c}
			x, err := client.Compile(r.Workload, m)
			require.NoError(t, err)
			res, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true})
			runErr = err
			if err == nil {
				cycles = res.Report.Cycles
			}
		} else {
			prog, err := pulse.LoadProgram(r.Workload)
			require.NoError(t, err)
			m, err := chip.Simulate(c, prog, nil, chip.Options{TimingOnly: true})
			runErr = err
			if err == nil {
				cycles = m.Cycles()
			}
		}
		if runErr != nil {
			require.NotEqual(t, sweep.StatusOK, r.Status, "%s %v", r.Workload, r.Axes)
			require.Equal(t, runErr.Error(), r.Error)
			continue
		}
		ok++
		require.Equal(t, sweep.StatusOK, r.Status, r.Error)
		require.Equal(t, float64(cycles), r.Metrics["cycles"], "%s %v", r.Workload, r.Axes)
	}
	require.Equal(t, 11, ok, "gemm256.s needs two DMA engines and 128-row arrays; the others fault")
	require.Equal(t, 7, rs.Manifest.Failed)
}

// The same sweep gives the same results.csv whatever the number of
// workers, and two shards merged give the whole.
func TestShardsMergeToTheWhole(t *testing.T) {
	_, whole := run(t, gridSpec(), sweep.Options{Jobs: 1})
	_, whole2 := run(t, gridSpec(), sweep.Options{Jobs: 2})
	require.Equal(t, whole, whole2)

	d1, d2, merged := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "merged")
	s1, _ := run(t, gridSpec(), sweep.Options{Dir: d1, Shard: sweep.Shard{K: 1, N: 2}})
	s2, _ := run(t, gridSpec(), sweep.Options{Dir: d2, Shard: sweep.Shard{K: 2, N: 2}})
	require.Equal(t, 18, s1.Points+s2.Points)
	m, err := sweep.Merge(merged, []string{d1, d2})
	require.NoError(t, err)
	require.True(t, m.Complete)
	require.Equal(t, 18, m.Points)
	b, err := os.ReadFile(filepath.Join(merged, "results.csv"))
	require.NoError(t, err)
	require.Equal(t, whole, string(b))

	// One shard alone merges, incomplete; a shard twice or of another
	// sweep is refused; so is a directory that holds results.
	m, err = sweep.Merge(filepath.Join(t.TempDir(), "m"), []string{d1})
	require.NoError(t, err)
	require.False(t, m.Complete)
	_, err = sweep.Merge(filepath.Join(t.TempDir(), "m"), []string{d1, d1})
	require.ErrorContains(t, err, "both shard 1/2")
	other := gridSpec()
	other.Axes[0].Values = []string{"32", "64"}
	d3 := t.TempDir()
	run(t, other, sweep.Options{Dir: d3, Shard: sweep.Shard{K: 2, N: 2}})
	_, err = sweep.Merge(filepath.Join(t.TempDir(), "m"), []string{d1, d3})
	require.ErrorContains(t, err, "different sweep")
	_, err = sweep.Merge(merged, []string{d1, d2})
	require.ErrorContains(t, err, "already holds")
}

// --resume on a finished sweep runs nothing; a sweep interrupted halfway
// (and one killed while writing a line) resumes to the same results.csv.
func TestResume(t *testing.T) {
	_, whole := run(t, gridSpec(), sweep.Options{Jobs: 2})

	dir := t.TempDir()
	plan, err := sweep.Expand(gridSpec())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := sweep.Run(ctx, plan, sweep.Options{Dir: dir, Jobs: 1, Progress: func(p sweep.Progress) {
		if p.Done == 9 {
			cancel()
		}
	}})
	require.NoError(t, err)
	require.True(t, sum.Interrupted)
	require.Less(t, sum.Ran, 18)
	// A line cut short by a kill.
	f, err := os.OpenFile(filepath.Join(dir, "results.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	f.WriteString(`{"index":17,"id":"abc","wor`)
	f.Close()

	_, err = sweep.Run(context.Background(), plan, sweep.Options{Dir: dir})
	require.ErrorContains(t, err, "--resume")
	sum2, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir, Resume: true, Jobs: 2})
	require.NoError(t, err)
	require.Equal(t, sum.Ran, sum2.Resumed)
	require.Equal(t, 18, sum2.Ran+sum2.Resumed)
	b, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	require.NoError(t, err)
	require.Equal(t, whole, string(b))

	sum3, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir, Resume: true})
	require.NoError(t, err)
	require.Equal(t, 0, sum3.Ran)
	require.Equal(t, 18, sum3.Resumed)
	m, err := sweep.ReadManifest(dir)
	require.NoError(t, err)
	require.Equal(t, 0, m.Ran)
	require.Equal(t, 18, m.Resumed)
	require.True(t, m.Complete)

	// Another sweep into the same directory is refused.
	other := gridSpec()
	other.Axes[1].Values = []string{"4"}
	plan2, err := sweep.Expand(other)
	require.NoError(t, err)
	_, err = sweep.Run(context.Background(), plan2, sweep.Options{Dir: dir, Resume: true})
	require.ErrorContains(t, err, "different sweep")
}

func TestZipAndConstraints(t *testing.T) {
	s := &sweep.Spec{Workloads: []string{mlp}, Chip: "tpuv4core",
		Axes: sweep.Axes{{Key: "mxu.rows", Values: []string{"32", "64", "128"}}, {Key: "hbm.bandwidth_gbps", Values: []string{"100", "1200"}},
			{Key: "mxu.cols", Values: []string{"32", "64", "128"}}},
		Zip:         [][]string{{"mxu.rows", "mxu.cols"}},
		Constraints: []string{"mxu.rows * mxu.cols * mxu.count <= 16384 || hbm.bandwidth_gbps > 1000"}}
	plan, err := sweep.Expand(s)
	require.NoError(t, err)
	var got []string
	for _, p := range plan.Points {
		got = append(got, strings.Join(p.Values, "/"))
	}
	// 32x32 and 64x64 (x4 arrays = 16384) pass at both bandwidths, 128x128 only at 1200.
	require.Equal(t, []string{"32/100/32", "32/1200/32", "64/100/64", "64/1200/64", "128/1200/128"}, got)
	require.Equal(t, 1, plan.Dropped)
}

func TestSpecFile(t *testing.T) {
	src := `workloads: [testdata/mlp.hlo]
chip: tpuv4core
set: {hbm.latency_ns: 100}
axes:
  mxu.rows: 32:128:x2
  mxu.dataflow: [ws, os, is]
zip: []
constraints: ["mxu.rows >= 64"]
metrics: [cycles, mxu_mac_utilization]
jobs: 2
`
	s, err := sweep.ParseSpec("s.yaml", []byte(src))
	require.NoError(t, err)
	require.Equal(t, []string{"hbm.latency_ns=100"}, s.Set)
	require.Equal(t, "mxu.rows", s.Axes[0].Key)
	require.Equal(t, []string{"32", "64", "128"}, s.Axes[0].Values)
	require.Equal(t, []string{"ws", "os", "is"}, s.Axes[1].Values)
	plan, err := sweep.Expand(s)
	require.NoError(t, err)
	require.Len(t, plan.Points, 6)
	dir := t.TempDir()
	_, csv := run(t, s, sweep.Options{Dir: dir})
	require.True(t, strings.HasPrefix(csv, "workload,mxu.rows,mxu.dataflow,status,cycles,mxu_mac_utilization,error\n"), csv)

	for _, bad := range []string{"axis: {}", "axes: [1, 2]", "axes: {mxu.rows: 1:2}", "jobs: -1", "set: 3", "max_cycles: -1"} {
		_, err := sweep.ParseSpec("s.yaml", []byte(bad))
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "s.yaml", bad)
	}
}

func TestReportAndCharts(t *testing.T) {
	dir := t.TempDir()
	run(t, gridSpec(), sweep.Options{Dir: dir})
	rs, err := sweep.Load(dir)
	require.NoError(t, err)
	best := rs.Best("cycles")
	require.Len(t, best, 2)
	require.Equal(t, mlp, best[0].Workload)
	require.Equal(t, "128", best[0].Axes["mxu.rows"])
	for _, f := range []string{"table", "markdown", "json", "csv"} {
		var b strings.Builder
		require.NoError(t, rs.WriteReport(&b, dir, f, "cycles"), f)
		require.Contains(t, b.String(), "gemm256.s", f)
	}
	out := t.TempDir()
	require.NoError(t, rs.Plot(sweep.Chart{X: "mxu.rows", Series: "dma.engines"}, filepath.Join(out, "l.png")))
	require.NoError(t, rs.Plot(sweep.Chart{Kind: "heatmap", X: "mxu.rows", Y: "dma.engines", Metric: "mxu_mac_utilization"}, filepath.Join(out, "h.svg")))
	require.NoError(t, rs.Plot(sweep.Chart{Kind: "pareto", Pareto: [2]string{"cycles", "mxu.rows"}}, filepath.Join(out, "p.png")))
	require.ErrorContains(t, rs.Plot(sweep.Chart{X: "vpu.lanes"}, filepath.Join(out, "x.png")), "not an axis")
	require.ErrorContains(t, rs.Plot(sweep.Chart{Kind: "heatmap", X: "mxu.rows"}, filepath.Join(out, "x.png")), "two different axes")

	// The front: no other point is at least as good on both.
	front := sweep.ParetoFront(rs.Rows[:9], "cycles", "mxu.rows")
	require.NotEmpty(t, front)
	for _, f := range front {
		fc, _ := f.Value("cycles")
		fr, _ := f.Value("mxu.rows")
		for _, r := range rs.Rows[:9] {
			rc, _ := r.Value("cycles")
			rr, _ := r.Value("mxu.rows")
			require.False(t, rc <= fc && rr <= fr && (rc < fc || rr < fr), "%v dominates %v", r.Axes, f.Axes)
		}
	}
}

// TestOneWriterPerDirectory: a second sweep on a directory another is
// writing is refused at once, naming the holder (issue 44, 11: two sweeps
// on one directory both failed at the end, "results.jsonl: unexpected end
// of JSON input"); once the first ends, the directory is free again.
func TestOneWriterPerDirectory(t *testing.T) {
	dir := t.TempDir()
	plan, err := sweep.Expand(gridSpec())
	require.NoError(t, err)
	started := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir, Jobs: 1, Progress: func(p sweep.Progress) {
			once.Do(func() {
				close(started)
				<-release
			})
		}})
		done <- err
	}()
	<-started
	_, err = sweep.Run(context.Background(), plan, sweep.Options{Dir: dir, Resume: true})
	require.ErrorContains(t, err, "is in use: pid ")
	require.ErrorContains(t, err, "is writing a sweep there")
	close(release)
	require.NoError(t, <-done)
	sum, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir, Resume: true})
	require.NoError(t, err)
	require.Equal(t, 18, sum.Resumed)
}
