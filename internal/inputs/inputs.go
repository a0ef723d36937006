// Package inputs reads the files users hand Pulse with a bound decided
// before reading: a regular file by its size, anything else (a pipe, a
// device such as /dev/zero or /dev/stdin) by a cap on the bytes read. A
// file of the wrong kind or too large is an error naming it, never an
// out-of-memory crash. ReadIn also confines a read to a folder, as the lab
// grader needs for untrusted submissions.
package inputs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pulse-sim/pulse/internal/host"
)

// Bounds by kind of input. Sources are texts and executables (HLO,
// StableHLO, assembly, .pulse): the largest real dumps are a few MB.
// Configs are chip configs, sweep specs, suites and SCALE-Sim files.
// Arrays (.npy) are bounded by the host's memory instead (Arrays).
const (
	Sources int64 = 1 << 30
	Configs int64 = 16 << 20
	// Streams caps what is read from a file that is not regular, whose
	// size cannot be known before reading.
	Streams int64 = 256 << 20
)

// Arrays is the bound for array files: half the host's memory (8 GiB
// where it is unknown), since an array is held in memory whole and as
// float64 values besides.
func Arrays() int64 {
	if m := host.Memory(); m > 0 {
		return m / 2
	}
	return 8 << 30
}

// TooLarge is the error of an input over its bound.
type TooLarge struct {
	Name  string
	Size  int64 // -1: a stream that went on past Limit
	Limit int64
}

func (e *TooLarge) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s: not a regular file, and it gives more than the %s read from one", e.Name, human(e.Limit))
	}
	return fmt.Sprintf("%s: %s, more than the %s such an input may have", e.Name, human(e.Size), human(e.Limit))
}

func human(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFile reads name whole if it has at most limit bytes.
func ReadFile(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, name, limit, false)
}

func read(f fs.File, name string, limit int64, regularOnly bool) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case st.IsDir():
		return nil, &os.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	case st.Mode().IsRegular():
		if st.Size() > limit {
			return nil, &TooLarge{name, st.Size(), limit}
		}
		b := make([]byte, 0, st.Size()+1)
		b, err = readAll(f, b, limit)
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > limit { // it grew while read
			return nil, &TooLarge{name, int64(len(b)), limit}
		}
		return b, nil
	case regularOnly:
		return nil, &os.PathError{Op: "read", Path: name, Err: errors.New("not a regular file")}
	}
	bound := min(limit, Streams)
	b, err := readAll(f, nil, bound)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > bound {
		return nil, &TooLarge{name, -1, bound}
	}
	return b, nil
}

// readAll reads until EOF or one byte past limit.
func readAll(r io.Reader, b []byte, limit int64) ([]byte, error) {
	lr := io.LimitReader(r, limit+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// ReadIn reads name, a path as written in a file of folder dir (relative
// to that file's folder from), confined to dir: the path must lead to a
// regular file inside dir, through no symbolic link that leaves it (an
// os.Root is the guard). A lab submission's .include "/etc/passwd" or
// npy("../../x") is refused, as are "/dev/stdin" and "/dev/zero".
func ReadIn(dir, from, name string, limit int64) ([]byte, error) {
	if filepath.IsAbs(name) {
		return nil, fmt.Errorf("%s: an absolute path leaves the folder %s", name, dir)
	}
	rel, err := filepath.Rel(dir, filepath.Join(filepath.Dir(from), name))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s: the path leaves the folder %s", name, dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
			return nil, fmt.Errorf("%s: the path leaves the folder %s (through a symbolic link)", name, dir)
		}
		return nil, err
	}
	defer f.Close()
	return read(f, name, limit, true)
}
