package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"
)

func TestObservabilityOutputs(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	src := write(t, dir, "m.hlo", `HloModule m
ENTRY e {
  a = bf16[256,256]{1,0} parameter(0)
  b = bf16[256,256]{1,0} parameter(1)
  d = f32[256,256]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[256,256]{1,0} exponential(d)
}
`)
	out := func(n string) string { return filepath.Join(dir, n) }
	for _, c := range []struct {
		cmd  []string
		name string
	}{
		{[]string{"simulate", src, "--chip", "tpuv4core", "--timing-only"}, "sim"},
		{[]string{"run", "../../examples/kernels/softmax.s", "--chip", "teach16", "--timing-only"}, "run"},
	} {
		p := func(ext string) string { return out(c.name + ext) }
		args := append(c.cmd, "--trace", p(".json"), "--pprof", p(".pb.gz"), "--roofline", p(".png"), "--csv", p(".csv"), "--json", p(".report.json"))
		code, _, stderr := runCLI(args...)
		require.Equal(t, 0, code, stderr)
		var trace struct {
			TraceEvents []map[string]any `json:"traceEvents"`
		}
		require.NoError(t, json.Unmarshal(mustRead(t, p(".json")), &trace))
		require.NotEmpty(t, trace.TraceEvents)
		power := false
		for _, ev := range trace.TraceEvents {
			power = power || ev["name"] == "dynamic power of unit instructions (W)"
		}
		require.True(t, power, "the timeline has the power counter")
		f, err := os.Open(p(".pb.gz"))
		require.NoError(t, err)
		prof, err := profile.Parse(f)
		f.Close()
		require.NoError(t, err)
		require.Equal(t, "energy_pj", prof.SampleType[len(prof.SampleType)-1].Type)
		var report struct {
			Cycles int64 `json:"cycles"`
			Units  map[string]struct {
				BusyCycles int64 `json:"busy_cycles"`
			} `json:"units"`
		}
		require.NoError(t, json.Unmarshal(mustRead(t, p(".report.json")), &report))
		var busy, want int64
		for _, s := range prof.Sample {
			busy += s.Value[0]
		}
		for _, u := range report.Units {
			want += u.BusyCycles
		}
		require.Equal(t, want, busy, "the profile's busy cycles are the report's")
		require.True(t, strings.HasPrefix(string(mustRead(t, p(".png"))), "\x89PNG"))
		csv := strings.Split(strings.TrimSpace(string(mustRead(t, p(".csv")))), "\n")
		require.Equal(t, "name,kind,runs,cycles,flops,bytes,vmem_bytes,intensity,bound,achieved,energy_joules,source", csv[0])
		require.GreaterOrEqual(t, len(csv), 2)
	}
	// --pprof without --emit-asm writes the assembly beside the profile.
	require.FileExists(t, out("sim.s"))

	// Windowed trace; bad flags are usage errors.
	code, _, stderr := runCLI("simulate", src, "--chip", "tpuv4core", "--timing-only", "--trace", out("w.json"), "--trace-window", "100:")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = runCLI("simulate", src, "--chip", "tpuv4core", "--timing-only", "--trace", out("c.json"), "--trace-max-events", "10")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "note: the trace reached its cap of 10 events")
	for _, bad := range [][]string{
		{"--trace-window", "5:10"},
		{"--trace", out("x.json"), "--trace-window", "10"},
		{"--trace", out("x.json"), "--trace-window", "10:5"},
		{"--trace", out("x.json"), "--trace-window", "a:b"},
		{"--roofline", out("x.txt")},
		{"--trace", out("x.json"), "--trace-max-events", "0"},
	} {
		code, _, stderr := runCLI(append([]string{"run", "../../examples/kernels/softmax.s", "--timing-only"}, bad...)...)
		require.Equal(t, 2, code, "%v: %s", bad, stderr)
		require.NotContains(t, stderr, "goroutine")
	}
	// A run that fails still leaves its timeline up to the failure.
	code, _, stderr = runCLI("run", "../../examples/kernels/gemm256.s", "--chip", "tpuv4core", "--timing-only", "--max-cycles", "1000", "--trace", out("part.json"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "--max-cycles limit")
	require.Contains(t, stderr, "holds the timeline up to the failure")
	var part struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(mustRead(t, out("part.json")), &part))
	require.NotEmpty(t, part.TraceEvents)

	code, _, stderr = runCLI("run", "../../examples/kernels/softmax.s", "--timing-only", "--trace", filepath.Join(dir, "no", "such", "dir.json"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "does not exist")
	require.NotContains(t, stderr, "simulated", "it fails before the run")
}
