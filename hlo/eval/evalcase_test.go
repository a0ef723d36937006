package eval

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// The evaluator's op cases live in testdata/eval/*.hlo: each is a module
// whose leading comments give its arguments and hand-computed results,
//
//	// in: f32[2] {1, 2}        one line per parameter, in order
//	// out: f32[2] {2, 4}       one line per result (per tuple element)
//	// tol: 1e-6                optional: relative tolerance (default 0)
//
// so that the same corpus can later run through the lowering and the
// simulator. With tol 0 results must match bit for bit (NaN matches NaN);
// the tolerances used are listed in docs/hlo.md.

type evalCase struct {
	file string
	src  string
	in   []*Value
	out  []*Value
	tol  float64
}

// literal parses "shape {values}" by evaluating it as a constant.
func literal(text string) (*Value, error) {
	shape, lit, ok := strings.Cut(strings.TrimSpace(text), " ")
	if !ok {
		return nil, fmt.Errorf("want `shape literal`, got %q", text)
	}
	m, err := hlo.Parse("literal", fmt.Sprintf("ENTRY e {\n ROOT c = %s constant(%s)\n}\n", shape, lit))
	if err != nil {
		return nil, err
	}
	return (&Evaluator{File: "literal", M: m}).Run(nil)
}

func loadEvalCase(t *testing.T, file string) evalCase {
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	c := evalCase{file: file, src: string(src)}
	for i, line := range strings.Split(c.src, "\n") {
		key, val, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "//"), ":")
		if !strings.HasPrefix(strings.TrimSpace(line), "//") || !ok {
			continue
		}
		where := fmt.Sprintf("%s:%d", file, i+1)
		switch strings.TrimSpace(key) {
		case "in", "out":
			v, err := literal(val)
			require.NoError(t, err, where)
			if strings.TrimSpace(key) == "in" {
				c.in = append(c.in, v)
			} else {
				c.out = append(c.out, v)
			}
		case "tol":
			c.tol, err = strconv.ParseFloat(strings.TrimSpace(val), 64)
			require.NoError(t, err, where)
		}
	}
	require.NotEmpty(t, c.out, "%s: no // out: line", file)
	return c
}

func sameNumber(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if tol == 0 {
		return got == want && math.Signbit(got) == math.Signbit(want)
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func TestEvalCases(t *testing.T) {
	files, err := filepath.Glob("testdata/eval/*.hlo")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	// Every case runs twice: as the evaluator holds values by default, and
	// with every array packed between uses (evalstore.go).
	for _, pack := range []int{packMin, 1} {
		for _, f := range files {
			t.Run(fmt.Sprintf("%s/packMin=%d", filepath.Base(f), pack), func(t *testing.T) {
				defer func(n int) { packMin = n }(packMin)
				packMin = pack
				testEvalCase(t, f)
			})
		}
	}
}

func testEvalCase(t *testing.T, f string) {
	c := loadEvalCase(t, f)
	m, err := hlo.Parse(f, c.src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify(f, m))
	v, err := (&Evaluator{File: f, M: m, Seed: 1}).Run(c.in)
	require.NoError(t, err)
	results := []*Value{v}
	if v.Tuple != nil && len(c.out) > 1 || v.Tuple != nil && c.out[0].Tuple == nil {
		results = v.Tuple
	}
	require.Len(t, results, len(c.out), "results")
	for k, want := range c.out {
		got := results[k]
		require.Equal(t, want.Shape.String(), got.Shape.String(), "result %d shape", k)
		for i := range want.Data {
			if !sameNumber(got.Data[i], want.Data[i], c.tol) {
				t.Fatalf("result %d element %d: got %v, want %v (tol %g)\ngot  %v\nwant %v",
					k, i, got.Data[i], want.Data[i], c.tol, got.Data, want.Data)
			}
		}
	}
}

// TestEvalCasesCoverEveryOp: every op the evaluator implements has at least
// one case in testdata/eval.
func TestEvalCasesCoverEveryOp(t *testing.T) {
	files, err := filepath.Glob("testdata/eval/*.hlo")
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		m, err := hlo.Parse(f, string(src))
		require.NoError(t, err, f)
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				seen[in.Opcode] = true
			}
		}
	}
	var missing []string
	for _, op := range EvaluatorOps() {
		if !seen[op] {
			missing = append(missing, op)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "ops without a case in testdata/eval")
}
