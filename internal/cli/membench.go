package cli

import (
	"encoding/json"
	"fmt"

	"github.com/olekukonko/tablewriter"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/membench"
	"github.com/spf13/cobra"
)

func newMembench() *cobra.Command {
	var (
		chipName, pattern, jsonPath string
		sets                        []string
		requests, perClock          int
		bytes                       int64
		seed                        uint64
	)
	cmd := &cobra.Command{
		Use:   "membench --chip NAME|FILE [--set k=v] --pattern seq|random|mix [--requests N] [--bytes 64] [--per-clock N] [--json FILE]",
		Short: "Drive a chip's HBM model with a request pattern and report its bandwidth and latency",
		Long: `Drives the chip's HBM model directly, as DRAMSim3's library drivers do:
requests issued in order as fast as the memory controller accepts them (its
read and write queues; --per-clock 1 issues at most one a clock, as
DRAMSim3's own CPU models do), no core and no DMA engines. seq reads consecutive
addresses, random reads addresses uniform over 1 GiB, mix walks consecutive
addresses alternating a read and a write. Reports cycles, bytes per second
against the peak, the average read latency and the row-hit rate
(docs/membench.md); examples/chips/hbm2-dramsim3.yaml is DRAMSim3's
HBM2_8Gb_x128.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pattern == "" {
				return usagef("--pattern seq|random|mix is required")
			}
			if requests <= 0 || bytes <= 0 {
				return usagef("--requests and --bytes must be positive")
			}
			if perClock < 0 {
				return usagef("--per-clock must be 0 (no cap) or positive")
			}
			if err := checkOutputFile("--json", jsonPath); err != nil {
				return err
			}
			c, err := config.Load(chipName, sets)
			if err != nil {
				return err
			}
			r, err := membench.Run(c, membench.Options{Pattern: pattern, Requests: requests, Bytes: bytes, Seed: seed, PerClock: perClock})
			if err != nil {
				return err
			}
			t := tablewriter.NewTable(cmd.OutOrStdout())
			t.Header("figure", "value")
			rows := [][]string{
				{"chip / HBM model", c.Name + " / " + r.Model},
				{"pattern", fmt.Sprintf("%s, %d requests of %d bytes", r.Pattern, r.Requests, r.BytesPerRequest)},
				{"cycles", fmt.Sprint(r.Cycles)},
				{"achieved / peak", fmt.Sprintf("%.1f GB/s / %.1f GB/s (%.1f%%)", r.BytesPerSecond/1e9, r.PeakBytesPerSecond/1e9, 100*r.FractionOfPeak)},
				{"average read latency", fmt.Sprintf("%.1f cycles", r.AvgReadLatencyCycles)},
				{"row-hit rate", fmt.Sprintf("%.1f%%", 100*r.RowHitRate)},
				{"refreshes", fmt.Sprint(r.Refreshes)},
			}
			if err := t.Bulk(rows); err != nil {
				return err
			}
			if err := t.Render(); err != nil {
				return err
			}
			if jsonPath != "" {
				b, _ := json.MarshalIndent(r, "", "  ")
				return writeOutput("--json", jsonPath, append(b, '\n'))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&chipName, "chip", "", "chip preset name or config file")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a chip config key (key=value), repeatable")
	cmd.Flags().StringVar(&pattern, "pattern", "", "seq, random or mix")
	cmd.Flags().IntVar(&requests, "requests", 100_000, "requests to issue")
	cmd.Flags().Int64Var(&bytes, "bytes", 64, "bytes per request")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random pattern seed")
	cmd.Flags().IntVar(&perClock, "per-clock", 0, "issue at most this many requests a clock (0: as many as the controller accepts; 1: as DRAMSim3's CPU models)")
	cmd.Flags().StringVar(&jsonPath, "json", "", "write the figures as JSON to this file")
	cmd.MarkFlagRequired("chip")
	return cmd
}
