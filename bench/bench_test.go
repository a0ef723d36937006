package bench_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/bench"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "accept the quick suite's simulated metrics as the new baseline")

const baseline = "baselines/quick-sim.json"

// runQuick runs the quick suite from the repository root (where its paths
// point), simulated metrics only.
func runQuick(t *testing.T, sets []string) *bench.Results {
	t.Helper()
	return runSuite(t, "quick", sets)
}

// runSuite runs a built-in suite from the repository root (where its
// paths point), simulated metrics only.
func runSuite(t *testing.T, name string, sets []string) *bench.Results {
	t.Helper()
	wd, _ := os.Getwd()
	require.NoError(t, os.Chdir(".."))
	defer os.Chdir(wd)
	s, err := bench.LoadSuite(name)
	require.NoError(t, err)
	r, err := bench.Run(s, bench.Options{Sets: sets, SimOnly: true})
	require.NoError(t, err)
	return r
}

// The gate: the quick suite's simulated metrics equal the checked-in
// baseline, so every change to timing or code generation shows its effect
// in its own diff (accept it with go test ./bench -update).
func TestBaselineGate(t *testing.T) {
	got := runQuick(t, nil)
	for _, e := range got.Entries {
		require.Equal(t, "ok", e.Status, "%s: %s", e.Name, e.Error)
	}
	if *update {
		got.Provenance = bench.Provenance{} // no host, date or revision in the baseline
		f, err := os.Create(baseline)
		require.NoError(t, err)
		require.NoError(t, got.Encode(f))
		require.NoError(t, f.Close())
		t.Logf("wrote %s", baseline)
		return
	}
	old, err := bench.ReadResults(baseline)
	require.NoError(t, err, "no baseline: go test ./bench -update writes it")
	if err := bench.Gate(old, got); err != nil {
		t.Fatalf("%v\nIf the change is intended, accept it: go test ./bench -run TestBaselineGate -update", err)
	}
}

// The gate fails when a timing constant changes (here through --set, as a
// changed preset would).
func TestGateCatchesATimingChange(t *testing.T) {
	old, err := bench.ReadResults(baseline)
	require.NoError(t, err)
	got := runQuick(t, []string{"hbm.latency_ns=500"})
	err = bench.Gate(old, got)
	require.Error(t, err)
	require.Contains(t, err.Error(), "cycles")
	require.Contains(t, err.Error(), "REGRESSION")
}

func TestCompare(t *testing.T) {
	old, err := bench.ReadResults(baseline)
	require.NoError(t, err)
	c, err := bench.Compare(old, old, bench.Thresholds{})
	require.NoError(t, err)
	require.Zero(t, c.Regressions)
	require.Empty(t, c.Changes)

	// --set mxu.rows=64 on every chip: slower kernels, named, and three
	// kernels that no longer fit.
	got := runQuick(t, []string{"mxu.rows=64"})
	c, err = bench.Compare(old, got, bench.Thresholds{})
	require.NoError(t, err)
	require.Greater(t, c.Regressions, 0)
	var b bytes.Buffer
	require.NoError(t, c.Write(&b, "markdown"))
	var was float64 // the baseline's cycles for gemm.hlo on tpuv4core
	for _, e := range old.Entries {
		if e.Name == "gemm.hlo/tpuv4core" {
			was = e.Sim["cycles"]
		}
	}
	require.Contains(t, b.String(), fmt.Sprintf("| gemm.hlo/tpuv4core | cycles | %g |", was))
	require.Contains(t, b.String(), "fusion.2")
	require.Contains(t, b.String(), "ok -> failed")

	// A generous threshold lets the small increases through; failures
	// still count.
	c2, err := bench.Compare(old, got, bench.Thresholds{"cycles": 1})
	require.NoError(t, err)
	require.Equal(t, 3, c2.Regressions, "only the three failed entries")

	// Improvements are not regressions.
	c3, err := bench.Compare(got, got, bench.Thresholds{})
	require.NoError(t, err)
	require.Zero(t, c3.Regressions)

	other := *old
	other.Suite = "full"
	_, err = bench.Compare(old, &other, bench.Thresholds{})
	require.ErrorContains(t, err, "different suites")
	_, err = bench.Compare(old, old, bench.Thresholds{"bananas": 0.1})
	require.ErrorContains(t, err, "--threshold bananas")
}

