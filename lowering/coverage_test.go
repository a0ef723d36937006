package lowering_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/eval/spmd"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

var (
	update = flag.Bool("update", false, "rewrite docs/coverage.md")
	full   = flag.Bool("full", false, "TestCoverage: check the big models too (MobileNet-v2, Llama TP1: 30 minutes and 16 GB more)")
	only   = flag.String("only", "", "TestCoverage: regenerate only these comma-separated files' rows of docs/coverage.md")
)

const corpusDir = "../../shared/corpus/hlo"

// hyperparameters binds the scalar parameters of a corpus training step
// that random values in [-1, 1) would make meaningless. With MobileNet-v2's
// ReLU6 bound drawn negative, clamp(0, x, bound) turns every activation into
// one constant, and the next batch norm divides the rounding noise of a
// zero-variance channel by sqrt(eps): the result then measures nothing but
// how each side rounds (docs/RATIONALE.md "Training steps get their
// hyperparameters"). The values are the model's own; pulse simulate takes
// them as --in NAME=VALUE.
var hyperparameters = map[string][]struct {
	param string
	value float64
	what  string
}{
	"torchxla_mobilenet_v2.hlo": {
		{"p12.42", 6, "ReLU6's upper bound (hardtanh max_val)"},
		{"p314.2029", 96000, "the loss's divisor (mean over the [96,1000] logits)"},
		{"p315.2045", 0.8, "dropout's keep probability (p = 0.2)"},
		{"p317.2351", 49, "the 7x7 average pool's divisor"},
	},
}

// bindHyperparameters overwrites the random values of file's
// hyperparameters and returns them as pulse simulate flags.
func bindHyperparameters(t *testing.T, file string, m *hlo.Module, args []*eval.Value) string {
	var flags []string
	for _, h := range hyperparameters[file] {
		var p *hlo.Instruction
		for _, in := range m.Entry.Instructions {
			if in.Opcode == hlo.OpParameter && in.Name == h.param {
				p = in
			}
		}
		require.NotNil(t, p, "%s has no parameter %s", file, h.param)
		v, err := eval.Filled(p.Shape, h.value)
		require.NoError(t, err)
		args[p.ParamNumber] = v
		flags = append(flags, fmt.Sprintf("--in %s=%g", h.param, h.value))
	}
	return strings.Join(flags, " ")
}

