package inputs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("12345"), 0o644))
	b, err := ReadFile(p, 5)
	require.NoError(t, err)
	require.Equal(t, "12345", string(b))
	_, err = ReadFile(p, 4)
	require.EqualError(t, err, p+": 5 bytes, more than the 4 bytes such an input may have")
	_, err = ReadFile(dir, 100)
	require.ErrorContains(t, err, "is a directory")
	// A device that never ends is cut at the bound, not read to exhaustion.
	_, err = ReadFile("/dev/zero", 1<<20)
	require.EqualError(t, err, "/dev/zero: not a regular file, and it gives more than the 1 MiB read from one")
	b, err = ReadFile("/dev/null", 1<<20)
	require.NoError(t, err)
	require.Empty(t, b)
}

func TestReadInConfines(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "sub")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "inc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inc", "a.s"), []byte("ok"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(top, "secret"), []byte("no"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(top, "secret"), filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink("a.s", filepath.Join(dir, "inc", "inner")))
	from := filepath.Join(dir, "k.s")

	b, err := ReadIn(dir, from, "inc/a.s", 100)
	require.NoError(t, err)
	require.Equal(t, "ok", string(b))
	b, err = ReadIn(dir, filepath.Join(dir, "inc", "x.s"), "inner", 100)
	require.NoError(t, err, "a link that stays inside is followed")
	require.Equal(t, "ok", string(b))
	for name, msg := range map[string]string{
		"/etc/passwd": "an absolute path leaves the folder",
		"../secret":   "the path leaves the folder",
		"inc/../../x": "the path leaves the folder",
		"link":        "through a symbolic link",
		"/dev/stdin":  "an absolute path leaves the folder",
		"inc":         "is a directory",
		"missing.s":   "no such file",
	} {
		_, err := ReadIn(dir, from, name, 100)
		require.ErrorContains(t, err, msg, name)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big"), make([]byte, 101), 0o644))
	_, err = ReadIn(dir, from, "big", 100)
	require.ErrorContains(t, err, "101 bytes, more than the 100 bytes")
}
