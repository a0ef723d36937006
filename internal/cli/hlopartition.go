package cli

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/pulse-sim/pulse/hlo/partition"
	"github.com/spf13/cobra"
)

func newHLOPartition() *cobra.Command {
	var against, out string
	cmd := &cobra.Command{
		Use:   "partition MODEL.hlo|MODEL.mlir [--against XLA.partitioned.hlo] [-o OUT.hlo]",
		Short: "Partition a sharded module over its devices and list what it needs",
		Long: `Partition a module that carries shardings but no partitioning (the HLO of a
sharded jax.jit, lowered.as_text(dialect="hlo"), or its Shardy StableHLO,
lowered.as_text()) into one program for every device, as pulse simulate does
before it runs one, and print what the partition is: the mesh, the sharding
of every parameter, output and value, every collective it added (kind,
replica groups in global device ids, one device's operand bytes, and the
instruction it serves), and every op computed whole on each device.

--against lists the collectives of another partition of the same program,
XLA's own (lowered.compile().as_text()), beside Pulse's: each of Pulse's is
matched with one of the same kind, groups and bytes, or failing that of the
same kind and groups; what is left of XLA's is listed. -o writes the
partitioned module as HLO text (docs/devices.md).`,
		Args: exactArgs(1, "one HLO or StableHLO file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutputFile("-o", out); err != nil {
				return err
			}
			m, err := readHLO(args[0])
			if err != nil {
				return err
			}
			if !partition.IsSharded(m) {
				return fmt.Errorf("%s carries no shardings over several devices (or is partitioned already): nothing to partition", args[0])
			}
			res, err := partition.Partition(args[0], m, 0)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if err := writePartition(w, res); err != nil {
				return err
			}
			if against != "" {
				other, err := readHLO(against)
				if err != nil {
					return err
				}
				theirs, err := partition.ListCollectives(other)
				if err != nil {
					return err
				}
				// All of the partitioned program's collectives: those
				// Pulse added and those a shard_map body has itself.
				ours, err := partition.ListCollectives(res.Module)
				if err != nil {
					return err
				}
				if err := writeComparison(w, ours, theirs); err != nil {
					return err
				}
			}
			if out != "" {
				return writeOutput("-o", out, []byte(res.Module.String()))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&against, "against", "", "another partition of the program (XLA's partitioned module) whose collectives to list beside Pulse's")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the partitioned module to this file")
	return cmd
}

func writePartition(w io.Writer, res *partition.Result) error {
	if res.Manual {
		fmt.Fprintln(w, "the module has a shard_map body: it runs as written on each device's shard, with its own collectives")
	}
	fmt.Fprintf(w, "mesh %s: %d devices\n", meshText(res.Mesh), res.Mesh.N())
	t := tablewriter.NewTable(w)
	t.Header("VALUE", "OP", "SHAPE", "SHARDING")
	for _, p := range res.Shardings {
		if err := t.Append(p.Name, p.Opcode, p.Shape.String(), res.Mesh.Format(p.Sharding)); err != nil {
			return err
		}
	}
	for k, s := range res.Outputs {
		if err := t.Append(fmt.Sprintf("output %d", k), "", fmt.Sprint(res.OutputDims[k]), res.Mesh.Format(s)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d collectives:\n", len(res.Collectives))
	t = tablewriter.NewTable(w)
	t.Header("COLLECTIVE", "KIND", "GROUPS", "BYTES", "FOR")
	for _, c := range res.Collectives {
		if err := t.Append(c.Name, c.Kind, partition.GroupsText(c.Groups), fmt.Sprint(c.Bytes), c.For); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(res.Uneven) > 0 {
		fmt.Fprintf(w, "%d dimensions split over fewer devices than their sharding asks (uneven):\n", len(res.Uneven))
		for _, f := range res.Uneven {
			fmt.Fprintf(w, "  %s: %s (%s): %s\n", f.Pos, f.Name, f.Opcode, f.Why)
		}
	}
	if len(res.Fallbacks) == 0 {
		fmt.Fprintln(w, "every op partitioned (none computed whole on each device)")
		return nil
	}
	fmt.Fprintf(w, "%d ops computed whole on every device, their operands gathered:\n", len(res.Fallbacks))
	for _, f := range res.Fallbacks {
		fmt.Fprintf(w, "  %s: %s (%s): %s\n", f.Pos, f.Name, f.Opcode, f.Why)
	}
	return nil
}

func writeComparison(w io.Writer, ours, theirs []partition.Collective) error {
	fmt.Fprintln(w, "the partitioned program's collectives against the other partition's:")
	matches, left := partition.Compare(ours, theirs)
	counts := map[string]int{}
	t := tablewriter.NewTable(w)
	t.Header("PULSE", "KIND", "GROUPS", "BYTES", "AGAINST", "ITS BYTES", "AGREE")
	for _, m := range matches {
		other, otherBytes, agree := "-", "-", "no match"
		if m.Other != nil {
			other, otherBytes = m.Other.Name, fmt.Sprintf("%d (%s)", m.Other.Bytes, m.Other.Elem)
		}
		switch {
		case m.Same:
			agree = "kind, groups, bytes"
		case m.OtherType:
			agree = "kind, groups, elements (another type)"
		case m.Combined:
			agree = "kind, groups; the other combined several into one"
		case m.GroupsOnly:
			agree = "kind, groups only"
		}
		counts[agree]++
		if err := t.Append(m.Pulse.Name, m.Pulse.Kind, partition.GroupsText(m.Pulse.Groups), fmt.Sprintf("%d (%s)", m.Pulse.Bytes, m.Pulse.Elem), other, otherBytes, agree); err != nil {
			return err
		}
	}
	for _, o := range left {
		if err := t.Append("-", o.Kind, partition.GroupsText(o.Groups), "-", o.Name, fmt.Sprintf("%d (%s)", o.Bytes, o.Elem), "only in the other"); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	noun := "collectives"
	if len(ours) == 1 {
		noun = "collective"
	}
	fmt.Fprintf(w, "%d %s against %d: %d agree in kind, groups and bytes; %d move the same elements as another type; %d were combined by the other; %d agree in kind and groups only; %d of Pulse's and %d of the other's unmatched\n",
		len(ours), noun, len(theirs), counts["kind, groups, bytes"], counts["kind, groups, elements (another type)"], counts["kind, groups; the other combined several into one"],
		counts["kind, groups only"], counts["no match"], len(left))
	return nil
}
