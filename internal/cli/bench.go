package cli

import (
	"fmt"
	"io"
	"strings"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/bench"
	"github.com/spf13/cobra"
)

func newBench() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Performance-regression benchmarks: run suites, compare, export for benchstat, chart history"}
	cmd.AddCommand(newBenchRun(), newBenchCompare(), newBenchExport(), newBenchHistory())
	return cmd
}

func newBenchRun() *cobra.Command {
	var (
		suite, out string
		sets       []string
		count      int
	)
	cmd := &cobra.Command{
		Use:   "run [--suite quick|full|FILE] [--set k=v]... [--count N] -o results.json",
		Short: "Run a benchmark suite: simulated metrics, and host metrics over N repetitions",
		Long: `Run every entry of a suite (built in: ` + strings.Join(bench.BuiltinSuites(), ", ") + `; or a suite file,
docs/bench.md) and write its results: the simulated metrics (cycles, seconds,
FLOPs, MXU utilization, HBM bytes, energy, per-unit utilization, the
per-kernel table) and the host metrics of each repetition (wall time of
parse, compile and simulation; allocations; peak RSS), with provenance.
--set key=value applies to every entry's chip: a what-if on the whole suite;
--set CHIP:key=value only to the entries on that chip.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("no results file: give -o results.json")
			}
			if count < 1 {
				return usagef("--count %d: at least 1", count)
			}
			if err := checkOutputFile("-o", out); err != nil {
				return err
			}
			s, err := bench.LoadSuite(suite)
			if err != nil {
				return err
			}
			bench.Version = pulse.Version
			var bar *progress
			res, err := bench.Run(s, bench.Options{Sets: sets, Count: count, Progress: func(done, total int, r *bench.Result) {
				if bar == nil {
					bar = newProgress(cmd.ErrOrStderr(), "bench "+s.Name, total)
					bar.interval = 0 // a line per entry
				}
				note := r.Name + " " + r.Status
				if r.Status == "ok" {
					note = fmt.Sprintf("%s %v cycles", r.Name, int64(r.Sim["cycles"]))
					if f, ok := r.Sim["roof_fraction"]; ok {
						note += fmt.Sprintf(", %.0f%% of its roof", 100*f)
					}
				}
				bar.set(done, note)
			}})
			if bar != nil {
				bar.finish()
			}
			if err != nil {
				return err
			}
			if err := writeOutputWith("-o", out, func(w io.Writer) error { return res.Encode(w) }); err != nil {
				return err
			}
			ok, failed, skipped := 0, 0, 0
			for _, e := range res.Entries {
				switch e.Status {
				case "ok":
					ok++
				case "skipped":
					skipped++
				default:
					failed++
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", e.Name, strings.SplitN(e.Error, "\n", 2)[0])
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "suite %s: %d entries ran, %d failed, %d skipped (optional workloads not present); results in %s\n", s.Name, ok, failed, skipped, out)
			bench.WriteRoofSummary(cmd.OutOrStdout(), res)
			if failed > 0 {
				return fmt.Errorf("%d entries failed", failed)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&suite, "suite", "quick", "built-in suite name or suite file")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a chip key for every entry (key=value) or for one chip's entries (CHIP:key=value), repeatable")
	cmd.Flags().IntVar(&count, "count", 1, "repetitions per entry (host statistics need 6 or more)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "results file (JSON)")
	return cmd
}

func newBenchCompare() *cobra.Command {
	var (
		format     string
		thresholds []string
	)
	cmd := &cobra.Command{
		Use:   "compare OLD.json NEW.json [--threshold cycles=0.5%] [--threshold wall=10%] [--format table|markdown|json]",
		Short: "Compare two results: simulated metrics exactly, host metrics statistically; exit 1 on a regression",
		Long: `Compare two results of one suite. Simulated metrics are deterministic, so
every change is listed with its sign and percentage, with the kernels
(HLO fusions) whose cycles moved, appeared or disappeared. Host metrics are
compared as benchstat does (medians, 95% confidence intervals, a
Mann-Whitney U test, "~" when not significant).

Exit status 1 when a regression exceeds its threshold: cycles by default at
0 (any increase), others only when given (--threshold energy_joules=1%,
--threshold wall=10%: host metrics also need significance). For CI and
git bisect run.`,
		Args: exactArgs(2, "two results files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			th := bench.Thresholds{}
			for _, t := range thresholds {
				if err := bench.ParseThreshold(t, th); err != nil {
					return usageError{err}
				}
			}
			old, err := bench.ReadResults(args[0])
			if err != nil {
				return err
			}
			nw, err := bench.ReadResults(args[1])
			if err != nil {
				return err
			}
			c, err := bench.Compare(old, nw, th)
			if err != nil {
				return err
			}
			if err := c.Write(cmd.OutOrStdout(), format); err != nil {
				return usageError{err}
			}
			if c.Regressions > 0 {
				return exitError{1, fmt.Errorf("%d regressions beyond their thresholds", c.Regressions)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "table, markdown or json")
	cmd.Flags().StringArrayVar(&thresholds, "threshold", nil, "METRIC=PERCENT% a regression may reach before the exit status is 1, repeatable")
	return cmd
}

func newBenchExport() *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:   "export RESULTS.json --format benchstat [-o FILE]",
		Short: "Write results in Go's benchmark format, which benchstat reads",
		Args:  exactArgs(1, "one results file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "benchstat" {
				return usagef("--format %q: benchstat is the export format", format)
			}
			r, err := bench.ReadResults(args[0])
			if err != nil {
				return err
			}
			if out == "" {
				return r.WriteBenchstat(cmd.OutOrStdout())
			}
			return writeOutputWith("-o", out, r.WriteBenchstat)
		},
	}
	cmd.Flags().StringVar(&format, "format", "benchstat", "benchstat")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (default: standard output)")
	return cmd
}

func newBenchHistory() *cobra.Command {
	var plotPath string
	var top int
	cmd := &cobra.Command{
		Use:   "history DIR|FILES... [--plot trend.png]",
		Short: "Results of one suite over revisions: a table, the largest moves, a trend chart",
		Args:  rangeArgs(1, 1<<20, "results files or a directory of them"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if plotPath != "" {
				if err := checkOutputFile("--plot", plotPath); err != nil {
					return err
				}
			}
			rs, files, err := bench.LoadHistory(args)
			if err != nil {
				return err
			}
			labels := make([]string, len(files))
			for i := range files {
				labels[i] = fmt.Sprint(i + 1)
			}
			if err := bench.WriteHistory(cmd.OutOrStdout(), rs, labels, top); err != nil {
				return err
			}
			if plotPath != "" {
				if err := bench.PlotHistory(rs, plotPath); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", plotPath)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&plotPath, "plot", "", "draw the trend chart into this file (.png, .svg, .pdf)")
	cmd.Flags().IntVar(&top, "top", 10, "how many of the largest moves to list")
	return cmd
}
