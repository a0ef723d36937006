package cli

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/ref"
	"github.com/spf13/cobra"
)

func splitBinding(flag, s string) (string, string, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return "", "", usagef("--%s %q: want name=file.npy", flag, s)
	}
	return name, path, nil
}

func newExec() *cobra.Command {
	var (
		f        runFlags
		maxSteps int64
		race     bool
	)
	cmd := &cobra.Command{
		Use:   "exec KERNEL.s|KERNEL.pulse --chip NAME [--in name=x.npy]... [--out name=y.npy]...",
		Short: "Run a kernel functionally (no timing) and print its outputs",
		Long: `Run a kernel on the functional reference executor: no time, only state.
Inputs and outputs are named tensors of the program (.tensor directives), read
from and written to .npy files. Faults name the instruction, its source line and
the address; a program whose semaphore waits can never be met is reported as a
deadlock with each unit's pending instruction.`,
		Args: exactArgs(1, "one kernel file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxSteps <= 0 {
				return usagef("--max-steps %d: the limit must be a positive number of instructions", maxSteps)
			}
			c, prog, inputs, outs, err := f.load(args[0])
			if err != nil {
				return err
			}
			m, err := pulse.Exec(c, prog, inputs, ref.Options{MaxSteps: maxSteps})
			if err != nil {
				return err
			}
			if race {
				ins := make([]chip.Input, len(inputs))
				for i, in := range inputs {
					ins[i] = chip.Input{Name: in.Name, Values: in.Values}
				}
				races, err := execRaces(c, prog, ins, 0)
				if err != nil {
					return fmt.Errorf("the race detector's timing run: %v (--race=false skips it)", err)
				}
				if err := raceFailure(cmd.ErrOrStderr(), races); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s on %s: completed, %d instructions executed\n", args[0], c.Name, m.Retired)
			return f.outputs(cmd, m, prog, outs, w)
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().Int64Var(&maxSteps, "max-steps", ref.DefaultMaxSteps, "stop a run after this many instructions")
	cmd.Flags().BoolVar(&race, "race", true, raceHelp+" (it runs the kernel on the timing model too)")
	return cmd
}

type writer = io.Writer

// tensorTable prints a summary line per named tensor, in program order.
func tensorTable(w io.Writer, m *ref.Machine, prog *exe.Program, files map[string]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TENSOR\tSHAPE\tSPACE\tMIN\tMAX\tMEAN\tFIRST VALUES\tFILE")
	for _, sym := range prog.Symbols {
		file, ok := files[sym.Name]
		if !ok {
			continue
		}
		vals, _, _ := m.ReadTensor(sym.Name)
		lo, hi, mean := stats(vals)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.6g\t%.6g\t%.6g\t%s\t%s\n", sym.Name, sym.ShapeString(), sym.Space, lo, hi, mean, first(vals, sym.DType), file)
	}
	return tw.Flush()
}

func stats(v []float64) (lo, hi, mean float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	sum := 0.0
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		sum += x
	}
	return lo, hi, sum / float64(len(v))
}

func first(v []float64, d isa.DType) string {
	var parts []string
	for i := 0; i < len(v) && i < 4; i++ {
		parts = append(parts, fmt.Sprintf("%.5g", v[i]))
	}
	s := strings.Join(parts, " ")
	if len(v) > 4 {
		s += " ..."
	}
	return s
}
