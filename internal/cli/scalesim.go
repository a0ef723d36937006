package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/scalesim"
	"github.com/spf13/cobra"
)

func newScaleSim() *cobra.Command {
	var (
		cfgPath, topoPath, outDir, inputType string
		dramReads, pulseModel                bool
	)
	cmd := &cobra.Command{
		Use:   "scalesim -c CONFIG.cfg -t TOPOLOGY.csv -p OUTDIR [-i conv|gemm]",
		Short: "Run a SCALE-Sim configuration and topology, writing SCALE-Sim's reports",
		Long: `Reads a SCALE-Sim v2/v3 configuration (.cfg) and topology (.csv), takes
the same flags as python3 -m scalesim.scale, and writes SCALE-Sim's reports
(COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv, DETAILED_ACCESS_REPORT.csv) into
OUTDIR/<run_name>/, with SCALE-Sim v3's numbers in its CALC bandwidth mode
(docs/scalesim.md). The ifmap and filter DRAM stop cycles, reads and
bandwidths need every request replayed: --dram-reads does it (about 100x
slower); without it those columns are left empty. USER bandwidth mode runs
too, leaving out what SCALE-Sim derives from its prefetch window.

--pulse-model also runs each layer (its im2col GEMM) on Pulse's cycle-level
chip built from the cfg, and writes PULSE_REPORT.csv (both models' figures
side by side) and pulse/layerN.json (Pulse's full report per layer). It
takes USER bandwidth mode too, where only Pulse's figures are given.`,
		Args: exactArgs(0, "no arguments (the files are flags: -c, -t, -p)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfgPath == "" || topoPath == "" {
				return usagef("-c CONFIG.cfg and -t TOPOLOGY.csv are required")
			}
			var gemm bool
			switch inputType {
			case "conv":
			case "gemm":
				gemm = true
			default:
				return usagef("-i %s: must be conv or gemm", inputType)
			}
			src, err := inputs.ReadFile(cfgPath, inputs.Configs)
			if err != nil {
				return err
			}
			c, err := scalesim.ParseConfig(cfgPath, src)
			if err != nil {
				return err
			}
			if src, err = inputs.ReadFile(topoPath, inputs.Configs); err != nil {
				return err
			}
			layers, err := scalesim.ParseTopology(topoPath, src, gemm)
			if err != nil {
				return err
			}
			if c.UserBandwidth {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: note: InterfaceBandwidth USER: the figures SCALE-Sim derives from its prefetch window (stall cycles, cycles including prefetch, DRAM cycles and counts, SRAM stop cycles) are left empty (docs/scalesim.md); --pulse-model gives Pulse's own figures at that bandwidth\n", cfgPath)
			}
			var chip *config.Chip
			if pulseModel {
				if chip, err = scalesim.PulseChip(c); err != nil {
					return err
				}
			}
			// The output directory before any work (nothing is lost to a
			// bad path at the end).
			dir := filepath.Join(outDir, c.RunName)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("-p %s: %w", outDir, err)
			}
			probe := filepath.Join(dir, ".pulse-write-test")
			if err := os.WriteFile(probe, nil, 0o644); err != nil {
				return fmt.Errorf("-p %s: cannot write into %s: %w", outDir, dir, err)
			}
			os.Remove(probe)
			stderr := cmd.ErrOrStderr()
			for _, n := range c.Notes {
				fmt.Fprintf(stderr, "%s: note: %s\n", cfgPath, n)
			}
			start := time.Now()
			if !dramReads {
				fmt.Fprintf(stderr, "note: the ifmap and filter DRAM stop cycles, reads and bandwidths are left empty; --dram-reads replays every request for them (about 100x slower)\n")
			}
			results, err := scalesim.Run(c, layers, scalesim.Options{DRAMReads: dramReads}, func(done int, r *scalesim.Result) {
				fmt.Fprintf(stderr, "layer %d/%d %s: %d cycles, mapping efficiency %.2f%%, compute util %.2f%%\n",
					done, len(layers), r.Layer.Name, r.TotalCycles, r.MappingEff, r.ComputeUtil)
			})
			if err != nil {
				return err
			}
			if err := scalesim.WriteReports(dir, results); err != nil {
				return err
			}
			if pulseModel {
				pdir := filepath.Join(dir, "pulse")
				if err := os.MkdirAll(pdir, 0o755); err != nil {
					return err
				}
				pr, err := scalesim.RunPulse(chip, layers, pdir, func(done int, p *scalesim.PulseResult) {
					fmt.Fprintf(stderr, "pulse layer %d/%d %s: %d cycles, MXU MAC utilization %.1f%% (%.1f s)\n",
						done, len(layers), p.Layer.Name, p.Result.Report.Cycles, 100*p.Result.Report.MXUMacUtilization, time.Since(start).Seconds())
				})
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, "PULSE_REPORT.csv"), []byte(scalesim.PulseReport(results, pr)), 0o644); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d layers, %s dataflow, %dx%d array: reports in %s (%.3f s)\n",
				len(layers), c.Dataflow, c.ArrayHeight, c.ArrayWidth, dir, time.Since(start).Seconds())
			return nil
		},
	}
	cmd.Flags().StringVarP(&cfgPath, "config", "c", "", "SCALE-Sim configuration file (.cfg)")
	cmd.Flags().StringVarP(&topoPath, "topology", "t", "", "SCALE-Sim topology file (.csv)")
	cmd.Flags().StringVarP(&outDir, "path", "p", ".", "directory for the reports (they go into its <run_name> subdirectory)")
	cmd.Flags().StringVarP(&inputType, "input-type", "i", "conv", "topology format: conv or gemm")
	cmd.Flags().BoolVar(&dramReads, "dram-reads", false, "also replay every ifmap and filter request through SCALE-Sim's read buffers, for their DRAM stop cycles, reads and bandwidths (about 100x slower)")
	cmd.Flags().BoolVar(&pulseModel, "pulse-model", false, "also run the layers on Pulse's cycle-level chip built from the cfg (PULSE_REPORT.csv, pulse/layerN.json)")
	return cmd
}
