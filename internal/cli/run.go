package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/traces"
	"github.com/spf13/cobra"
)

func newRun() *cobra.Command {
	var (
		f          runFlags
		obs        observeFlags
		timingOnly bool
		jsonPath   string
		maxCycles  int64
		race       bool
	)
	cmd := &cobra.Command{
		Use:   "run KERNEL.s|KERNEL.pulse --chip NAME [--set k=v] [--in name=x.npy] [--out name=y.npy] [--timing-only] [--json report.json]",
		Short: "Simulate a kernel cycle by cycle and report where the time went",
		Long: `Simulate a kernel on the cycle-level model of a chip: the results (as exec
computes them), the cycle count, and a utilization report. --timing-only skips
value computation for speed. The JSON report's schema is docs/report-schema.md.

--trace, --pprof, --roofline and --csv write a Perfetto timeline, a pprof
cycle profile, a roofline chart and the kernel's row (docs/observability.md).`,
		Args: exactArgs(1, "one kernel file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxCycles < 0 {
				return usagef("--max-cycles %d: the limit must be a positive number of cycles (0: the default)", maxCycles)
			}
			if err := obs.validate(); err != nil {
				return err
			}
			if err := checkOutputFile("--json", jsonPath); err != nil {
				return err
			}
			c, prog, inputs, outs, err := f.load(args[0])
			if err != nil {
				return err
			}
			asmFile := args[0]
			if d := prog.DebugAt(0); strings.HasSuffix(args[0], ".pulse") && d.File != "" {
				asmFile = d.File // an executable: its debug map names the source
			}
			src := traces.ProgramSource(prog, asmFile)
			kernels := traces.NewKernels(src)
			observers := append([]core.Observer{kernels}, obs.observers(src)...)
			if timingOnly && (len(outs) > 0 || len(f.show) > 0) {
				return usagef("--out and --show need values: drop --timing-only")
			}
			var ins []chip.Input
			for _, in := range inputs {
				ins = append(ins, chip.Input{Name: in.Name, Values: in.Values})
			}
			t0 := time.Now()
			bar := newRunProgress(cmd.ErrOrStderr(), "run (program position)", len(prog.Code))
			observers = append(observers, &traces.Progress{Report: func(done, total int) { bar.set(done, "") }})
			var races *core.Races
			if race {
				races = &core.Races{}
				observers = append(observers, races)
			}
			m, err := chip.Simulate(c, prog, ins, chip.Options{TimingOnly: timingOnly, MaxCycles: maxCycles, Observers: observers})
			bar.finish()
			if err != nil {
				return obs.failed(cmd.ErrOrStderr(), err)
			}
			wall := time.Since(t0)
			if err := raceFailure(cmd.ErrOrStderr(), races); err != nil {
				return err
			}
			r := chip.NewReport(args[0], m, timingOnly)
			w := cmd.OutOrStdout()
			if err := r.WriteTable(w); err != nil {
				return err
			}
			if err := obs.writeExplain(w, r); err != nil {
				return err
			}
			if jsonPath != "" {
				if err := writeOutput("--json", jsonPath, r.JSON()); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "simulated %d cycles in %.3f s\n", r.Cycles, wall.Seconds())
			if err := obs.write(cmd.ErrOrStderr(), r, kernels.Stats()); err != nil {
				return err
			}
			return f.outputs(cmd, m.Arch, prog, outs, w)
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().BoolVar(&timingOnly, "timing-only", false, "skip value computation")
	cmd.Flags().StringVar(&jsonPath, "json", "", "write the report as JSON to this file")
	cmd.Flags().Int64Var(&maxCycles, "max-cycles", 0, "stop the simulation after this many cycles (0: the default, 10,000,000,000)")
	cmd.Flags().BoolVar(&race, "race", true, raceHelp)
	obs.register(cmd.Flags())
	return cmd
}
