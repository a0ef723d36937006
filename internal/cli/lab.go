package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/pulse-sim/pulse/grade"
	"github.com/pulse-sim/pulse/labs"
	"github.com/spf13/cobra"
)

func newLab() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lab list|start|check|solution",
		Short: "Teaching labs: hand out, grade and solve the labs under labs/",
		Long: `Pulse's teaching labs (docs/labs.md for instructors, docs/tutorial.md first):

  pulse lab list [--json]                 the labs, in course order
  pulse lab start LAB DIR                 copy the handout and starter files into DIR
  pulse lab check LAB [DIR] [--format text|json|gradescope] [--seed N] [--output FILE]
                                          grade the kernel in DIR (default .)
  pulse lab solution LAB DIR              copy the reference solution (instructors)

check grades what DIR holds: it places fresh inputs (a new seed each run, plus
fixed edge cases), runs the kernel on the lab's chip, compares every output
with a float64 reference, measures cycles against the reference solution and
reruns under other timing with a race detector. Exit status 0 even when tests
fail (the score says how it went); 1 when the grader itself cannot run.`,
	}
	cmd.AddCommand(newLabList(), newLabStart(), newLabCheck(), newLabSolution())
	return cmd
}

func newLabList() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the labs",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			all, err := labs.All()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				type entry struct {
					Name    string   `json:"name"`
					Title   string   `json:"title"`
					Order   int      `json:"order"`
					Chip    string   `json:"chip"`
					Minutes int      `json:"minutes"`
					Kernel  string   `json:"kernel"`
					Grades  string   `json:"grades"`
					Goals   []string `json:"goals"`
				}
				out := []entry{}
				for _, l := range all {
					out = append(out, entry{l.Name, l.Title, l.Order, l.Chip, l.Minutes, l.Kernel, l.Grades, l.Goals})
				}
				b, _ := json.MarshalIndent(out, "", "  ")
				_, err := fmt.Fprintln(w, string(b))
				return err
			}
			t := tablewriter.NewTable(w)
			t.Header("#", "LAB", "TITLE", "CHIP", "TIME", "GRADES")
			for _, l := range all {
				if err := t.Append(fmt.Sprint(l.Order), l.Name, l.Title, l.Chip, fmt.Sprintf("%d min", l.Minutes), l.Grades); err != nil {
					return err
				}
			}
			return t.Render()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return cmd
}

func newLabStart() *cobra.Command {
	return &cobra.Command{
		Use:   "start LAB DIR",
		Short: "Copy a lab's handout and starter files into DIR",
		Args:  exactArgs(2, "a lab and a folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := labs.Get(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			files, err := l.Start(args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "lab %s (%s) in %s: %s\nRead README.md, then grade with:  pulse lab check %s %s\n",
				l.Name, l.Title, args[1], strings.Join(files, ", "), l.Name, args[1])
			return nil
		},
	}
}

func newLabSolution() *cobra.Command {
	return &cobra.Command{
		Use:   "solution LAB DIR",
		Short: "Copy a lab's reference solution into DIR (for instructors)",
		Args:  exactArgs(2, "a lab and a folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := labs.Get(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			files, err := l.WriteSolution(args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "reference solution of lab %s in %s: %s\n", l.Name, args[1], strings.Join(files, ", "))
			return nil
		},
	}
}

func newLabCheck() *cobra.Command {
	var (
		format string
		seed   uint64
		output string
	)
	cmd := &cobra.Command{
		Use:   "check LAB [DIR] [--format text|json|gradescope] [--seed N] [--output FILE]",
		Short: "Grade the kernel in DIR for a lab",
		Args:  rangeArgs(1, 2, "a lab and optionally a folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "text", "json", "gradescope":
			default:
				return usagef("--format %q: text, json or gradescope", format)
			}
			if err := checkOutputFile("--output", output); err != nil {
				return err
			}
			l, err := labs.Get(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			dir := "."
			if len(args) == 2 {
				dir = args[1]
			}
			// A missing folder is a mistake in the command (a typo), not a
			// submission to score zero; a folder without the kernel is.
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return fmt.Errorf("%s: no such folder (pulse lab check LAB DIR grades the kernel in DIR)", dir)
			}
			var p *progress
			res, err := grade.Grade(l, dir, grade.Options{Seed: seed, Progress: func(done, total int) {
				if p == nil {
					p = newProgress(cmd.ErrOrStderr(), "grading "+l.Name, total)
				}
				p.set(done, "")
			}})
			if p != nil {
				p.finish()
			}
			if err != nil {
				return err
			}
			var out []byte
			switch format {
			case "json":
				out = res.JSON()
			case "gradescope":
				out = res.Gradescope()
			default:
				var b strings.Builder
				if err := res.WriteText(&b); err != nil {
					return err
				}
				out = []byte(b.String())
			}
			if output != "" {
				return writeOutput("--output", output, out)
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, json (score, max_score, tests) or gradescope (results.json)")
	cmd.Flags().Uint64Var(&seed, "seed", 0, "seed of the random inputs (0: a fresh one; the result names it)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the result to this file instead of standard output")
	return cmd
}
