package cli

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/pulse-sim/pulse/traces"
	"github.com/spf13/cobra"
)

// compileFlags are what compile and simulate share.
type compileFlags struct {
	chip     string
	sets     []string
	topology string
	noCache  bool
	emitAsm  string
	devices  deviceFlags
	passes   passFlags
	// whole runs a sharded but unpartitioned module on one chip, as if
	// unsharded (--no-partition); part is what Pulse's partitioner made
	// of such a module otherwise.
	whole bool
	part  *partitioned
}

func (f *compileFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.chip, "chip", "teach16", "chip preset name or config file (pulse chips lists them)")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a chip config key (key=value), repeatable")
	cmd.Flags().StringVar(&f.topology, "topology", "", "the devices' slice as a torus, sizes joined by x (16x16, 4x4x4; --set ici.topology=...): collectives along its dimensions run as on a TPU torus")
	cmd.Flags().BoolVar(&f.noCache, "no-cache", false, "compile afresh, neither reading nor writing the executable cache")
	cmd.Flags().StringVar(&f.emitAsm, "emit-asm", "", "write the generated assembly to this file")
	f.devices.register(cmd)
	f.passes.register(cmd)
	cmd.Flags().BoolVar(&f.whole, "no-partition", false, "run a sharded but unpartitioned module whole on one chip, as if unsharded, instead of partitioning it over its devices")
}

// compile reads, verifies and compiles an HLO file through the runtime API.
func (f *compileFlags) compile(path string) (*runtime.Client, *hlo.Module, *runtime.Executable, error) {
	sets := f.sets
	if f.topology != "" {
		sets = append(slices.Clone(sets), "ici.topology="+f.topology)
	}
	c, err := config.Load(f.chip, sets)
	if err != nil {
		return nil, nil, nil, err
	}
	m, err := readHLO(path)
	if err != nil {
		return nil, nil, nil, err
	}
	errw := io.Writer(os.Stderr)
	if f.devices.cmd != nil {
		errw = f.devices.cmd.ErrOrStderr()
	}
	if f.part, err = partitionIfSharded(errw, path, m, f.whole); err != nil {
		return nil, nil, nil, err
	}
	if f.part != nil {
		m = f.part.res.Module
		if err := verify.Verify(path+" (as Pulse partitioned it)", m); err != nil {
			return nil, nil, nil, fmt.Errorf("internal error: the partitioned module does not verify (please report this with the module): %v", err)
		}
	}
	client := runtime.NewClient(c)
	if client.Options, err = f.passes.options(path); err != nil {
		return nil, nil, nil, err
	}
	if f.noCache {
		client.CacheDir = ""
	}
	d, err := f.devices.resolve(path, m)
	if err != nil {
		return nil, nil, nil, err
	}
	x, err := client.CompileDevices(path, m, d)
	if err != nil {
		return nil, nil, nil, err
	}
	if f.emitAsm != "" {
		if err := writeOutput("--emit-asm", f.emitAsm, []byte(x.Asm)); err != nil {
			return nil, nil, nil, err
		}
	}
	return client, m, x, nil
}

