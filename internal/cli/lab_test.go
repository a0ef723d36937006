package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLabCommands(t *testing.T) {
	code, out, _ := runCLI("lab", "list", "--json")
	require.Zero(t, code)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.GreaterOrEqual(t, len(list), 7)
	for _, l := range list {
		for _, k := range []string{"name", "title", "chip", "grades"} {
			require.NotEmpty(t, l[k], "lab list --json: %s", k)
		}
	}
	code, out, _ = runCLI("lab", "list")
	require.Zero(t, code)
	require.Contains(t, out, "overlap")

	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	code, out, _ = runCLI("lab", "start", "gemm", mine)
	require.Zero(t, code)
	require.Contains(t, out, "pulse lab check gemm")
	require.FileExists(t, filepath.Join(mine, "kernel.s"))
	require.FileExists(t, filepath.Join(mine, "README.md"))
	// A student's work is never overwritten.
	require.NoError(t, os.WriteFile(filepath.Join(mine, "kernel.s"), []byte("; my work\n"), 0o644))
	code, _, errs := runCLI("lab", "start", "gemm", mine)
	require.Equal(t, 1, code)
	require.Contains(t, errs, "already exists")
	b, _ := os.ReadFile(filepath.Join(mine, "kernel.s"))
	require.Equal(t, "; my work\n", string(b))

	sol := filepath.Join(dir, "sol")
	code, _, _ = runCLI("lab", "solution", "3", sol) // by number too
	require.Zero(t, code)
	code, out, _ = runCLI("lab", "check", "gemm", sol, "--seed", "5")
	require.Zero(t, code)
	require.Contains(t, out, "score 100.00 / 100.00")

	res := filepath.Join(dir, "results.json")
	code, _, _ = runCLI("lab", "check", "gemm", mine, "--format", "gradescope", "-o", res)
	require.Zero(t, code, "a failing kernel is a score, not an error")
	var gs map[string]any
	b, err := os.ReadFile(res)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &gs))
	require.Contains(t, gs, "tests")
	require.Zero(t, gs["score"])

	code, out, _ = runCLI("lab", "check", "gemm", sol, "--format", "json", "--seed", "5")
	require.Zero(t, code)
	var js map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &js))
	require.InDelta(t, 100, js["score"], 1e-9)

	for _, bad := range [][]string{
		{"lab", "check", "nosuchlab"},
		{"lab", "check", "gemm", sol, "--format", "xml"},
		{"lab", "start", "gemm"},
	} {
		code, _, _ := runCLI(bad...)
		require.Equal(t, 2, code, "%v", bad)
	}
	code, _, errs = runCLI("lab", "check", "gemm", filepath.Join(dir, "typo"))
	require.Equal(t, 1, code)
	require.Contains(t, errs, "no such folder")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "afile"), nil, 0o644))
	code, _, errs = runCLI("lab", "start", "gemm", filepath.Join(dir, "afile"))
	require.Equal(t, 1, code)
	require.Contains(t, errs, "is a file, not a folder")
	code, _, errs = runCLI("lab", "check", "gemm", sol, "-o", filepath.Join(dir, "nodir", "r.json"))
	require.Equal(t, 1, code)
	require.Contains(t, errs, "does not exist")
}
