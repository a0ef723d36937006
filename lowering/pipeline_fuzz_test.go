package lowering_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/hlogen"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// The differential fuzzer: random valid HLO modules (internal/hlogen)
// compiled for teach16 and tpuv4core, simulated, and compared with the
// reference evaluator by the same check as `pulse simulate --check`. A
// module a chip refuses (a positioned "cannot lower") is no finding; an
// internal error, a failed run, a wrong number, or a timing-only run whose
// cycle count differs from the value run's is.

var fuzzChips = sync.OnceValues(func() ([]*runtime.Client, error) {
	var cs []*runtime.Client
	for _, name := range []string{"teach16", "tpuv4core"} {
		c, err := config.Load(name, nil)
		if err != nil {
			return nil, err
		}
		cs = append(cs, runtime.NewClient(c))
	}
	return cs, nil
})

// checkPipeline runs src through the whole pipeline on every chip and
// returns, per chip, why the lowering refused it ("" when it compiled and
// passed); anything wrong is an error that names the chip and shows the
// module.
// maxPipelineCycles bounds a generated module's run.
const maxPipelineCycles = 1e8

func checkPipeline(src string) ([]string, error) {
	fail := func(format string, a ...any) ([]string, error) {
		return nil, fmt.Errorf("%s\n--- module:\n%s", fmt.Sprintf(format, a...), src)
	}
	m, err := hlo.Parse("fuzz.hlo", src)
	if err == nil {
		err = verify.Verify("fuzz.hlo", m)
	}
	if err != nil {
		return fail("the generator made an invalid module: %v", err)
	}
	args, err := eval.RandomArgsWithin(m, 1, 1<<20)
	if err != nil {
		return fail("arguments: %v", err)
	}
	// Random records for the infeeds (which read one shape: hlogen).
	infeed, _ := eval.RandomInfeed(m, 1, 16)
	ev := &eval.Evaluator{File: "fuzz.hlo", M: m, MaxLiveElements: 1 << 20, MaxWhileIterations: 100, Infeed: infeed}
	// Evaluated once for both chips: the reference was the slowest part of
	// some generated modules (a dead argmax reduce-window over 33K outputs
	// took 2 s a run, and a run a chip made the input 7.8 s, near the 10 s
	// after which Go's fuzzer calls a worker hung).
	want, err := check.Reference(ev, args)
	if err != nil {
		return fail("the evaluator: %v", err)
	}
	chips, err := fuzzChips()
	if err != nil {
		return nil, err
	}
	var outs []string
	for _, c := range chips {
		x, err := c.Compile("fuzz.hlo", m)
		if err != nil {
			var le *lowering.Error
			if errors.As(err, &le) {
				outs = append(outs, le.Opcode+": "+le.Reason)
				continue
			}
			return fail("%s: compile: %v", c.Chip.Name, err)
		}
		// The limit catches a hang; generated code that is merely slow
		// (a thousand tiny batched dots: 10M cycles, 0.2 s) stays under it.
		r, err := c.Execute(x, args, runtime.ExecOptions{MaxCycles: maxPipelineCycles, Infeed: infeed})
		if err != nil {
			return fail("%s: run: %v", c.Chip.Name, err)
		}
		rep, err := check.CheckAgainst(ev, args, want, append(r.Outputs, eval.OutfeedLeaves(r.Outfeed)...))
		if err != nil {
			return fail("%s: check: %v", c.Chip.Name, err)
		}
		for i, o := range rep.Outputs {
			if !o.Pass() {
				return fail("%s: output %d differs from the evaluator's: %d elements, first [%d] got %v want %v",
					c.Chip.Name, i, o.Diff.Mismatches, o.Diff.First, o.Diff.FirstGot, o.Diff.FirstWant)
			}
		}
		t, err := c.Execute(x, nil, runtime.ExecOptions{TimingOnly: true, MaxCycles: maxPipelineCycles, Infeed: infeed})
		var ni *runtime.NeedsInputError
		switch {
		case errors.As(err, &ni):
		case err != nil:
			return fail("%s: timing-only run: %v", c.Chip.Name, err)
		case t.Report.Cycles != r.Report.Cycles:
			return fail("%s: timing-only run takes %d cycles, the value run %d", c.Chip.Name, t.Report.Cycles, r.Report.Cycles)
		}
		outs = append(outs, "")
	}
	return outs, nil
}

// FuzzPipeline is the differential fuzzer. `.ci/run` runs it briefly. Go
// writes a finding's bytes to testdata/fuzz/FuzzPipeline; those bytes make
// another module once the generator changes, so keep the module instead,
// minimized by hand, in testdata/pipeline (TestPipelineFindings), and
// delete the bytes.
func FuzzPipeline(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 16 {
		b := make([]byte, 64)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := checkPipeline(hlogen.Generate(data)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPipelineRandomModules runs a fixed set of generated modules: every
// one must pass or be refused on both chips, and most must compile, or
// the fuzzer would be testing nothing.
func TestPipelineRandomModules(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewPCG(7, 11))
	var ran, compiled int
	reasons := map[string]int{}
	for range n {
		b := make([]byte, 96)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		src := hlogen.Generate(b)
		outs, err := checkPipeline(src)
		require.NoError(t, err)
		for _, o := range outs {
			ran++
			if o == "" {
				compiled++
			} else {
				reasons[o]++
			}
		}
	}
	t.Logf("%d modules, %d of %d chip runs compiled and passed", n, compiled, ran)
	var rs []string
	for r, k := range reasons {
		rs = append(rs, fmt.Sprintf("%4d %s", k, r))
	}
	slices.Sort(rs)
	slices.Reverse(rs)
	t.Logf("refused:\n%s", strings.Join(rs, "\n"))
	require.Greater(t, compiled, ran*2/3, "most generated modules should compile")
}

// TestPipelineFindings keeps what the fuzzer found, minimized by hand into
// testdata/pipeline (each file says what went wrong): every module must
// compile on both chips and pass, or, marked "// expect: refused", be
// refused by both with a positioned reason.
func TestPipelineFindings(t *testing.T) {
	files, err := filepath.Glob("testdata/pipeline/*.hlo")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			outs, err := checkPipeline(string(src))
			require.NoError(t, err)
			refuse := strings.Contains(string(src), "// expect: refused")
			for i, o := range outs {
				if refuse {
					require.NotEmpty(t, o, "chip %d compiled it", i)
					t.Logf("refused: %s", o)
				} else {
					require.Empty(t, o, "chip %d refused it", i)
				}
			}
		})
	}
}
