package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/sweep"
	"github.com/spf13/cobra"
)

func newSweep() *cobra.Command {
	var (
		chipName, out, shard          string
		sets, axes, zips, where, mets []string
		jobs                          int
		resume, values, kernels       bool
		maxCycles                     int64
	)
	cmd := &cobra.Command{
		Use:   "sweep [SPEC.yaml] [WORKLOAD...] --chip NAME|FILE [--axis KEY=V1,V2,...]... -o DIR",
		Short: "Run workloads over a grid of chip configurations: parallel, resumable, sharded",
		Long: `Run every workload (HLO modules, kernels .s/.pulse, SCALE-Sim topologies .csv)
at every point of a grid of chip configurations, timing-only by default
(exact: the value run's cycles). Results go to DIR as the points finish:
results.jsonl (one line per point), then results.csv in point order and
sweep.json (the manifest). Docs: docs/sweeps.md.

Axis values: a list (mxu.dataflow=ws,os,is), a range (hbm.bandwidth_gbps=100:1000:100)
or a geometric range (mxu.rows=32:256:x2). --zip mxu.rows,mxu.cols moves axes
together; --where "mxu.rows * mxu.cols <= 65536" drops points. pulse chip keys
lists every key. A spec file holds the same; flags override it.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec := &sweep.Spec{}
			if len(args) > 0 && (strings.HasSuffix(args[0], ".yaml") || strings.HasSuffix(args[0], ".yml")) {
				s, err := sweep.LoadSpec(args[0])
				if err != nil {
					return err
				}
				spec, args = s, args[1:]
			}
			if len(args) > 0 {
				spec.Workloads = args
			}
			f := cmd.Flags()
			if f.Changed("chip") {
				spec.Chip = chipName
			}
			spec.Set = append(spec.Set, sets...)
			for _, a := range axes {
				key, vals, ok := strings.Cut(a, "=")
				if !ok || key == "" {
					return usagef("--axis %q: want KEY=VALUES", a)
				}
				vs, err := sweep.ParseValues(vals)
				if err != nil {
					return usagef("--axis %s: %v", key, err)
				}
				replaced := false
				for i := range spec.Axes {
					if spec.Axes[i].Key == key {
						spec.Axes[i].Values, replaced = vs, true
					}
				}
				if !replaced {
					spec.Axes = append(spec.Axes, sweep.Axis{Key: key, Values: vs})
				}
			}
			for _, z := range zips {
				spec.Zip = append(spec.Zip, strings.Split(z, ","))
			}
			spec.Constraints = append(spec.Constraints, where...)
			if len(mets) > 0 {
				spec.Metrics = mets
			}
			if f.Changed("values") {
				spec.Values = values
			}
			if f.Changed("kernels") {
				spec.Kernels = kernels
			}
			if f.Changed("max-cycles") {
				if maxCycles < 0 {
					return usagef("--max-cycles %d: must not be negative", maxCycles)
				}
				spec.MaxCycles = maxCycles
			}
			if f.Changed("jobs") && jobs < 1 {
				return usagef("--jobs %d: at least 1", jobs)
			}
			sh, err := sweep.ParseShard(shard)
			if err != nil {
				return usageError{err}
			}
			if out == "" {
				return usagef("no results directory: give -o DIR")
			}
			plan, err := sweep.Expand(spec)
			if err != nil {
				return err
			}
			sweep.Version = pulse.Version
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			total := len(sh.Select(plan.Points))
			errw := cmd.ErrOrStderr()
			fmt.Fprintf(errw, "sweep: %d points (%d workloads x %d chip configurations", total, len(plan.Workloads), len(plan.Points)/len(plan.Workloads))
			if plan.Dropped > 0 {
				fmt.Fprintf(errw, ", %d configurations dropped by constraints", plan.Dropped)
			}
			if sh.N > 1 {
				fmt.Fprintf(errw, ", shard %s of %d in all", sh, len(plan.Points))
			}
			fmt.Fprintf(errw, ") -> %s\n", out)
			var bar *progress
			sum, err := sweep.Run(ctx, plan, sweep.Options{Dir: out, Jobs: jobs, Shard: sh, Resume: resume,
				Progress: func(p sweep.Progress) {
					if bar == nil {
						bar = newProgress(errw, "sweep", p.Total)
					}
					note := ""
					if p.Failed > 0 {
						note = fmt.Sprintf("%d failed", p.Failed)
					}
					bar.set(p.Done, note)
				}})
			if bar != nil {
				bar.finish()
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "sweep: %d points: %d ran, %d resumed, %d failed; results in %s (results.csv, results.jsonl, sweep.json)\n",
				sum.Points, sum.Ran, sum.Resumed, sum.Failed, out)
			if sum.NotModelled > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "not modelled: the cycles of %d points leave out some of their workload's work (host offload transfers); results.jsonl lists it per point (not_modelled)\n", sum.NotModelled)
			}
			if sum.Interrupted {
				return exitError{130, fmt.Errorf("interrupted: the finished points are in %s; --resume continues the sweep", out)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&chipName, "chip", "", "base chip: preset name or config file")
	f.StringArrayVar(&sets, "set", nil, "override a chip key at every point (key=value), repeatable")
	f.StringArrayVar(&axes, "axis", nil, "an axis: KEY=V1,V2,... | KEY=START:STOP:STEP | KEY=START:STOP:xFACTOR, repeatable")
	f.StringArrayVar(&zips, "zip", nil, "axes that move together: KEY1,KEY2[,...], repeatable")
	f.StringArrayVar(&where, "where", nil, "a constraint over config keys that keeps a point, e.g. \"mxu.rows * mxu.cols <= 65536\", repeatable")
	f.StringSliceVar(&mets, "metric", nil, "metrics for results.csv (default: cycles, seconds, flops, utilizations, HBM)")
	f.StringVarP(&out, "out", "o", "", "results directory")
	f.IntVar(&jobs, "jobs", 0, "points run at once (default: the spec's jobs, else the host's cores)")
	f.StringVar(&shard, "shard", "", "run part K of N of the points (K/N), for clusters; merge with pulse sweep merge")
	f.BoolVar(&resume, "resume", false, "continue a sweep in DIR: skip the points already in results.jsonl")
	f.BoolVar(&values, "values", false, "value runs (random inputs, seed 1) instead of timing-only")
	f.BoolVar(&kernels, "kernels", false, "keep each point's per-kernel table in results.jsonl")
	f.Int64Var(&maxCycles, "max-cycles", 0, "stop each point after this many cycles (0: the default limit)")
	cmd.AddCommand(newSweepMerge(), newSweepReport())
	return cmd
}

func newSweepMerge() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge -o DIR SHARD_DIR...",
		Short: "Combine the results directories of a sweep's shards",
		Args:  rangeArgs(1, 1<<20, "one or more shard directories"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("no results directory: give -o DIR")
			}
			m, err := sweep.Merge(out, args)
			if err != nil {
				return err
			}
			state := "complete"
			if !m.Complete {
				state = "INCOMPLETE: a shard is missing or unfinished; merge again once it is done"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d shards: %d points, %d failed, %s; results in %s\n", len(args), m.Points, m.Failed, state, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "directory for the merged results")
	return cmd
}

func newSweepReport() *cobra.Command {
	var (
		format, plotPath, chart, metric, x, y, series, pareto, workload string
		fix                                                             []string
	)
	cmd := &cobra.Command{
		Use:   "report DIR [--format table|csv|markdown|json] [--plot out.png|svg --chart line|heatmap|pareto ...]",
		Short: "Show a sweep's results: the table, the best point per workload, charts",
		Long: `Show a sweep's results (finished or not): every point with its axes,
status and metrics, then the best point per workload by --metric (lowest
cycles by default; utilizations and fractions: highest).

Charts (--plot FILE, .png/.svg/.pdf): --chart line plots --metric against
--x AXIS, one line per value of --series AXIS; --chart heatmap plots --metric
over --x and --y; --chart pareto plots two metrics (or numeric axes) against
each other, --pareto cycles,mxu.rows, and draws the front. Axes not shown are
pinned with --fix KEY=VALUE, else to their first value (the title says which).`,
		Args: exactArgs(1, "one results directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			rs, err := sweep.Load(args[0])
			if err != nil {
				return err
			}
			if plotPath != "" {
				if err := checkOutputFile("--plot", plotPath); err != nil {
					return err
				}
				c := sweep.Chart{Kind: chart, Metric: metric, X: x, Y: y, Series: series, Workload: workload, Fix: map[string]string{}}
				if pareto != "" {
					a, b, ok := strings.Cut(pareto, ",")
					if !ok {
						return usagef("--pareto %q: want two metrics, M1,M2", pareto)
					}
					c.Pareto = [2]string{a, b}
					if chart == "" {
						c.Kind = "pareto"
					}
				}
				for _, f := range fix {
					k, v, ok := strings.Cut(f, "=")
					if !ok {
						return usagef("--fix %q: want KEY=VALUE", f)
					}
					c.Fix[k] = v
				}
				if err := rs.Plot(c, plotPath); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", plotPath)
				if !cmd.Flags().Changed("format") {
					return nil
				}
			}
			return rs.WriteReport(cmd.OutOrStdout(), args[0], format, metric)
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "table", "table, csv, markdown or json")
	f.StringVar(&metric, "metric", "cycles", "the metric for the best points and line/heatmap charts")
	f.StringVar(&plotPath, "plot", "", "draw a chart into this file (.png, .svg, .pdf)")
	f.StringVar(&chart, "chart", "", "line (default), heatmap or pareto")
	f.StringVar(&x, "x", "", "the axis across (line, heatmap)")
	f.StringVar(&y, "y", "", "the axis down (heatmap)")
	f.StringVar(&series, "series", "", "one line per value of this axis (line)")
	f.StringVar(&pareto, "pareto", "", "two metrics or numeric axes for a Pareto chart: M1,M2")
	f.StringVar(&workload, "workload", "", "the workload charted (default: the first)")
	f.StringArrayVar(&fix, "fix", nil, "pin an axis not charted: KEY=VALUE, repeatable")
	return cmd
}