func TestThresholds(t *testing.T) {
	th := bench.Thresholds{}
	require.NoError(t, bench.ParseThreshold("cycles=0.5%", th))
	require.NoError(t, bench.ParseThreshold("wall=0.1", th))
	require.InDelta(t, 0.005, th["cycles"], 1e-15)
	require.InDelta(t, 0.1, th["wall"], 1e-15)
	for _, bad := range []string{"cycles", "=1%", "cycles=abc", "cycles=-1%", "cycles=NaN"} {
		require.Error(t, bench.ParseThreshold(bad, th), bad)
	}
}

func TestSchemaAndBadSuites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"schema_version": 99, "suite": "quick"}`), 0o644))
	_, err := bench.ReadResults(p)
	require.ErrorContains(t, err, "schema version 99")
	require.NoError(t, os.WriteFile(p, []byte(`not json`), 0o644))
	_, err = bench.ReadResults(p)
	require.ErrorContains(t, err, "not a bench results file")

	for _, c := range []struct{ suite, msg string }{
		{"name: s\nentries:\n  - workload: nope.hlo\n    chips: [teach16]\n", "workload not found"},
		{"name: s\nentries:\n  - workload: ../bench/workloads/gemm.hlo\n    chips: [teach99]\n", "unknown chip"},
		{"name: s\nentries:\n  - workload: ../bench/workloads/gemm.hlo\n    chips: [teach16]\n    set: [mxu.rowz=3]\n", "unknown key"},
		{"name: s\nentries:\n  - workload: ../bench/workloads/gemm.hlo\n    chips: [teach16]\n    mode: fast\n", "mode"},
		{"name: s\nentries:\n  - workload: ../bench/workloads/gemm.hlo\n", "chips"},
		{"name: s\nentries:\n  - workloads: x\n", "workloads"},
		{"entries: []\n", "name"},
		{"name: s\nentries:\n  - workload: ../bench/workloads/gemm.hlo\n    chips: [teach16]\n    host_us: 5\n", "host_us"},
		{"name: s\nentries:\n  - workload: ../bench/workloads/gemm.hlo\n    chips: [teach16]\n    measured_us: 50\n    host_us: -5\n", "host_us"},
		{"name: s\nentries:\n  - workload: ../bench/workloads/gemm.hlo\n    chips: [teach16]\n    measured_us: 50\n    host_us: .nan\n", "host_us"},
		{"name: s\nentries:\n  - workload: ../bench/workloads/gemm.hlo\n    chips: [teach16]\n    measured_us: .inf\n", "measured_us"},
	} {
		f := filepath.Join(dir, "s.yaml")
		require.NoError(t, os.WriteFile(f, []byte(c.suite), 0o644))
		s, err := bench.LoadSuite(f)
		if err == nil {
			_, err = s.Expand(nil, 1)
		}
		require.ErrorContains(t, err, c.msg, c.suite)
	}
	// Optional entries whose workload is missing are recorded as skipped.
	f := filepath.Join(dir, "o.yaml")
	require.NoError(t, os.WriteFile(f, []byte("name: o\nentries:\n  - workload: missing.hlo\n    chips: [teach16]\n    optional: true\n"), 0o644))
	s, err := bench.LoadSuite(f)
	require.NoError(t, err)
	r, err := bench.Run(s, bench.Options{})
	require.NoError(t, err)
	require.Equal(t, "skipped", r.Entries[0].Status)
}

// benchstat reads two exports unchanged and shows the cycles and sec/op
// rows.
func TestBenchstatReadsExports(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds benchstat")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	wd, _ := os.Getwd()
	require.NoError(t, os.Chdir(".."))
	s, err := bench.LoadSuite("quick")
	require.NoError(t, err)
	a, err := bench.Run(s, bench.Options{Count: 3})
	require.NoError(t, err)
	b, err := bench.Run(s, bench.Options{Count: 3, Sets: []string{"hbm.latency_ns=500"}})
	require.NoError(t, err)
	require.NoError(t, os.Chdir(wd))
	dir := t.TempDir()
	for name, r := range map[string]*bench.Results{"old.txt": a, "new.txt": b} {
		var buf bytes.Buffer
		require.NoError(t, r.WriteBenchstat(&buf))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644))
	}
	cmd := exec.Command("go", "run", "golang.org/x/perf/cmd/benchstat", filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt"))
	cmd.Dir = wd
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "cannot find module") {
		t.Skipf("benchstat not available: %s", out)
	}
	require.NoError(t, err, "%s", out)
	text := string(out)
	require.Contains(t, text, "cycles")
	require.Contains(t, text, "sec/op")
	require.Contains(t, text, "GemmHlo/chip=tpuv4core")
	require.Contains(t, text, "vs base")
	t.Logf("benchstat output (first lines):\n%s", firstLines(text, 20))
}

func firstLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[:n]
	}
	return strings.Join(l, "\n")
}