func newCompile() *cobra.Command {
	var (
		f         compileFlags
		out       string
		memory    bool
		memoryTop int
		xlaMemory string
	)
	cmd := &cobra.Command{
		Use:   "compile MODEL.hlo --chip NAME -o MODEL.pulse [--emit-asm MODEL.s] [--memory [--xla-memory META.json]]",
		Short: "Compile an HLO module to a Pulse executable",
		Long: `Compile an HLO module for a chip: fuse it, lower every kernel to the Pulse
ISA and assemble the program. --emit-asm writes the assembly, each kernel
headed by its HLO instruction and every instruction annotated with the HLO op
it implements. Compiled programs are cached (see pulse simulate).

--memory prints the program's HBM at its peak, as XProf's memory viewer shows
XLA's: the bytes needed, what holds them (parameters, outputs, temporaries,
constants) and every array live there, largest first, with its HLO op and
line. --xla-memory FILE puts XLA's buffer assignment beside it: the fields of
jax's compiled.memory_analysis() as JSON, alone or under "xla_memory" (as the
corpus's meta.json files hold them). A program too big for the chip still
gets its report: raise memory.hbm_bytes with --set to see it whole.`,
		Args: exactArgs(1, "one HLO file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if xlaMemory != "" && !memory {
				return usagef("--xla-memory goes with --memory")
			}
			if memoryTop < 0 {
				return usagef("--memory-top %d: want 0 (all) or more", memoryTop)
			}
			if out == "" && f.emitAsm == "" && !memory {
				return usagef("give -o FILE.pulse, --emit-asm FILE.s, --memory, or several")
			}
			var xla *XLAMemory
			if xlaMemory != "" {
				x, err := readXLAMemory(xlaMemory)
				if err != nil {
					return err
				}
				xla = &x
			}
			if err := checkOutputFile("-o", out); err != nil {
				return err
			}
			if err := checkOutputFile("--emit-asm", f.emitAsm); err != nil {
				return err
			}
			_, _, x, err := f.compile(args[0])
			if err != nil {
				return err
			}
			if out != "" {
				b, err := x.Program.Marshal()
				if err != nil {
					return err
				}
				if err := writeOutput("-o", out, b); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d kernels, %d instructions, compiled in %.3f s%s\n",
				args[0], len(x.Kernels), len(x.Program.Code), x.CompileTime.Seconds(), cacheNote(x))
			if memory {
				return writeMemoryReport(cmd.OutOrStdout(), x.HBM, memoryTop, xla)
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the executable to this file")
	cmd.Flags().BoolVar(&memory, "memory", false, "print what is live at the program's HBM peak")
	cmd.Flags().IntVar(&memoryTop, "memory-top", 30, "with --memory, list the largest N arrays (0: all)")
	cmd.Flags().StringVar(&xlaMemory, "xla-memory", "", "with --memory, XLA's memory_analysis() figures (JSON) to print beside Pulse's")
	return cmd
}

func cacheNote(x *runtime.Executable) string {
	if x.CacheHit {
		return " (cache hit)"
	}
	return ""
}

func newSimulate() *cobra.Command {
	var (
		f          compileFlags
		obs        observeFlags
		ins        []string
		seed       int64
		outDir     string
		timingOnly bool
		jsonPath   string
		check      bool
		maxCycles  int64
		memory     string
		feed       feedFlags
		devices    string
	)
	cmd := &cobra.Command{
		Use:   "simulate MODEL.hlo --chip NAME [--in name=x.npy ... | --random-inputs SEED] [--out-dir DIR] [--timing-only] [--json report.json] [--check]",
		Short: "Compile an HLO module and run it on a simulated chip",
		Long: `Compile an HLO module for a chip (through the executable cache) and simulate
it cycle by cycle: the outputs, the cycle count, the utilization report and a
per-kernel table (HLO fusion, cycles, FLOPs, bytes, arithmetic intensity, the
roof that bounds it and the fraction of that roof reached).

Parameters are bound with --in by name or number, to a .npy file or to a
number that fills them (--in p12=6: a hyperparameter such as a clamp bound or
a dropout rate); --random-inputs SEED fills the others with values uniform in
[-1, 1) (integers in [0, 8)). Outputs are written to --out-dir as .npy (out.npy, or one
out.N.npy per tuple element). --check also runs the HLO reference evaluator
on the same inputs and fails, with a per-output error report, if any output
differs beyond the dtype-aware tolerance (docs/hlo.md), and watches the run
for unordered accesses (a missing wait in the generated code, whose values
would depend on timing), failing with the two instructions when it sees one.

A module with infeed reads its records from host memory through the chip's
host link: --infeed DIR gives them (DIR/0.npy, DIR/1.npy, ...; a tuple
record as DIR/0.0.npy, DIR/0.1.npy, ...), --random-infeed N queues N random
ones. What outfeed sends is written to --out-dir as outfeed.N.npy (or
outfeed.N.K.npy) and checked by --check like an output.

--trace, --pprof, --roofline and --csv write a Perfetto timeline, a pprof
cycle profile (stacks: HLO fusion, HLO instruction, kernel, instruction), a
roofline chart and the per-kernel table as CSV (docs/observability.md).
--pprof also writes the assembly beside the profile (FILE.s) unless
--emit-asm names it, so that go tool pprof -list shows it.`,
		Args: exactArgs(1, "one HLO file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxCycles < 0 {
				return usagef("--max-cycles %d: the limit must be a positive number of cycles (0: the default)", maxCycles)
			}
			if timingOnly && (check || outDir != "") {
				return usagef("--check and --out-dir need values: drop --timing-only")
			}
			if err := obs.validate(); err != nil {
				return err
			}
			// Every output path before any work: a long run must not fail
			// at the end for a path it could have refused now.
			for _, o := range []struct{ flag, path string }{{"--json", jsonPath}, {"--emit-asm", f.emitAsm}} {
				if err := checkOutputFile(o.flag, o.path); err != nil {
					return err
				}
			}
			if err := checkOutputDir("--out-dir", outDir); err != nil {
				return err
			}
			client, m, x, err := f.compile(args[0])
			if err != nil {
				return err
			}
			asmFile := f.emitAsm
			if asmFile == "" && obs.pprof != "" {
				asmFile = strings.TrimSuffix(strings.TrimSuffix(obs.pprof, ".gz"), ".pb") + ".s"
				if err := writeOutput("--pprof", asmFile, []byte(x.Asm)); err != nil {
					return err
				}
			}
			limit, err := parseBytes(memory)
			if err != nil {
				return usagef("--max-memory %s: %v", memory, err)
			}
			if err := runtime.CheckHostMemory(x, timingOnly); err != nil {
				return err
			}
			limit /= 8 // float64 elements
			if check {
				if err := checkBudgetFirst(args[0], m, memory, limit/int64(max(x.Devices.N(), 1))); err != nil {
					return err
				}
			}
			if devices != "all" && devices != "one" {
				return usagef("--devices %s: want all or one", devices)
			}
			if x.Devices.N() > 1 {
				if feed.given(cmd) {
					return usagef("--infeed and --random-infeed are not available on several devices (%s)", x.Devices)
				}
				if devices == "one" && (!timingOnly || check || outDir != "") {
					return usagef("--devices one simulates device 0 alone and computes no values: it needs --timing-only (and no --check or --out-dir)")
				}
				return simulateDevices(cmd, client, m, x, args[0], asmFile, ins, seed, cmd.Flags().Changed("random-inputs"), limit,
					maxCycles, &obs, jsonPath, outDir, check, timingOnly, devices == "one", f.part)
			}
			// Timing-only runs take inputs when given: control flow may
			// depend on them (without them such a run refuses).
			var vals []*eval.Value
			if !timingOnly || len(ins) > 0 || cmd.Flags().Changed("random-inputs") {
				if vals, err = bindArgs(m, ins, seed, cmd.Flags().Changed("random-inputs"), timingOnly, limit); err != nil {
					return err
				}
			}
			infeed, err := feed.records(m, seed, limit)
			if err != nil {
				return err
			}
			bar := newRunProgress(cmd.ErrOrStderr(), "simulate (program position)", len(x.Program.Code))
			observers := append(obs.observers(x.Source(args[0], asmFile)), &traces.Progress{Report: func(done, total int) { bar.set(done, "") }})
			// --check watches for races too: the compiler's own missing
			// wait shows in values only for some latencies, and says
			// where it is only here.
			var races *core.Races
			if check {
				races = &core.Races{}
				observers = append(observers, races)
			}
			r, err := client.Execute(x, vals, runtime.ExecOptions{TimingOnly: timingOnly, MaxCycles: maxCycles,
				Observers: observers, Infeed: infeed})
			bar.finish()
			if err != nil {
				return obs.failed(cmd.ErrOrStderr(), err)
			}
			w := cmd.OutOrStdout()
			if err := writeRunReport(w, &obs, r); err != nil {
				return err
			}
			if jsonPath != "" {
				if err := writeOutput("--json", jsonPath, r.JSON()); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s on %s: %d kernels; compile %.3f s%s, simulation %.3f s, %d cycles\n",
				args[0], client.Chip.Name, len(x.Kernels), x.CompileTime.Seconds(), cacheNote(x), r.ExecTime.Seconds(), r.Report.Cycles)
			if err := obs.write(cmd.ErrOrStderr(), r.Report, r.Kernels); err != nil {
				return err
			}
			if timingOnly {
				return nil
			}
			if err := writeOutputs(w, r.Outputs, len(x.Outputs) > 1 || x.Fused.Entry.Root.Shape.IsTuple, outDir); err != nil {
				return err
			}
			if err := writeOutfeed(w, r.Outfeed, outDir); err != nil {
				return err
			}
			if err := raceFailure(cmd.ErrOrStderr(), races); err != nil {
				return fmt.Errorf("--check: %w", err)
			}
			if check {
				// The simulated machine's memory image (every HBM page the
				// program touched) is garbage once the outputs are read:
				// collect it before the evaluator builds its float64 values,
				// so that the two never hold the host's memory together
				// (MobileNet-v2's --check needs this to fit 24 GB).
				// (r is dead past this point; the observers hold the model.)
				outputs := append(r.Outputs, eval.OutfeedLeaves(r.Outfeed)...)
				obs.timeline, obs.profile, obs.explainer = nil, nil, nil
				debug.FreeOSMemory()
				return checkOutputs(w, cmd.ErrOrStderr(), args[0], m, vals, infeed, outputs, len(r.Outputs), limit)
			}
			return nil
		},
	}
	f.register(cmd)
	obs.register(cmd.Flags())
	cmd.Flags().StringArrayVar(&ins, "in", nil, "bind a parameter (by name or number) to a .npy file or fill it with a number, repeatable")
	cmd.Flags().Int64Var(&seed, "random-inputs", 0, "fill unbound parameters with random values from this seed")
	cmd.Flags().StringVar(&outDir, "out-dir", "", "write the outputs as .npy files into this directory")
	cmd.Flags().StringVar(&devices, "devices", "all", "on several devices, simulate all of them, or one: device 0 standing for every device of the SPMD program (timing-only; exact when their timelines are symmetric)")
	cmd.Flags().BoolVar(&timingOnly, "timing-only", false, "compute only the values that steer control flow: the same cycles, faster (inputs are needed only when control flow depends on them)")
	cmd.Flags().StringVar(&jsonPath, "json", "", "write the report as JSON to this file")
	cmd.Flags().BoolVar(&check, "check", false, "compare the outputs with the HLO reference evaluator's")
	cmd.Flags().Int64Var(&maxCycles, "max-cycles", 0, "stop the simulation after this many cycles (0: the default, 10,000,000,000)")
	cmd.Flags().StringVar(&memory, "max-memory", "2GiB", "the most host memory the inputs and --check's evaluator may take as float64 values (e.g. 8GiB)")
	feed.register(cmd)
	return cmd
}

// writeRunReport writes one chip's run as simulate prints it: the report,
// the kernel table, --explain's phases and what the cycles leave out.
func writeRunReport(w io.Writer, obs *observeFlags, r *runtime.Result) error {
	if err := r.Report.WriteTable(w); err != nil {
		return err
	}
	if err := writeKernelTable(w, r.Kernels); err != nil {
		return err
	}
	fmt.Fprintln(w, r.HBM.Summary())
	if err := obs.writeExplain(w, r.Report); err != nil {
		return err
	}
	if obs.explainer != nil {
		writeModelLines(w, r.Kernels, r.Report.Cycles)
	}
	writeNotModelled(w, r.NotModelled)
	writeApproximated(w, r.Approximated)
	return nil
}

// writeApproximated says which of the module's work took longer than the
// hardware's fused kernel would (the cycles are an upper bound).
func writeApproximated(w io.Writer, ap []lowering.NotModelled) {
	if len(ap) == 0 {
		return
	}
	fmt.Fprintf(w, "upper bound: %d instructions ran by a slower algorithm than their fused kernel, so the cycles overstate them:\n", len(ap))
	for i, n := range ap {
		if i == 3 {
			fmt.Fprintf(w, "  ... and %d more (--json lists them all)\n", len(ap)-i)
			break
		}
		fmt.Fprintf(w, "  %s: %s: %s\n", n.At, n.Op, n.What)
	}
}

// writeKernelTable prints the per-kernel table; when the module's
// metadata names the model's source lines (XLA's source_file and
// source_line, a StableHLO export's debug locations), a SOURCE column
// gives each kernel's file (without its directories) and line.
func writeKernelTable(w io.Writer, ks []runtime.KernelStats) error {
	t := tablewriter.NewTable(w)
	header := []any{"KERNEL", "KIND", "RUNS", "CYCLES", "FLOPS", "BYTES", "FLOP/BYTE", "BOUND", "ACHIEVED"}
	sources := slices.ContainsFunc(ks, func(k runtime.KernelStats) bool { return k.Source != "" })
	if sources {
		header = append(header, "SOURCE")
	}
	t.Header(header...)
	for _, k := range ks {
		achieved := fmt.Sprintf("%.1f%%", 100*k.Achieved)
		if k.Bound == "interconnect" {
			achieved = "-" // no roof of the chip's (the devices table has the link's figures)
		}
		row := []any{k.Name, k.Kind, fmt.Sprint(k.Runs), fmt.Sprint(k.Cycles), fmt.Sprint(k.FLOPs), fmt.Sprint(k.Bytes),
			fmt.Sprintf("%.2f", k.Intensity), k.Bound, achieved}
		if sources {
			row = append(row, shortSource(k.Source))
		}
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	return t.Render()
}

// shortSource is file:line without the file's directories ("-" for none).
func shortSource(s string) string {
	if s == "" {
		return "-"
	}
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		return s[i+1:]
	}
	return s
}

// maxModelLines is how many of the model's lines --explain lists.
const maxModelLines = 5

// writeModelLines says, after --explain's phases, which lines of the
// model's program the cycles went to: the kernels' cycles summed by their
// source line, the largest first (nothing when the module names none).
func writeModelLines(w io.Writer, ks []runtime.KernelStats, total int64) {
	type line struct {
		src             string
		cycles, kernels int64
	}
	by := map[string]*line{}
	var order []*line
	var unknown int64
	for _, k := range ks {
		if k.Source == "" {
			unknown += k.Cycles
			continue
		}
		l := by[k.Source]
		if l == nil {
			l = &line{src: k.Source}
			by[k.Source] = l
			order = append(order, l)
		}
		l.cycles += k.Cycles
		l.kernels++
	}
	if len(order) == 0 || total <= 0 {
		return
	}
	slices.SortStableFunc(order, func(a, b *line) int { return cmp.Compare(b.cycles, a.cycles) })
	fmt.Fprintf(w, "  model lines (kernel cycles by the source line their HLO names):\n")
	for i, l := range order {
		if i == maxModelLines {
			fmt.Fprintf(w, "    ... and %d more lines (the kernel table's SOURCE column, --json's kernels)\n", len(order)-i)
			break
		}
		fmt.Fprintf(w, "    %5.1f%% %12d cycles %5d kernel(s)  %s\n", 100*float64(l.cycles)/float64(total), l.cycles, l.kernels, l.src)
	}
	if unknown > 0 {
		fmt.Fprintf(w, "    %5.1f%% %12d cycles                  (kernels with no source line)\n", 100*float64(unknown)/float64(total), unknown)
	}
}

// checkBudgetFirst refuses --check before the simulation when the
// reference evaluator is sure to pass its budget (each device's share of
// it): found after a long simulation, that failure wasted the run.
func checkBudgetFirst(file string, m *hlo.Module, memory string, limit int64) error {
	need, at := eval.EvalLowerBound(m)
	if need <= limit || at == nil {
		return nil
	}
	return fmt.Errorf("%s:%d:%d: --check: the reference evaluator would hold at least %d MiB of float64 values at %s, beyond the %d MiB that --max-memory %s gives it; raise --max-memory or drop --check (nothing was simulated)",
		file, at.Pos.Line, at.Pos.Col, need*8>>20, at.Name, limit*8>>20, memory)
}

// checkOutputs runs the reference evaluator and compares (hlo.Check): an
// output beyond its dtype tolerance is measured against up to
// eval.NoiseSamples perturbed reference runs, and passes when rounding
// alone moves it nearly as far.
func checkOutputs(w, errw io.Writer, file string, m *hlo.Module, args, infeed, got []*eval.Value, nout int, limit int64) error {
	start := time.Now()
	// The heap may grow by the values' budget and the evaluator's working
	// room over what the simulation left in it.
	heap := eval.HeapBytes() + limit*8 + evalOverhead
	bar := newRunProgress(errw, "check (reference evaluator)", len(m.Entry.Instructions))
	rep, err := check.Check(&eval.Evaluator{File: file, M: m, MaxLiveElements: limit, MaxHeapBytes: heap, Infeed: infeed,
		Progress: func(done, total int) { bar.set(done, "") }}, args, got)
	bar.finish()
	if err != nil {
		return fmt.Errorf("--check: the reference evaluator failed: %v", err)
	}
	t := tablewriter.NewTable(w)
	header := []any{"OUTPUT", "SHAPE", "MAX ABS ERR", "MAX REL ERR", "MISMATCHES", "FIRST MISMATCH"}
	if rep.Perturbed {
		header = append(header, "ROUNDING NOISE")
	}
	t.Header(append(header, "RESULT")...)
	noisy := 0
	for i, o := range rep.Outputs {
		d := o.Diff
		first, res := "-", "ok"
		if d.Mismatches > 0 {
			first = fmt.Sprintf("[%d] %v, want %v", d.First, d.FirstGot, d.FirstWant)
			res = "FAIL"
			if o.Pass() {
				res, noisy = "ok, within noise", noisy+1
			}
		}
		name := fmt.Sprint(i)
		if i >= nout {
			name = fmt.Sprintf("outfeed %d", i-nout) // the outfeed records' arrays
		}
		row := []any{name, got[i].Shape.String(), fmt.Sprintf("%.3g", d.MaxAbs), fmt.Sprintf("%.3g", d.MaxRel), fmt.Sprint(d.Mismatches), first}
		if rep.Perturbed {
			n := "-"
			if o.Noise >= 0 {
				n = fmt.Sprintf("%.3g", o.Noise)
			}
			row = append(row, n)
		}
		if err := t.Append(append(row, res)...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if rep.Perturbed {
		runs := "a reference run"
		if rep.PerturbedRuns > 1 {
			runs = fmt.Sprintf("%d reference runs", rep.PerturbedRuns)
		}
		fmt.Fprintf(w, "check: %d outputs beyond the dtype tolerance were measured against %s with Monte Carlo arithmetic (every rounded result moved by up to an ulp); %d of them are within %d times the largest rounding noise measured there (docs/hlo.md)\n",
			noisy+rep.Failed, runs, noisy, check.NoiseFactor)
	}
	if rep.Failed > 0 {
		return fmt.Errorf("--check: %d of %d outputs differ from the reference beyond tolerance", rep.Failed, len(rep.Outputs))
	}
	fmt.Fprintf(w, "check: every output matches the reference evaluator (%.3f s, at most %d MiB of values)\n", time.Since(start).Seconds(), 8*rep.PeakLiveElements>>20)
	return nil
}

// writeNotModelled says which of the module's work the cycles leave out,
// beside the report that would otherwise present them as the whole.
func writeNotModelled(w io.Writer, nm []lowering.NotModelled) {
	if len(nm) == 0 {
		return
	}
	var bytes int64
	for _, n := range nm {
		bytes += n.Bytes
	}
	fmt.Fprintf(w, "not modelled: %d instructions' work (%s per execution) is not in the cycles:\n", len(nm), bytesStr(bytes))
	for i, n := range nm {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more (--json lists them all)\n", len(nm)-i)
			break
		}
		fmt.Fprintf(w, "  %s: %s: %s (%s)\n", n.At, n.Op, n.What, bytesStr(n.Bytes))
	}
}
