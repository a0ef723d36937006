// Package corpus finds the shared test corpora for tests: the folder
// ../shared/corpus beside the repository (real HLO dumps, XLA's test
// modules, JAX programs with XLA's outputs). Tests that need it skip
// cleanly when it is absent, so a clean clone's tests still pass.
package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/internal/npy"
)

var (
	dirOnce sync.Once
	dir     string
)

// Dir is the shared corpus folder, found from the working directory (a
// package's folder under go test) by walking up to the module root; ""
// when it is not there.
func Dir() string {
	dirOnce.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			return
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				c := filepath.Join(filepath.Dir(d), "shared", "corpus")
				if st, err := os.Stat(c); err == nil && st.IsDir() {
					dir = c
				}
				return
			}
			if filepath.Dir(d) == d {
				return
			}
		}
	})
	return dir
}

// Path joins elem to the corpus folder, skipping t when the corpus is
// absent.
func Path(t testing.TB, elem ...string) string {
	d := Dir()
	if d == "" {
		t.Skip("../shared/corpus is not present: corpus test skipped")
	}
	return filepath.Join(append([]string{d}, elem...)...)
}

// HLOFiles lists the real HLO dumps (corpus/hlo/*.hlo), skipping t when
// there are none.
func HLOFiles(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(Dir(), "hlo", "*.hlo"))
	if Dir() == "" || len(files) == 0 {
		t.Skip("../shared/corpus is not present: corpus tests skipped")
	}
	return files
}

// XLACase is one module of XLA's test sources (hlo-xla-tests.jsonl): the
// source file and test it was cut from, its line there and its text.
type XLACase struct {
	Source string `json:"source"`
	Test   string `json:"test"`
	Line   int    `json:"line"`
	Text   string `json:"text"`
}

// xlaCases opens XLA's test-module corpus, nil when absent.
func xlaCases() (*os.File, *bufio.Scanner) {
	if Dir() == "" {
		return nil, nil
	}
	f, err := os.Open(filepath.Join(Dir(), "hlo-xla-tests.jsonl"))
	if err != nil {
		return nil, nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return f, sc
}

// ForEachXLACase calls f with every module of XLA's tests corpus (t is
// skipped when the corpus is not present; a malformed line fails it).
func ForEachXLACase(t testing.TB, f func(c XLACase)) {
	file, sc := xlaCases()
	if file == nil {
		t.Skip("../shared/corpus/hlo-xla-tests.jsonl is not present")
	}
	defer file.Close()
	for sc.Scan() {
		var c XLACase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("hlo-xla-tests.jsonl: %v", err)
		}
		f(c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("hlo-xla-tests.jsonl: %v", err)
	}
}

// XLACaseTexts is the text of the first n modules of XLA's tests corpus,
// none when it is absent (fuzz seeds).
func XLACaseTexts(n int) []string {
	file, sc := xlaCases()
	if file == nil {
		return nil
	}
	defer file.Close()
	var out []string
	for len(out) < n && sc.Scan() {
		var c XLACase
		if json.Unmarshal(sc.Bytes(), &c) == nil {
			out = append(out, c.Text)
		}
	}
	return out
}

// Glob lists the corpus files matching pattern (a path inside the corpus,
// "hlo/*.hlo"), none when the corpus is absent: for fuzz seeds, which must
// not skip.
func Glob(pattern string) []string {
	if Dir() == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(Dir(), pattern))
	return files
}

// JAXInputs binds a JAX corpus program's inputs (dir/in.N.npy) to its
// parameters as --in flags ("N=path"): jax.jit drops the arguments a
// function does not use (layernorm_backward's beta), so input N is
// parameter N only until one is dropped; an input whose shape is not the
// next parameter's is skipped.
func JAXInputs(t testing.TB, dir, name string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, name+".hlo"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := hlo.Parse(name, string(src))
	if err != nil {
		t.Fatal(err)
	}
	params := map[int64]*hlo.Instruction{}
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpParameter {
			params[in.ParamNumber] = in
		}
	}
	var out []string
	next := int64(0)
	for i := 0; next < int64(len(params)); i++ {
		p := filepath.Join(dir, fmt.Sprintf("in.%d.npy", i))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("parameter %d of %s has no input: %v", next, name, err)
		}
		a, err := npy.Read(data)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(a.Shape, params[next].Shape.Dims, func(x int, y int64) bool { return int64(x) == y }) {
			continue // dropped by jax.jit
		}
		out = append(out, fmt.Sprintf("%d=%s", next, p))
		next++
	}
	return out
}
