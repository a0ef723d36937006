package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/pulse-sim/pulse/config"
	"github.com/spf13/cobra"
)

func newChips() *cobra.Command {
	return &cobra.Command{
		Use:   "chips",
		Short: "List the chip presets",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tMXU\tCLOCK\tSRAM\tDESCRIPTION")
			for _, n := range config.Presets() {
				c, err := config.Load(n, nil)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s\t%dx %dx%d\t%d MHz\t%s\t%s\n", c.Name, c.MXU.Count, c.MXU.Rows, c.MXU.Cols, c.ClockMHz, bytesStr(c.Memory.SRAMBytes), c.Description)
			}
			return w.Flush()
		},
	}
}

func newChip() *cobra.Command {
	cmd := &cobra.Command{Use: "chip", Short: "Inspect chip configurations"}
	var sets []string
	show := &cobra.Command{
		Use:   "show NAME|FILE.yaml",
		Short: "Print a chip's full configuration as YAML",
		Args:  exactArgs(1, "one chip name or file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := config.Load(args[0], sets)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(c.YAML())
			return err
		},
	}
	show.Flags().StringArrayVar(&sets, "set", nil, "override a config key (key=value), repeatable")
	cmd.AddCommand(show)
	return cmd
}

func bytesStr(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