// coverageStatus compiles one corpus file for a chip and, when it
// compiles and is small enough for the host evaluator, simulates it on
// random inputs and checks every output against the evaluator.
func coverageStatus(t *testing.T, path, chipName string) string {
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	file := filepath.Base(path)
	m, err := hlo.Parse(file, string(src))
	if err != nil {
		return "does not parse: " + firstLine(err)
	}
	if err := verify.Verify(file, m); err != nil {
		return "does not verify: " + firstLine(err)
	}
	c, err := config.Load(chipName, nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	devs, err := lowering.DeviceCount(m)
	if err != nil {
		return "not lowered: " + firstLine(err)
	}
	x, err := client.CompileDevices(file, m, devs)
	if err != nil {
		return "not lowered: " + firstLine(err)
	}
	note := ""
	if devs.N() > 1 {
		note = fmt.Sprintf(" for %d devices (%s)", devs.N(), devs)
	}
	if len(x.Unfused) > 0 {
		note += fmt.Sprintf(" (%d fusions run unfused)", len(x.Unfused))
	}
	// Parameters up to 64 M elements, the evaluator's live values up to
	// 256 M (2 GiB of float64) and the work up to 20 GFLOP: the test stays
	// within minutes on 2 cores. -full lifts the budgets to what a 24 GB
	// host holds and to 1 TFLOP, five times MobileNet-v2's 0.19 TFLOP, the
	// largest module the corpus simulates. The work is counted as the run does
	// it, while bodies times their trip counts (analysis.ExecutedCost): counted
	// once, a 20-trip loop of a 0.55 TFLOP dot passed a 1 PFLOP budget and
	// ran for hours.
	budget, evalBudget, flopBudget := int64(1<<26), int64(1<<28), 20e9
	if *full {
		budget, evalBudget, flopBudget = 1<<31, 1<<31, 1e12
	}
	if eval.ParamElements(m) > budget {
		return fmt.Sprintf("compiles, %d kernels%s; not simulated here (parameters beyond the test budget)", len(x.Kernels), note)
	}
	if k, unknown := analysis.ExecutedCost(m); float64(k.FLOPs) > flopBudget {
		loops := ""
		if len(unknown) > 0 {
			loops = fmt.Sprintf(", counting %d loops of unknown trip count once", len(unknown))
		}
		return fmt.Sprintf("compiles, %d kernels%s; not simulated here (%s as run%s, beyond the test's budget of %s)",
			len(x.Kernels), note, flopText(k.FLOPs), loops, flopText(int64(flopBudget)))
	}
	if devs.N() > 1 {
		return devicesCoverage(client, file, m, x, devs, budget, evalBudget, note)
	}
	args, err := eval.RandomArgsWithin(m, 1, budget)
	if err != nil {
		return "compiles; " + firstLine(err)
	}
	if flags := bindHyperparameters(t, file, m, args); flags != "" {
		note += " (with `" + flags + "`)"
	}
	// The simulation first, then the evaluator, as pulse simulate --check
	// does: the two never hold the host's memory together.
	// Infeed reads random records, as --random-infeed 8 gives them.
	infeed, _ := eval.RandomInfeed(m, 1, 8)
	if len(infeed) > 0 {
		note += fmt.Sprintf(" (with `--random-infeed %d`)", len(infeed))
	}
	races := &core.Races{}
	r, err := client.Execute(x, args, runtime.ExecOptions{MaxCycles: 2e9, Infeed: infeed, Observers: []core.Observer{races}})
	if err != nil {
		return fmt.Sprintf("compiles, %d kernels%s; simulation fails: %s", len(x.Kernels), note, firstLine(err))
	}
	if races.Count > 0 { // as pulse simulate --check fails
		return fmt.Sprintf("FAILS --check: %d unordered accesses (a missing wait), first: %s%s", races.Count, strings.ReplaceAll(races.Found[0].String(), "|", "\\|"), note)
	}
	outputs, cycles := append(r.Outputs, eval.OutfeedLeaves(r.Outfeed)...), r.Report.Cycles // r, and the machine, are dead past here
	debug.FreeOSMemory()
	rep, err := check.Check(&eval.Evaluator{File: file, M: m, MaxLiveElements: evalBudget, Infeed: infeed}, args, outputs)
	if err != nil {
		return fmt.Sprintf("compiles, %d kernels%s; the reference evaluator stops: %s", len(x.Kernels), note, firstLine(err))
	}
	noisy := 0
	for i, o := range rep.Outputs {
		d := o.Diff
		if !o.Pass() {
			if o.Noise >= 0 {
				d = o.Within
			}
			return fmt.Sprintf("FAILS --check: output %d %s: %d elements beyond tolerance (rounding noise %.3g), max abs error %.3g (first [%d] %v, want %v)%s",
				i, outputs[i].Shape, d.Mismatches, o.Noise, d.MaxAbs, d.First, d.FirstGot, d.FirstWant, note)
		}
		if d.Mismatches > 0 {
			noisy++
		}
	}
	if noisy > 0 {
		note += fmt.Sprintf(" (%d outputs within %dx their rounding noise)", noisy, check.NoiseFactor)
	}
	return fmt.Sprintf("**passes --check**: %d kernels%s, %d cycles", len(x.Kernels), note, cycles)
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.ReplaceAll(s, "|", "\\|")
}

// TestCoverage writes docs/coverage.md: every corpus file's status on
// teach16 and tpuv4core. It takes minutes, so it runs only with -update
// (go test ./lowering -run TestCoverage -update -timeout 60m); -full checks
// MobileNet-v2 and Llama TP1 too (another half hour, 16 GB of memory).
func TestCoverage(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate docs/coverage.md")
	}
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.hlo"))
	if len(files) == 0 {
		t.Skip("corpus not present")
	}
	if *only != "" {
		updateCoverageRows(t, strings.Split(*only, ","))
		return
	}
	var b strings.Builder
	cmd, budget := "go test ./lowering -run TestCoverage -update -timeout 60m", `when it compiles and its parameters fit the
test's budget (64 M elements; the evaluator's live values up to 256 M, its work up to
20 GFLOP)`
	if *full {
		cmd, budget = "go test ./lowering -run TestCoverage -update -full -timeout 180m", `when it compiles (with -full the budgets
are what a 24 GB host holds: parameters and the evaluator's live values up to 2 G elements, and
1 TFLOP of work as the module runs, while bodies times their trip counts)`
	}
	b.WriteString(`# Lowering coverage of the HLO corpus

Generated by ` + "`" + cmd + "`" + `: every file of
../shared/corpus/hlo compiled for each chip and, ` + budget + `, simulated on random inputs (seed 1; a training step's hyperparameters bound to the model's own
values, shown as the flags that bind them) with every output compared
to the HLO reference evaluator within the dtype-aware tolerance of docs/hlo.md — what
` + "`pulse simulate FILE --chip CHIP --random-inputs 1 --check`" + ` does. A failure names the
first op that cannot be lowered, its position and the reason.

`)
	pass := map[string]int{}
	for _, chip := range []string{"teach16", "tpuv4core"} {
		fmt.Fprintf(&b, "## %s\n\n| file | status |\n|---|---|\n", chip)
		for _, f := range files {
			start := time.Now()
			st := coverageStatus(t, f, chip)
			if strings.HasPrefix(st, "**passes") {
				pass[chip]++
			}
			fmt.Fprintf(&b, "| %s | %s |\n", filepath.Base(f), st)
			t.Logf("%s %s (%v): %s", chip, filepath.Base(f), time.Since(start).Round(time.Millisecond), st)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Passing: teach16 %d of %d, tpuv4core %d of %d.\n", pass["teach16"], len(files), pass["tpuv4core"], len(files))
	// The sections after the HLO corpus's (the StableHLO corpus, written
	// from pulse stablehlo test's figures) are kept.
	if old, err := os.ReadFile("../docs/coverage.md"); err == nil {
		if i := strings.Index(string(old), "\n"+keptSection); i >= 0 {
			b.WriteString("\n\n" + string(old[i+1:]))
		}
	}
	require.NoError(t, os.WriteFile("../docs/coverage.md", []byte(b.String()), 0o644))
}

// keptSection starts what TestCoverage keeps of docs/coverage.md.
const keptSection = "## StableHLO"

// updateCoverageRows regenerates the rows of the named corpus files in the
// existing docs/coverage.md (both chips), recounts the passing rows and
// records which rows were regenerated and how: a full regeneration takes
// hours, a changed op a few files.
func updateCoverageRows(t *testing.T, names []string) {
	b, err := os.ReadFile("../docs/coverage.md")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	want := map[string]bool{}
	for _, n := range names {
		want[strings.TrimSpace(n)] = true
	}
	chip := ""
	pass := map[string]int{}
	total := map[string]int{}
	done := map[string]int{}
	var out, earlier []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "## "):
			chip = strings.TrimPrefix(l, "## ")
		case strings.HasPrefix(l, "Passing: "):
			continue
		case strings.HasPrefix(l, "Rows regenerated"):
			// The rows regenerated before stay listed: the list is every
			// row newer than the last full run.
			if _, list, ok := strings.Cut(l, "`: "); ok {
				for _, n := range strings.Split(strings.TrimSuffix(list, "."), ", ") {
					if n != "" && !slices.Contains(earlier, n) {
						earlier = append(earlier, n)
					}
				}
			}
			continue
		case strings.HasPrefix(l, "| ") && chip != "" && !strings.HasPrefix(l, "| file |"):
			name := strings.TrimSpace(strings.SplitN(strings.TrimPrefix(l, "| "), "|", 2)[0])
			if want[name] {
				st := coverageStatus(t, filepath.Join(corpusDir, name), chip)
				l = fmt.Sprintf("| %s | %s |", name, st)
				done[name]++
			}
			total[chip]++
			if strings.Contains(l, "| **passes") {
				pass[chip]++
			}
		}
		out = append(out, l)
	}
	for n := range want {
		require.Equal(t, 2, done[n], "%s: not a row of docs/coverage.md for both chips", n)
	}
	sorted := append([]string(nil), earlier...)
	for _, n := range names {
		if n = strings.TrimSpace(n); !slices.Contains(sorted, n) {
			sorted = append(sorted, n)
		}
	}
	slices.Sort(sorted)
	summary := []string{fmt.Sprintf("Passing: teach16 %d of %d, tpuv4core %d of %d.", pass["teach16"], total["teach16"], pass["tpuv4core"], total["tpuv4core"]), "",
		fmt.Sprintf("Rows regenerated since by `go test ./lowering -run TestCoverage -update%s -only=FILES`: %s.", map[bool]string{true: " -full"}[*full], strings.Join(sorted, ", ")), ""}
	// The summary closes the HLO corpus's sections, before the kept ones.
	at := len(out)
	for i, l := range out {
		if strings.HasPrefix(l, keptSection) {
			at = i
			break
		}
	}
	for at > 0 && out[at-1] == "" {
		at--
	}
	out = slices.Concat(out[:at], []string{""}, summary, []string{""}, out[at:])
	// One blank line between blocks, however often the rows are redone.
	out = slices.CompactFunc(out, func(a, b string) bool { return a == "" && b == "" })
	require.NoError(t, os.WriteFile("../docs/coverage.md", []byte(strings.TrimRight(strings.Join(out, "\n"), "\n")+"\n"), 0o644))
}

