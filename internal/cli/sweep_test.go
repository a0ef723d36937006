package cli

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A 2-axis sweep gives, point by point, the cycles of single
// `pulse simulate --timing-only --set ...` runs.
func TestSweepEqualsSimulateRuns(t *testing.T) {
	dir := t.TempDir()
	hlo := "../../sweep/testdata/mlp.hlo"
	out := filepath.Join(dir, "sw")
	code, stdout, stderr := runCLI("sweep", hlo, "--chip", "tpuv4core", "--axis", "mxu.rows=32:128:x2", "--axis", "hbm.bandwidth_gbps=100,1200", "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "6 points: 6 ran, 0 resumed, 0 failed")
	f, err := os.Open(filepath.Join(out, "results.csv"))
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"workload", "mxu.rows", "hbm.bandwidth_gbps", "status", "cycles"}, recs[0][:5])
	require.Len(t, recs, 7)
	for _, r := range recs[1:] {
		js := filepath.Join(dir, "r.json")
		code, _, stderr := runCLI("simulate", hlo, "--chip", "tpuv4core", "--timing-only", "--set", "mxu.rows="+r[1], "--set", "hbm.bandwidth_gbps="+r[2], "--json", js)
		require.Equal(t, 0, code, stderr)
		var rep struct{ Cycles int64 }
		require.NoError(t, json.Unmarshal(mustRead(t, js), &rep))
		require.Equal(t, r[4], strconv.FormatInt(rep.Cycles, 10), "point %v", r[:3])
	}

	// Resuming a finished sweep runs nothing; the report reads it back.
	code, stdout, stderr = runCLI("sweep", hlo, "--chip", "tpuv4core", "--axis", "mxu.rows=32:128:x2", "--axis", "hbm.bandwidth_gbps=100,1200", "-o", out, "--resume")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "6 points: 0 ran, 6 resumed, 0 failed")
	code, stdout, stderr = runCLI("sweep", "report", out, "--format", "markdown")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "| workload | mxu.rows | hbm.bandwidth_gbps | status | cycles |")
	code, _, stderr = runCLI("sweep", "report", out, "--plot", filepath.Join(dir, "l.svg"), "--x", "mxu.rows", "--series", "hbm.bandwidth_gbps")
	require.Equal(t, 0, code, stderr)
	require.FileExists(t, filepath.Join(dir, "l.svg"))
}

func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	hlo := "../../sweep/testdata/mlp.hlo"
	out := filepath.Join(dir, "sw")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--axis", "mxu.rowz=1,2"}, 1, "axis mxu.rowz: unknown config key"},
		{[]string{"--axis", "mxu.rows=1,99999"}, 1, "mxu.rows: 99999 out of range"},
		{[]string{"--axis", "mxu.rows="}, 2, "--axis mxu.rows: no values"},
		{[]string{"--axis", "mxu.rows=8,16", "--where", "mxu.rows > 100"}, 1, "drop every one"},
		{[]string{"--shard", "3/2"}, 2, "--shard 3/2"},
		{[]string{"--jobs", "0"}, 2, "--jobs 0"},
		{[]string{"--metric", "bananas"}, 1, `metric "bananas"`},
	} {
		args := append([]string{"sweep", hlo, "--chip", "tpuv4core", "-o", out}, c.args...)
		code, _, stderr := runCLI(args...)
		require.Equal(t, c.code, code, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.msg, c.args)
		_, err := os.Stat(filepath.Join(out, "results.jsonl"))
		require.True(t, os.IsNotExist(err), "%v ran points", c.args)
	}
	code, _, stderr := runCLI("sweep", "merge", "-o", filepath.Join(dir, "m"), dir)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "not a sweep's results directory")
}

// StableHLO input end to end: a JAX-shaped MLP with a softmax simulates
// with --check; pulse stablehlo test runs a check module.
func TestStableHLOInput(t *testing.T) {
	f := "../../hlo/stablehlo/testdata/mlp_softmax.mlir"
	for _, chip := range []string{"teach16", "tpuv4core"} {
		code, stdout, stderr := runCLI("simulate", f, "--chip", chip, "--random-inputs", "1", "--check")
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stdout+stderr, "every output matches the reference evaluator")
	}
	code, stdout, _ := runCLI("hlo", "fmt", f)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "dot(v.arg0, v.arg1)")
	dir := t.TempDir()
	m := filepath.Join(dir, "t.mlir")
	require.NoError(t, os.WriteFile(m, []byte(`func.func @main() -> tensor<2xf32> {
  %a = stablehlo.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %b = stablehlo.abs %a : tensor<2xf32>
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  stablehlo.custom_call @check.expect_eq(%b, %c) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  return %b : tensor<2xf32>
}
`), 0o644))
	code, stdout, stderr := runCLI("stablehlo", "test", m, "--sim", "teach16")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "1 files: 1 pass")
}

// TestSweepSaysWhatIsNotModelled: a workload with host-offload markers, on
// a chip without a host link, runs, its rows list the transfers the cycles
// leave out, and the summary says how many points that concerns.
func TestSweepSaysWhatIsNotModelled(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "off.hlo", `HloModule m
ENTRY e {
  x = f32[64,16] parameter(0)
  h = f32[64,16] custom-call(x), custom_call_target="MoveToHost"
  d = f32[64,16] custom-call(h), custom_call_target="MoveToDevice"
  ROOT y = f32[64,16] add(d, d)
}
`)
	out := filepath.Join(dir, "sw")
	code, stdout, stderr := runCLI("sweep", src, "--chip", "teach16", "--set", "host.link_gbps=0", "--axis", "hbm.bandwidth_gbps=100,200", "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "not modelled: the cycles of 2 points leave out some of their workload's work (host offload transfers)")
	lines := strings.Split(strings.TrimSpace(string(mustRead(t, filepath.Join(out, "results.jsonl")))), "\n")
	require.Len(t, lines, 2)
	for _, l := range lines {
		var row struct {
			NotModelled []struct {
				Op    string
				Bytes int64
			} `json:"not_modelled"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &row))
		require.Len(t, row.NotModelled, 2)
		require.Equal(t, int64(4096), row.NotModelled[0].Bytes)
	}
	// Resumed, the points still count; the report says so too.
	code, stdout, stderr = runCLI("sweep", src, "--chip", "teach16", "--set", "host.link_gbps=0", "--axis", "hbm.bandwidth_gbps=100,200", "-o", out, "--resume")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "2 points: 0 ran, 2 resumed")
	require.Contains(t, stdout, "not modelled: the cycles of 2 points")
	code, stdout, stderr = runCLI("sweep", "report", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "2 points' cycles leave out work that is not modelled")
}
