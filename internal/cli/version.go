package cli

import (
	"fmt"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/exe"
	"github.com/spf13/cobra"
)

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the Pulse version and the executable format version",
		Args:  exactArgs(0, "no arguments"),
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "pulse %s (executable format %d)\n", pulse.Version, exe.Version)
		},
	}
}
