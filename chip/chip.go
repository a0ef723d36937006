// Package chip is the one place that builds a timed simulation from a chip
// configuration and a program, runs it, and turns the model's counters into a
// report.
package chip

import (
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/ref"
)

// Options tune a timed run.
type Options = core.Options

// Input binds a named tensor to values, loaded before the run.
type Input struct {
	Name   string
	Values []float64
}

// Simulate runs prog on chip cycle by cycle. The returned model holds the
// final architectural state (Model.Arch) and every counter; Report summarizes it.
func Simulate(c *config.Chip, prog *exe.Program, inputs []Input, opt Options) (*core.Model, error) {
	return core.Simulate(c, prog, opt, func(a *ref.Machine) error {
		for _, in := range inputs {
			if err := a.WriteTensor(in.Name, in.Values); err != nil {
				return err
			}
		}
		return nil
	})
}
