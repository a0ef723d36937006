package hlo_test

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/spmd"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/stretchr/testify/require"
)

// TestXLATestModulesOnDevices evaluates every verified module of XLA's
// tests that runs on several devices (by its header, or by what its
// collectives span when the test harness set the count) on those devices,
// with random inputs, the same on every device (small modules: up to 4096
// parameter elements). None may crash or hit an internal evaluator error;
// the others name why (an op not evaluated across devices, a deadlock the
// module itself has, ...).
func TestXLATestModulesOnDevices(t *testing.T) {
	digits := regexp.MustCompile(`[0-9]+`)
	var multi, evaluated, internal int
	reasons := map[string]int{}
	corpus.ForEachXLACase(t, func(c corpus.XLACase) {
		m, err := hlo.Parse("case.hlo", c.Text)
		if err != nil || verify.Verify("case.hlo", m) != nil {
			return
		}
		d, err := hlo.ModuleDevices(m)
		if err != nil {
			return
		}
		if need := hlo.ImpliedDevices(m); d.N() < need.N() {
			if d.N() > 1 || need.N() > hlo.MaxDevices {
				return // a header that contradicts the collectives
			}
			d = need
		}
		if d.N() < 2 || eval.ParamElements(m) > 1<<12 {
			return
		}
		multi++
		// The same arguments on every device, as XLA's test harness gives
		// replicated runs (a loop whose condition is a parameter runs as
		// often on each).
		args := make([][]*eval.Value, d.N())
		one, err := eval.RandomArgsWithin(m, 1, 1<<12)
		for i := range args {
			args[i] = one
		}
		if err != nil {
			reasons["random arguments: "+err.Error()]++
			return
		}
		ev := &eval.Evaluator{File: "case.hlo", M: m, MaxLiveElements: 1 << 20, MaxWhileIterations: 1000}
		if _, err := spmd.RunDevices(ev, d, args); err != nil {
			msg := err.Error()
			if strings.Contains(msg, "internal evaluator error") {
				if internal++; internal <= 5 {
					t.Logf("internal: %s:%d: %v", c.Source, c.Line, err)
				}
			}
			if i := strings.LastIndex(msg, ": "); i >= 0 && !strings.Contains(msg, "deadlock") {
				msg = msg[i+2:]
			}
			if i := strings.Index(msg, " wait for"); i >= 0 {
				msg = "deadlock" + msg[i:]
			}
			reasons[digits.ReplaceAllString(msg, "N")]++
			return
		}
		evaluated++
	})
	type rc struct {
		r string
		n int
	}
	var rs []rc
	for r, k := range reasons {
		rs = append(rs, rc{r, k})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].n > rs[j].n || rs[i].n == rs[j].n && rs[i].r < rs[j].r })
	for i, r := range rs {
		if i < 20 {
			t.Logf("%5d %.120s", r.n, r.r)
		}
	}
	t.Logf("XLA tests on several devices: %d small verified modules, %d evaluated on their devices, %d internal errors", multi, evaluated, internal)
	require.Zero(t, internal)
	require.GreaterOrEqual(t, evaluated, 440, "a floor: 448 evaluated when it was set")
}
