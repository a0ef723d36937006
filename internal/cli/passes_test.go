package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pulse compile --dump-after writes the module after each pass the
// pattern names (whole names), and refuses a pattern that names none
// before any work.
func TestCompileDumpAfter(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "m.hlo", "ENTRY e {\n  a = f32[8,4] parameter(0)\n  b = f32[16,4] parameter(1)\n  t = f32[4,16] transpose(b), dimensions={1,0}\n  ROOT d = f32[8,16] dot(a, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n")
	dumps := filepath.Join(dir, "dumps")
	code, _, stderr := runCLI("compile", src, "--chip", "tpuv4core", "--emit-asm", filepath.Join(dir, "m.s"), "--no-cache",
		"--dump-after", "expand-complex|fold-dot-transposes", "--dump-dir", dumps, "--verify-passes")
	require.Equal(t, 0, code, stderr)
	entries, err := os.ReadDir(dumps)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{"m.01.expand-complex.hlo", "m.55.fold-dot-transposes.hlo"}, names)
	before := string(mustRead(t, filepath.Join(dumps, names[0])))
	after := string(mustRead(t, filepath.Join(dumps, names[1])))
	require.Contains(t, before, "transpose(")
	require.NotContains(t, after, "transpose(", "the transpose folds into the dot")
	require.Contains(t, after, "rhs_contracting_dims={1}")

	code, out, stderr := runCLI("passes")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "55 fold-dot-transposes")

	for _, c := range []struct{ pattern, msg string }{
		{"fold", "names no pass; the passes, in order: expand-complex"},
		{"(", "error parsing regexp"},
	} {
		code, _, stderr = runCLI("compile", src, "--emit-asm", filepath.Join(dir, "x.s"), "--dump-after", c.pattern, "--dump-dir", filepath.Join(dir, "never"))
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, c.msg)
		require.NoFileExists(t, filepath.Join(dir, "x.s"))
		require.NoDirExists(t, filepath.Join(dir, "never"))
		require.False(t, strings.Contains(stderr, "panic"))
	}
}
