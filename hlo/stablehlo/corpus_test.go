package stablehlo

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const corpusDir = "../../../shared/corpus/stablehlo"

// TestCorpusOnEvaluator runs every JAX-exported StableHLO test of the
// shared corpus on the host evaluator and reports the figures; no file may
// fail with wrong numbers.
func TestCorpusOnEvaluator(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.mlir"))
	if len(files) == 0 {
		t.Skip("../shared/corpus/stablehlo is not present")
	}
	count := map[string]int{}
	reasons := map[string]int{}
	for _, f := range files {
		o := TestFile(f, nil)
		count[o.Status]++
		if o.Status != Pass {
			msg := o.Message
			if i := strings.Index(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
			if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(o.Status, "u") {
				msg = msg[i+2:]
			}
			if len(msg) > 80 {
				msg = msg[:80]
			}
			reasons[o.Status+": "+msg]++
		}
		if o.Status == Fail {
			t.Logf("%s: %s", filepath.Base(f), o.Message)
		}
	}
	t.Logf("%d files: %d pass, %d fail, %d within rounding noise, %d unsupported, %d errors", len(files), count[Pass], count[Fail], count[Rounding], count[Unsupported], count[ErrorStatus])
	// Today's figures (docs/coverage.md) as a floor: a change that loses a
	// passing file or adds a failure shows here.
	// The failure: random_gamma_float64, 10 f64 ulps from XLA (not
	// explained by rounding). Within rounding
	// noise: one ill-conditioned f32 triangular_solve, whose expected
	// values are LAPACK's.
	if count[Pass] < 371 || count[Fail] > 1 || count[ErrorStatus] > 0 {
		t.Errorf("expected at least 371 passing, at most 1 failing, no errors")
	}
	var rs []string
	for r := range reasons {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return reasons[rs[i]] > reasons[rs[j]] })
	for i, r := range rs {
		if i == 25 {
			break
		}
		t.Logf("%4d %s", reasons[r], r)
	}
}
