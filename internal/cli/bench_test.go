package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The bench commands as a user runs them (the built-in suite's workloads
// come from the binary, so any directory works).
func TestBenchCommands(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	code, stdout, stderr := runCLI("bench", "run", "--suite", "quick", "-o", a)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "suite quick: 17 entries ran, 0 failed")
	require.Contains(t, stderr, "gemm.hlo/tpuv4core")

	code, stdout, _ = runCLI("bench", "compare", a, a)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "no regressions")

	code, _, stderr = runCLI("bench", "run", "--suite", "quick", "--set", "mxu.rows=64", "-o", b)
	require.Equal(t, 1, code, "three kernels no longer fit a 64-row array")
	require.Contains(t, stderr, "oversized weight tile")
	code, stdout, _ = runCLI("bench", "compare", a, b, "--format", "markdown")
	require.Equal(t, 1, code)
	require.Contains(t, stdout, "| gemm.hlo/tpuv4core | fusion.2 |")
	require.Contains(t, stdout, "REGRESSION")

	code, stdout, _ = runCLI("bench", "export", a, "--format", "benchstat")
	require.Equal(t, 0, code)
	require.Regexp(t, `BenchmarkGemmHlo/chip=tpuv4core 1 \d+ cycles`, stdout)
	require.Contains(t, stdout, "sec/op")

	png := filepath.Join(dir, "trend.png")
	code, stdout, stderr = runCLI("bench", "history", a, b, "--plot", png)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "largest moves")
	require.FileExists(t, png)

	// Bad input.
	code, _, stderr = runCLI("bench", "compare", a, b, "--threshold", "cycles=lots")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `"lots" is not a non-negative number`)
	s := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(s, []byte("name: other\nentries:\n  - workload: bench/workloads/gemm.hlo\n    chips: [teach16]\n"), 0o644))
	o := filepath.Join(dir, "o.json")
	code, _, stderr = runCLI("bench", "run", "--suite", s, "-o", o)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = runCLI("bench", "compare", a, o)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "different suites")
	require.NoError(t, os.WriteFile(s, []byte("name: other\nentries:\n  - workload: nope.hlo\n    chips: [teach16]\n"), 0o644))
	code, _, stderr = runCLI("bench", "run", "--suite", s, "-o", o+"2")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "workload not found")
	code, _, stderr = runCLI("bench", "run", "--suite", "nosuch", "-o", o+"3")
	require.Equal(t, 1, code)
	require.True(t, strings.Contains(stderr, "unknown suite"), stderr)
	code, _, _ = runCLI("bench", "run", "-o", o, "--count", "0")
	require.Equal(t, 2, code)
}
