package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/spf13/cobra"
)

// passFlags are the compiler pipeline's checks and dumps.
type passFlags struct {
	dumpAfter string
	dumpDir   string
	verify    bool
}

func (f *passFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dumpAfter, "dump-after", "", "write the module after each compiler pass whose whole name this regular expression matches (\".*\": every pass; pulse passes lists them)")
	cmd.Flags().StringVar(&f.dumpDir, "dump-dir", "hlo-dumps", "folder for --dump-after's modules (MODEL.NN.PASS.hlo)")
	cmd.Flags().BoolVar(&f.verify, "verify-passes", false, "verify the module after every compiler pass (always on in Pulse's tests)")
}

// options checks the flags and their output folder before any work and
// gives the compiler's options for the module at path.
func (f *passFlags) options(path string) (lowering.Options, error) {
	opts := lowering.Options{VerifyPasses: f.verify}
	if f.dumpAfter == "" {
		return opts, nil
	}
	re, err := regexp.Compile(f.dumpAfter)
	if err != nil {
		return opts, usagef("--dump-after %q: %v", f.dumpAfter, err)
	}
	p := lowering.Pipeline(&config.Chip{}, hlo.Devices{})
	if len(p.Matching(re)) == 0 {
		return opts, usagef("--dump-after %q names no pass; the passes, in order: %s", f.dumpAfter, strings.Join(p.Names(), " "))
	}
	if err := checkOutputDir("--dump-dir", f.dumpDir); err != nil {
		return opts, err
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	opts.DumpAfter = re
	opts.Dump = func(index int, pass string, m *hlo.Module) error {
		name := filepath.Join(f.dumpDir, fmt.Sprintf("%s.%02d.%s.hlo", base, index, pass))
		return writeOutput("--dump-after", name, []byte(m.String()))
	}
	return opts, nil
}

func newPasses() *cobra.Command {
	return &cobra.Command{
		Use:   "passes",
		Short: "List the compiler's passes in the order they run",
		Long: `List the passes the compiler runs on a module, in order, before fusion and
code generation: the op expansions (hlo/expand) and the chip's legalisation
(lowering/legalize). pulse compile --dump-after names them.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			for i, name := range lowering.Pipeline(&config.Chip{}, hlo.Devices{}).Names() {
				fmt.Fprintf(cmd.OutOrStdout(), "%2d %s\n", i+1, name)
			}
			return nil
		},
	}
}
