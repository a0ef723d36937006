package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A step with temporaries live at its peak: every array is 4 MiB, the
// fusion runs as several kernels around the transpose, e and t between
// them, and its last writes the update into the donated w.
const memoryModule = `HloModule step, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  w = f32[1024,1024] parameter(0)
  x = f32[1024,1024] parameter(1)
  e = f32[1024,1024] exponential(x)
  t = f32[1024,1024] transpose(e), dimensions={1,0}
  ROOT u = f32[1024,1024] add(w, t)
}
`

// TestCompileMemory: --memory lists what is live at the peak, --xla-memory
// puts XLA's figures beside it, and a module too big for the chip says
// what the whole program needs.
func TestCompileMemory(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "step.hlo", memoryModule)
	meta := write(t, dir, "meta.json", `{"xla_memory": {"argument_size_in_bytes": 8388608, "output_size_in_bytes": 4194304,
 "alias_size_in_bytes": 4194304, "temp_size_in_bytes": 8388608, "peak_memory_in_bytes": 8388608}}`)
	code, out, stderr := runCLI("compile", src, "--chip", "tpuv4core", "--no-cache", "--memory", "--xla-memory", meta)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "HBM at its peak: ")
	// The update is written into the donated w, as XLA aliases them.
	require.Contains(t, out, "16.0 MiB needed, 16.0 MiB in 4 live arrays (parameters 8.0 MiB, temporaries 8.0 MiB)")
	require.Contains(t, out, "Pulse needs 16777216 bytes, +0.0%")
	require.Contains(t, out, "XLA's buffer assignment: 16777216 bytes (arguments 8388608 + outputs 4194304 - aliased 4194304 + temporaries 8388608)")
	for _, name := range []string{"w ", "x ", "fusion.2/t "} {
		require.Contains(t, out, "│ "+name, out)
	}
	require.Contains(t, out, filepath.Base(src)+":")

	// Too big: the message names the whole program's peak and how to see it.
	code, _, stderr = runCLI("compile", src, "--chip", "tpuv4core", "--no-cache", "--memory", "--set", "memory.hbm_bytes=10485760")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "beyond the chip's 10.0 MiB")
	require.Contains(t, stderr, "the whole program needs ")
	i := strings.Index(stderr, "--set memory.hbm_bytes=")
	require.Positive(t, i, stderr)
	var need int64
	_, err := fmt.Sscanf(stderr[i+len("--set memory.hbm_bytes="):], "%d", &need)
	require.NoError(t, err)
	code, out, stderr = runCLI("compile", src, "--chip", "tpuv4core", "--no-cache", "--memory", "--set", fmt.Sprintf("memory.hbm_bytes=%d", need))
	require.Equal(t, 0, code, "the size the message gives fits: %s", stderr)
	require.Contains(t, out, "HBM at its peak: ")

	// Usage and file errors.
	code, _, stderr = runCLI("compile", src, "--chip", "tpuv4core", "--xla-memory", meta)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--xla-memory goes with --memory")
	code, _, stderr = runCLI("compile", src, "--chip", "tpuv4core", "--memory", "--memory-top", "-1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--memory-top -1")
	bad := write(t, dir, "bad.json", `{"flops": 3}`)
	code, _, stderr = runCLI("compile", src, "--chip", "tpuv4core", "--memory", "--xla-memory", bad)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no argument_size_in_bytes")
}

// TestSimulateReportsHBMPeak: the run's JSON carries the peak beside the
// chip report's own "hbm" object, and the text report prints it.
func TestSimulateReportsHBMPeak(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "step.hlo", memoryModule)
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := runCLI("simulate", src, "--chip", "tpuv4core", "--timing-only", "--no-cache", "--json", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "HBM at its peak: 16.0 MiB needed")
	var r map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(mustRead(t, out), &r))
	require.Contains(t, string(r["hbm"]), `"bytes_read"`)
	var peak struct {
		Needed int64 `json:"needed_bytes"`
		Count  int   `json:"array_count"`
	}
	require.NoError(t, json.Unmarshal(r["hbm_peak"], &peak))
	require.Equal(t, int64(16<<20), peak.Needed)
	require.Equal(t, 4, peak.Count)
}
