package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/olekukonko/tablewriter"
	"github.com/spf13/cobra"

	"github.com/pulse-sim/pulse/traces"
	"github.com/pulse-sim/pulse/validate"
)

func newValidate() *cobra.Command {
	var (
		chip     string
		sets     []string
		jsonPath string
		plotPath string
		fitSpec  string
		rows     bool
	)
	cmd := &cobra.Command{
		Use:   "validate [TABLE.csv ...] [--chip NAME] [--json FILE] [--plot FILE.png] [--rows] [--fit KEY=LO:HI]",
		Short: "Hold simulated times against measured TPU timings",
		Long: `Read measurement tables (with none: the published TPU v3 GEMM, softmax,
layer norm and GELU timings and TPU v4 GEMM timings that ship with Pulse), build each workload as JAX emits it, simulate it
timing-only, and print predicted against measured: the mean absolute
percentage error (MAPE), the mean error (bias: positive when Pulse is
slower), the rows off by more than 2x and the worst row, per table and shape
region and overall (docs/validation.md).

A table of your own: a CSV with the columns op,m,n,k,dtype,measured_us,chip
(op matmul, softmax, layernorm or gelu; m, n, k the shape: a softmax's or
layer norm's rows and columns in m and n, a GELU's elements in m, 1 for
the rest; dtype as HLO names it; chip the preset that stands for the
measured device). Each row is simulated on its chip unless --chip names
one for all; --set overrides keys of it; --fit fits one key to the rows.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutputFile("--json", jsonPath); err != nil {
				return err
			}
			var fit *validate.FitSpec
			if fitSpec != "" {
				f, err := validate.ParseFitSpec(fitSpec)
				if err != nil {
					return usagef("--fit %v", err)
				}
				fit = &f
			}
			if plotPath != "" {
				if err := traces.CheckChartPath(plotPath); err != nil {
					return usagef("--plot %v", err)
				}
				if err := checkOutputFile("--plot", plotPath); err != nil {
					return err
				}
			}
			var ms []validate.Measurement
			if len(args) == 0 {
				b, err := validate.Builtin()
				if err != nil {
					return err
				}
				ms = b
			}
			for _, a := range args {
				f, err := os.Open(a)
				if err != nil {
					return err
				}
				t, err := validate.ReadCSV(a, f)
				f.Close()
				if err != nil {
					return err
				}
				ms = append(ms, t...)
			}
			if plotPath != "" { // the heat maps beside the chart, checked before any work
				seen := map[string]bool{}
				var tables []string
				for _, m := range ms {
					if !seen[m.Source] {
						seen[m.Source] = true
						tables = append(tables, m.Source)
					}
				}
				for _, p := range validate.HeatMapPaths(plotPath, tables) {
					if err := checkOutputFile("--plot", p); err != nil {
						return err
					}
				}
			}
			var rep *validate.Report
			var fitted *validate.FitResult
			if fit != nil {
				var err error
				rep, fitted, err = validate.Fit(ms, validate.Options{Chip: chip, Sets: sets}, *fit, func(v, mape float64) {
					fmt.Fprintf(cmd.ErrOrStderr(), "fit: %s=%g: MAPE %.2f%%\n", fit.Key, v, 100*mape)
				})
				if err != nil {
					return err
				}
			} else {
				bar := newProgress(cmd.ErrOrStderr(), "validate", len(ms))
				var err error
				rep, err = validate.Run(ms, validate.Options{Chip: chip, Sets: sets, OnRow: func(done, total int) { bar.set(done, "") }})
				bar.finish()
				if err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if rows {
				t := tablewriter.NewTable(w)
				// predicted us is Pulse's device time plus the host
				// overhead the measurement holds (host us, 0 for a
				// device time).
				t.Header("table:line", "shape", "dtype", "chip", "measured us", "host us", "predicted us", "error")
				for _, r := range rep.Rows {
					if err := t.Append([]string{fmt.Sprintf("%s:%d", r.Source, r.Line), fmt.Sprintf("%dx%dx%d", r.M, r.N, r.K),
						r.DType, r.SimChip, fmt.Sprintf("%.3f", r.MeasuredUs), fmt.Sprintf("%g", r.HostUs), fmt.Sprintf("%.3f", r.PredictedUs), fmt.Sprintf("%+.1f%%", 100*r.Error)}); err != nil {
						return err
					}
				}
				if err := t.Render(); err != nil {
					return err
				}
			}
			t := tablewriter.NewTable(w)
			t.Header("rows of", "rows", "MAPE", "bias", "off by >2x", "worst")
			for _, g := range append(rep.Groups, rep.Overall) {
				if err := t.Append([]string{g.Name, fmt.Sprint(g.Rows), fmt.Sprintf("%.1f%%", 100*g.MAPE), fmt.Sprintf("%+.1f%%", 100*g.Bias),
					fmt.Sprint(g.Off2x), fmt.Sprintf("%+.1f%%", 100*g.Worst)}); err != nil {
					return err
				}
			}
			if err := t.Render(); err != nil {
				return err
			}
			if fitted != nil {
				fmt.Fprintf(w, "fitted %s = %g on %d rows: MAPE %.1f%% (at the chip's own %s: %.1f%%; searched %g..%g, %d evaluations)\n",
					fitted.Key, fitted.Value, len(rep.Rows), 100*fitted.MAPE, fitted.Default, 100*fitted.MAPEDefault, fitted.Lo, fitted.Hi, fitted.Evaluations)
			}
			if plotPath != "" {
				if err := rep.SaveScatter(plotPath); err != nil {
					return fmt.Errorf("--plot %s: %v", plotPath, err)
				}
				if err := rep.SaveHeatMaps(plotPath); err != nil {
					return fmt.Errorf("--plot %s: %v", plotPath, err)
				}
			}
			if jsonPath != "" {
				b, _ := json.MarshalIndent(struct {
					*validate.Report
					Fit *validate.FitResult `json:"fit,omitempty"`
				}{rep, fitted}, "", "  ")
				return writeOutput("--json", jsonPath, append(b, '\n'))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&fitSpec, "fit", "", "fit one chip key to the rows: KEY=LO:HI, the value in [LO, HI] of least MAPE (golden-section search; docs/validation.md)")
	cmd.Flags().StringVar(&chip, "chip", "", "simulate every row on this chip preset or config file (default: each table's own)")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a chip config key (key=value), repeatable")
	cmd.Flags().StringVar(&jsonPath, "json", "", "write every row and group as JSON")
	cmd.Flags().BoolVar(&rows, "rows", false, "print every row, not only the groups")
	cmd.Flags().StringVar(&plotPath, "plot", "", "draw predicted against measured, log-log, to this chart (.svg, .png, ...), and beside it a heat map of the error over each table's shape grid (FILE-heat-TABLE.png)")
	return cmd
}
