package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo/stablehlo"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/spf13/cobra"
)

func newStableHLO() *cobra.Command {
	cmd := &cobra.Command{Use: "stablehlo", Short: "StableHLO (MLIR) input: run JAX-exported test modules and their checks"}
	var sim, jsonPath string
	test := &cobra.Command{
		Use:   "test FILE.mlir... [--sim CHIP] [--json FILE]",
		Short: "Run StableHLO test modules and evaluate their check.expect_* calls, like stablehlo-translate --interpret",
		Long: `Run each file's entry function and evaluate its check calls (check.expect_eq:
exact; expect_almost_eq: within 1e-4, relative above 1; expect_close: within
max_ulp_difference units in the last place, default 3) on the host
evaluator, or with --sim CHIP compiled and simulated on that chip. Each file
is pass, fail (wrong numbers, with the first mismatch), unsupported (names
the op or type it needs) or error (bad input). Exit 1 when anything fails.`,
		Args: rangeArgs(1, 1<<20, "one or more .mlir files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if jsonPath != "" {
				if err := checkOutputFile("--json", jsonPath); err != nil {
					return err
				}
			}
			var run stablehlo.Runner
			if sim != "" {
				c, err := config.Load(sim, nil)
				if err != nil {
					return err
				}
				run = (&runtime.Client{Chip: c}).StableHLORunner()
			}
			var outs []stablehlo.Outcome
			count := map[string]int{}
			var bar *progress
			if len(args) > 1 {
				bar = newProgress(cmd.ErrOrStderr(), "stablehlo test", len(args))
			}
			for i, f := range args {
				o := stablehlo.TestFile(f, run)
				outs = append(outs, o)
				count[o.Status]++
				if bar != nil {
					bar.set(i+1, fmt.Sprintf("%d failed", count[stablehlo.Fail]))
				}
			}
			if bar != nil {
				bar.finish()
			}
			w := cmd.OutOrStdout()
			t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
			t.Header("file", "status", "message")
			for _, o := range outs {
				if err := t.Append(o.File, o.Status, firstLineOf(o.Message)); err != nil {
					return err
				}
			}
			if err := t.Render(); err != nil {
				return err
			}
			fmt.Fprintf(w, "%d files: %d pass, %d fail, %d within rounding noise, %d unsupported, %d errors\n", len(outs), count[stablehlo.Pass], count[stablehlo.Fail], count[stablehlo.Rounding], count[stablehlo.Unsupported], count[stablehlo.ErrorStatus])
			if jsonPath != "" {
				err := writeOutputWith("--json", jsonPath, func(w io.Writer) error {
					b, _ := json.MarshalIndent(map[string]any{"files": outs, "passed": count[stablehlo.Pass], "failed": count[stablehlo.Fail],
						"rounding": count[stablehlo.Rounding], "unsupported": count[stablehlo.Unsupported], "errors": count[stablehlo.ErrorStatus]}, "", "  ")
					_, err := w.Write(append(b, '\n'))
					return err
				})
				if err != nil {
					return err
				}
			}
			if count[stablehlo.Fail] > 0 || count[stablehlo.ErrorStatus] > 0 {
				return fmt.Errorf("%d files failed, %d had errors", count[stablehlo.Fail], count[stablehlo.ErrorStatus])
			}
			return nil
		},
	}
	test.Flags().StringVar(&sim, "sim", "", "compile and simulate on this chip instead of the host evaluator")
	test.Flags().StringVar(&jsonPath, "json", "", "write the outcomes as JSON")
	cmd.AddCommand(test)
	return cmd
}

func firstLineOf(s string) string {
	for i := range s {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	if len(s) > 160 {
		return s[:160] + "..."
	}
	return s
}
