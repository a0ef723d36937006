package cli

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/config"
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
		chipName string
		sets     []string
		ins      []string
		outs     []string
		show     []string
		maxSteps int64
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
			chip, err := config.Load(chipName, sets)
			if err != nil {
				return err
			}
			prog, err := pulse.LoadProgram(args[0])
			if err != nil {
				return err
			}
			var inputs []pulse.Input
			for _, s := range ins {
				name, path, err := splitBinding("in", s)
				if err != nil {
					return err
				}
				in, err := pulse.ReadNPYInput(prog, name, path)
				if err != nil {
					return err
				}
				inputs = append(inputs, in)
			}
			type outB struct{ name, path string }
			var outputs []outB
			for _, s := range outs {
				name, path, err := splitBinding("out", s)
				if err != nil {
					return err
				}
				if _, ok := prog.Symbol(name); !ok {
					return fmt.Errorf("--out %s: the program has no tensor named %q", name, name)
				}
				outputs = append(outputs, outB{name, path})
			}
			m, err := pulse.Exec(chip, prog, inputs, ref.Options{MaxSteps: maxSteps})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s on %s: completed, %d instructions executed\n", args[0], chip.Name, m.Retired)
			names := map[string]bool{}
			for _, o := range outputs {
				if err := pulse.WriteNPY(m, o.name, o.path); err != nil {
					return err
				}
				names[o.name] = true
			}
			for _, s := range show {
				if _, ok := prog.Symbol(s); !ok {
					return fmt.Errorf("--show %s: the program has no tensor named %q", s, s)
				}
				names[s] = true
			}
			if len(names) == 0 {
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TENSOR\tSHAPE\tSPACE\tMIN\tMAX\tMEAN\tFIRST VALUES\tFILE")
			for _, sym := range prog.Symbols {
				if !names[sym.Name] {
					continue
				}
				vals, _, _ := m.ReadTensor(sym.Name)
				file := ""
				for _, o := range outputs {
					if o.name == sym.Name {
						file = o.path
					}
				}
				lo, hi, mean := stats(vals)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.6g\t%.6g\t%.6g\t%s\t%s\n", sym.Name, sym.ShapeString(), sym.Space, lo, hi, mean, first(vals, sym.DType), file)
			}
			return tw.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&chipName, "chip", "teach16", "chip preset name or config file (pulse chips lists them)")
	f.StringArrayVar(&sets, "set", nil, "override a chip config key (key=value), repeatable")
	f.StringArrayVar(&ins, "in", nil, "load a tensor from .npy before the run (name=file.npy), repeatable")
	f.StringArrayVar(&outs, "out", nil, "write a tensor to .npy after the run (name=file.npy), repeatable")
	f.StringArrayVar(&show, "show", nil, "print a summary of a tensor after the run, repeatable")
	f.Int64Var(&maxSteps, "max-steps", ref.DefaultMaxSteps, "stop a run after this many instructions")
	return cmd
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
