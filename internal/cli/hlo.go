package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/hlo/fusion"
	"github.com/pulse-sim/pulse/hlo/stablehlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/spf13/cobra"
)

func readHLO(path string) (*hlo.Module, error) {
	b, err := inputs.ReadFile(path, inputs.Sources)
	if err != nil {
		return nil, err
	}
	m, err := stablehlo.ParseFile(path, b) // HLO text or StableHLO (.mlir)
	if err != nil {
		return nil, err
	}
	return m, verify.Verify(path, m)
}

func newHLO() *cobra.Command {
	cmd := &cobra.Command{Use: "hlo", Short: "Read XLA HLO text: format it, count its work, evaluate it, fuse it"}
	cmd.AddCommand(newHLOEval())
	cmd.AddCommand(newHLOPartition())
	var quiet, multiOutput bool
	fuse := &cobra.Command{
		Use:   "fuse MODEL.hlo",
		Short: "Group an HLO module into kernels as XLA's fusion does and print it",
		Long: `Fuse a pre-optimization HLO module into kernels and print the post-fusion
module: elementwise producer-consumer chains become kLoop fusions, reductions
with their elementwise producers kInput fusions, dots and convolutions with
their elementwise epilogue kOutput fusions. Broadcasts, iotas and small
constants are duplicated into the fusions that read them; nothing else is
computed twice. With --multi-output, an elementwise producer of a loop
fusion's shape that is also read outside it joins the fusion as an extra
result (the fusion's shape is then a tuple), as the compiler fuses for its
kernels (docs/hlo.md). A module that already contains fusions is printed
unchanged. A summary goes to standard error, with the bytes the kernels'
operands and results hold (each once: the HBM traffic of a step that
keeps nothing on chip between kernels, to hold a simulated run's against).`,
		Args: exactArgs(1, "one HLO file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := readHLO(args[0])
			if err != nil {
				return err
			}
			fm, st, err := fusion.FuseWith(m, fusion.FuseOptions{MultiOutput: multiOutput})
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), fm.String())
			if !quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", args[0], st)
			}
			return nil
		},
	}
	fuse.Flags().BoolVarP(&quiet, "quiet", "q", false, "do not print the summary")
	fuse.Flags().BoolVar(&multiOutput, "multi-output", false, "give loop fusions extra results for producers also read outside them")
	cmd.AddCommand(fuse)
	cmd.AddCommand(&cobra.Command{
		Use:   "fmt MODEL.hlo",
		Short: "Parse an HLO module and print it in canonical short form",
		Args:  exactArgs(1, "one HLO file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := readHLO(args[0])
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), m.String())
			return nil
		},
	})
	var perInstruction bool
	stats := &cobra.Command{
		Use:   "stats MODEL.hlo",
		Short: "Print an HLO module's op histogram with FLOPs and bytes",
		Long: `Print the op histogram of an HLO module: instructions, FLOPs (2 per
multiply-add for dot and convolution, 1 per element for elementwise ops and
reductions) and bytes read and written, per opcode and in total. In the
table every computation counts once; the "as run" line after it multiplies
while bodies by their trip counts (recorded as known_trip_count or read from
a counted loop: i = c; i < N; i += k) and counts a conditional's costliest
branch, naming the loops whose trip count only a run can tell. With --per-instruction, every instruction follows with its own figures and
its source position.`,
		Args: exactArgs(1, "one HLO file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := readHLO(args[0])
			if err != nil {
				return err
			}
			st := analysis.ComputeStats(m)
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d computations, %d instructions, entry %s\n", m.Name, len(m.Computations), st.N, m.Entry.Name)
			fmt.Fprintln(w, "OPCODE\tCOUNT\tFLOPS\tBYTES\t")
			for _, o := range st.Ops {
				fmt.Fprintf(w, "%s\t%d\t%d\t%d\t\n", o.Opcode, o.Count, o.FLOPs, o.Bytes)
			}
			fmt.Fprintf(w, "total\t%d\t%d\t%d\t\n", st.N, st.Total.FLOPs, st.Total.Bytes)
			if err := w.Flush(); err != nil {
				return err
			}
			run, unknown := analysis.ExecutedCost(m)
			fmt.Fprintf(cmd.OutOrStdout(), "as run: %d FLOPs, %d bytes", run.FLOPs, run.Bytes)
			if len(unknown) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), " (counting once the loops whose trip count a run decides: %s)", strings.Join(unknown, ", "))
			}
			fmt.Fprintln(cmd.OutOrStdout())
			if !perInstruction {
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout())
			w = tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "POSITION\tCOMPUTATION\tINSTRUCTION\tOPCODE\tSHAPE\tFLOPS\tBYTES")
			for _, c := range m.Computations {
				for _, in := range c.Instructions {
					k := analysis.InstructionCost(c, in, analysis.OperandShapes(c, in))
					fmt.Fprintf(w, "%s:%s\t%s\t%s\t%s\t%s\t%d\t%d\n", args[0], in.Pos, c.Name, in.Name, in.Opcode, in.Shape, k.FLOPs, k.Bytes)
				}
			}
			return w.Flush()
		},
	}
	stats.Flags().BoolVar(&perInstruction, "per-instruction", false, "also list every instruction's FLOPs and bytes")
	cmd.AddCommand(stats)
	return cmd
}
