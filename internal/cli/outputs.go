package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Outputs are checked before any work starts, so that a long run never
// fails at the end for a path it could have refused at once; and if
// writing still fails at the end, what was computed goes to a temporary
// file whose path the error names.

// checkOutputFile reports whether path can be written: its directory
// exists and is a directory, path is not a directory, and a file there can
// be created or opened for writing (a file the check creates is removed).
func checkOutputFile(flag, path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: the directory %s does not exist", flag, path, dir)
	case err != nil:
		return fmt.Errorf("%s %s: %v", flag, path, err)
	case !st.IsDir():
		return fmt.Errorf("%s %s: %s is a file, not a directory", flag, path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s %s: is a directory", flag, path)
	}
	_, existed := os.Stat(path)
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("%s %s: cannot be written: %v", flag, path, errors.Unwrap(err))
	}
	fh.Close()
	if existed != nil {
		os.Remove(path)
	}
	return nil
}

// checkOutputDir creates dir (and its parents) and checks that files can
// be written in it.
func checkOutputDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s %s: is a file, not a directory", flag, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s %s: %v", flag, dir, errors.Unwrap(err))
	}
	probe, err := os.CreateTemp(dir, ".pulse-check-*")
	if err != nil {
		return fmt.Errorf("%s %s: files cannot be written there: %v", flag, dir, errors.Unwrap(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// writeOutput writes data to path. If that fails it writes the data to a
// temporary file instead and returns an error naming both: the work is
// never thrown away.
func writeOutput(flag, path string, data []byte) error {
	err := os.WriteFile(path, data, 0o644)
	if err == nil {
		return nil
	}
	fh, terr := os.CreateTemp("", "pulse-*-"+filepath.Base(path))
	if terr != nil {
		return fmt.Errorf("%s %s: %v (and no temporary file could hold it: %v)", flag, path, err, terr)
	}
	_, werr := fh.Write(data)
	cerr := fh.Close()
	if werr != nil || cerr != nil {
		return fmt.Errorf("%s %s: %v (and writing %s failed too)", flag, path, err, fh.Name())
	}
	return fmt.Errorf("%s %s: %v; the output is in %s", flag, path, err, fh.Name())
}

// writeOutputWith is writeOutput for a writer function.
func writeOutputWith(flag, path string, fn func(io.Writer) error) error {
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		return fmt.Errorf("%s %s: %v", flag, path, err)
	}
	return writeOutput(flag, path, b.Bytes())
}
