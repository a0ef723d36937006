package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/olekukonko/tablewriter"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/energy"
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
				mxu := fmt.Sprintf("%dx %dx%d", c.MXU.Count, c.MXU.Rows, c.MXU.Cols)
				if c.NumCores() > 1 {
					mxu = fmt.Sprintf("%d cores x %s", c.NumCores(), mxu) // SRAM is per core too
				}
				fmt.Fprintf(w, "%s\t%s\t%d MHz\t%s\t%s\n", c.Name, mxu, c.ClockMHz, bytesStr(c.Memory.SRAMBytes), c.Description)
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
			w := cmd.OutOrStdout()
			if _, err := w.Write(c.YAML()); err != nil {
				return err
			}
			if c.Area != (config.Area{}) {
				a := energy.AreaOf(c)
				fmt.Fprintf(w, "# area at %d nm: %.1f mm^2 (docs/energy.md):", a.TechnologyNM, a.TotalMM2)
				for _, k := range []string{"mxu", "sram", "acc", "vpu", "xlu", "dma", "scalar", "fixed"} {
					fmt.Fprintf(w, " %s %.2f", k, a.Components[k])
				}
				fmt.Fprintln(w)
			}
			return nil
		},
	}
	show.Flags().StringArrayVar(&sets, "set", nil, "override a config key (key=value), repeatable")
	cmd.AddCommand(show, newChipKeys())
	return cmd
}

func newChipKeys() *cobra.Command {
	var sets []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "keys [NAME|FILE.yaml]",
		Short: "List every config key a --set or a sweep axis can turn: type, unit, allowed range, the chip's value",
		Args:  rangeArgs(0, 1, "at most one chip name or file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := "teach16"
			if len(args) == 1 {
				name = args[0]
			}
			c, err := config.Load(name, sets)
			if err != nil {
				return err
			}
			type row struct {
				config.Key
				Value any `json:"value"`
			}
			var rows []row
			for _, k := range config.Keys() {
				v, _ := c.Get(k.Name)
				rows = append(rows, row{k, v})
			}
			if asJSON {
				b, _ := json.MarshalIndent(rows, "", "  ")
				_, err := cmd.OutOrStdout().Write(append(b, '\n'))
				return err
			}
			t := tablewriter.NewTable(cmd.OutOrStdout())
			fmt.Fprintf(cmd.OutOrStdout(), "%s: every key --set and pulse sweep axes take\n", c.Name)
			t.Header("key", "type", "unit", "range", "value", "meaning")
			for _, r := range rows {
				doc := r.Doc
				if r.When != "" {
					doc += " [" + r.When + "]"
				}
				if err := t.Append([]string{r.Name, r.Type, r.Unit, r.Range(), keyValue(r.Value), doc}); err != nil {
					return err
				}
			}
			return t.Render()
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a config key (key=value), repeatable")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON list")
	return cmd
}

// keyValue prints a key's value as --set takes it.
func keyValue(v any) string {
	switch x := v.(type) {
	case []string:
		return strings.Join(x, ",")
	case map[string]int:
		var ks []string
		for k := range x {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%s:%d", k, x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case string:
		if x == "" {
			return `""`
		}
		return x
	}
	return fmt.Sprint(v)
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
