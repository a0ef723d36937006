package cli

import (
	"fmt"
	"strings"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/spf13/cobra"
)

func newAsm() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "asm FILE.s [-o FILE.pulse]",
		Short: "Assemble a kernel into an executable",
		Args:  exactArgs(1, "one source file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = strings.TrimSuffix(args[0], ".s") + ".pulse"
			}
			if err := checkOutputFile("-o", out); err != nil {
				return err
			}
			src, err := inputs.ReadFile(args[0], inputs.Sources)
			if err != nil {
				return err
			}
			prog, err := asm.Assemble(args[0], src, asm.Options{})
			if err != nil {
				return err
			}
			b, err := prog.Marshal()
			if err != nil {
				return err
			}
			if err := writeOutput("-o", out, b); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d instructions, %d tensors, %d bytes\n", out, len(prog.Code), len(prog.Symbols), len(b))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output file (default: the source name with .pulse)")
	return cmd
}

func newDisasm() *cobra.Command {
	var opt asm.DisasmOptions
	cmd := &cobra.Command{
		Use:   "disasm FILE.pulse",
		Short: "Print an executable as assembly that reassembles to the same bytes",
		Args:  exactArgs(1, "one executable"),
		RunE: func(cmd *cobra.Command, args []string) error {
			prog, err := pulse.LoadProgram(args[0])
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), asm.Disassemble(prog, opt))
			return nil
		},
	}
	cmd.Flags().BoolVar(&opt.NoDebug, "no-debug", false, "leave out .loc lines (the output no longer reassembles to identical bytes)")
	cmd.Flags().BoolVar(&opt.NoData, "no-data", false, "leave out initial data")
	return cmd
}
