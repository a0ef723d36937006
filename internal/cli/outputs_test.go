package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// Output paths are checked before any work: each of these fails at once,
// before compiling or simulating, and names the flag and what is wrong.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	aFile := write(t, dir, "a_file", "x")
	hloSrc := write(t, dir, "m.hlo", "ENTRY e {\n  a = f32[4] parameter(0)\n  ROOT b = f32[4] add(a, a)\n}\n")
	kernel := write(t, dir, "k.s", goodKernel)
	missing := filepath.Join(dir, "missing", "r.json")
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"simulate --out-dir is a file", []string{"simulate", hloSrc, "--random-inputs", "1", "--out-dir", aFile}, "--out-dir " + aFile + ": is a file, not a directory"},
		{"simulate --json in a missing directory", []string{"simulate", hloSrc, "--random-inputs", "1", "--json", missing}, "--json " + missing + ": the directory " + filepath.Dir(missing) + " does not exist"},
		{"simulate --emit-asm in a missing directory", []string{"simulate", hloSrc, "--random-inputs", "1", "--emit-asm", missing}, "--emit-asm " + missing + ": the directory"},
		{"simulate --trace under a file", []string{"simulate", hloSrc, "--random-inputs", "1", "--trace", filepath.Join(aFile, "t.json")}, aFile + " is a file, not a directory"},
		{"simulate --json is a directory", []string{"simulate", hloSrc, "--random-inputs", "1", "--json", dir}, "--json " + dir + ": is a directory"},
		{"run --json in a missing directory", []string{"run", kernel, "--json", missing}, "--json " + missing + ": the directory"},
		{"run --out in a missing directory", []string{"run", kernel, "--out", "y=" + missing}, "the directory"},
		{"compile -o under a file", []string{"compile", hloSrc, "-o", filepath.Join(aFile, "x.pulse")}, "is a file, not a directory"},
		{"hlo eval --out-dir is a file", []string{"hlo", "eval", hloSrc, "--random-inputs", "1", "--out-dir", aFile}, "is a file, not a directory"},
		{"asm -o in a missing directory", []string{"asm", kernel, "-o", missing}, "the directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(c.args...)
			require.Equal(t, 1, code, stderr)
			require.Contains(t, stderr, c.msg)
			require.NotContains(t, stdout+stderr, "cycles", "no work was done")
		})
	}
	_, err := os.Stat(filepath.Join(dir, "missing"))
	require.True(t, os.IsNotExist(err), "checking creates no directories it was not asked to")
}

// A write that fails at the end still leaves the output in a temporary
// file whose path the error names.
func TestWriteOutputFallsBack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gone", "r.json")
	err := writeOutput("--json", path, []byte(`{"cycles": 1}`))
	require.Error(t, err)
	m := regexp.MustCompile(`the output is in (\S+)$`).FindStringSubmatch(err.Error())
	require.Len(t, m, 2, err.Error())
	b, rerr := os.ReadFile(m[1])
	require.NoError(t, rerr)
	require.Equal(t, `{"cycles": 1}`, string(b))
	os.Remove(m[1])
	require.NoError(t, writeOutput("--json", filepath.Join(dir, "ok.json"), []byte("x")))
}
