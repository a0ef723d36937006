// Package cli implements the pulse command line on top of the public packages.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// usageError marks errors in how the command was called (exit status 2).
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitError ends the command with a status of its own (130: interrupted).
type exitError struct {
	code int
	error
}

// Main runs the command line and returns the exit status: 0 on success, 1 on
// failure, 2 on a usage error. It never lets a panic reach the user as a
// stack trace (unless PULSE_DEBUG_PANIC is set, to debug Pulse itself).
func Main(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if os.Getenv("PULSE_DEBUG_PANIC") != "" {
			return
		}
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "pulse: internal error: %v\n(please report this with the input that caused it)\n", r)
			status = 1
		}
	}()
	setMemoryLimit()
	if stop := hostProfile(stderr); stop != nil {
		defer stop()
	}
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	msg := err.Error()
	var ee exitError
	if errors.As(err, &ee) {
		fmt.Fprintf(stderr, "pulse: %s\n", strings.TrimRight(msg, "\n"))
		return ee.code
	}
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(msg) {
		fmt.Fprintf(stderr, "pulse: %s\nRun 'pulse --help' for usage.\n", msg)
		return 2
	}
	fmt.Fprintf(stderr, "pulse: %s\n", strings.TrimRight(msg, "\n"))
	return 1
}

func isCobraUsage(msg string) bool {
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument",
		"invalid argument", "accepts ", "requires at least", "required flag"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, " "+p) {
			return true
		}
	}
	return false
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "pulse",
		Short:         "Pulse: a cycle-accurate simulator of TPU- and Trainium-class ML accelerators",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newAsm(), newDisasm(), newExec(), newRun(), newCompile(), newPasses(), newSimulate(), newServe(), newValidate(), newHLO(), newChips(), newChip(), newScaleSim(), newMembench(), newSweep(), newBench(), newStableHLO(), newLab(), newVersion())
	return root
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s (got %d arguments)", cmd.Name(), what, len(args))
		}
		return nil
	}
}

func rangeArgs(lo, hi int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usagef("%s takes %s (got %d arguments)", cmd.Name(), what, len(args))
		}
		return nil
	}
}