// flopText is a FLOP count in GFLOP below 1e12, else TFLOP.
func flopText(f int64) string {
	if f < 1e12 {
		return fmt.Sprintf("%.0f GFLOP", float64(f)/1e9)
	}
	return fmt.Sprintf("%.1f TFLOP", float64(f)/1e12)
}

// devicesCoverage simulates a module of several devices on its devices
// (device i's random inputs from seed 1+i, as pulse simulate gives them)
// and checks every device's outputs against the evaluator's RunDevices.
func devicesCoverage(client *runtime.Client, file string, m *hlo.Module, x *runtime.Executable, d hlo.Devices, budget, evalBudget int64, note string) string {
	n := int64(d.N())
	if eval.ParamElements(m)*n > budget {
		return fmt.Sprintf("compiles, %d kernels%s; not simulated here (parameters of all devices beyond the test budget)", len(x.Kernels), note)
	}
	args := make([][]*eval.Value, n)
	for i := range args {
		a, err := eval.RandomArgsWithin(m, 1+uint64(i), budget/n)
		if err != nil {
			return "compiles" + note + "; " + firstLine(err)
		}
		args[i] = a
	}
	r, err := client.ExecuteDevices(x, args, runtime.ExecOptions{MaxCycles: 2e9})
	if err != nil {
		return fmt.Sprintf("compiles, %d kernels%s; simulation fails: %s", len(x.Kernels), note, firstLine(err))
	}
	outs := make([][]*eval.Value, n)
	for i, dr := range r.Devices {
		outs[i] = dr.Outputs
	}
	cycles := r.Cycles
	r = nil
	debug.FreeOSMemory()
	want, err := spmd.RunDevices((&eval.Evaluator{File: file, M: m, MaxLiveElements: evalBudget}), d, args)
	if err != nil {
		return fmt.Sprintf("compiles, %d kernels%s; the reference evaluator stops: %s", len(x.Kernels), note, firstLine(err))
	}
	for i := range outs {
		for k, w := range eval.Leaves(want[i]) {
			if df := check.Compare(outs[i][k], w); df.Mismatches > 0 {
				return fmt.Sprintf("FAILS --check: device %d output %d %s: %d elements beyond tolerance, max abs error %.3g (first [%d] %v, want %v)%s",
					i, k, w.Shape, df.Mismatches, df.MaxAbs, df.First, df.FirstGot, df.FirstWant, note)
			}
		}
	}
	return fmt.Sprintf("**passes --check**: %d kernels%s, %d cycles (the last device to finish)", len(x.Kernels), note, cycles)
}
