// Package pass runs named HLO passes in order, as XLA's HloPassPipeline
// does: one driver that names the pass in every error, can verify the
// module after every pass and can dump it after the passes a pattern
// names (pulse compile --dump-after, as XLA's --xla_dump_hlo_pass_re).
package pass

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
)

// A Pass rewrites a module in place.
type Pass struct {
	Name string // kebab-case, unique in its pipeline: "expand-complex"
	Run  func(*hlo.Module) error
}

// A Pipeline is passes run in order.
type Pipeline struct {
	Name   string
	Passes []Pass
}

// Options are what a run checks and shows besides running the passes.
type Options struct {
	// Verify checks the module (hlo/verify) after every pass, so that a
	// pass that leaves a malformed module is named at once rather than
	// found by a later pass or the code generator.
	Verify bool
	// DumpAfter selects the passes after which Dump sees the module: a
	// regular expression matched against the whole pass name (nil: none).
	DumpAfter *regexp.Regexp
	// Dump receives the module after a selected pass; index is the pass's
	// place in the pipeline, from 1.
	Dump func(index int, pass string, m *hlo.Module) error
}

// Error is a pass's failure: Err as the pass returned it, or the
// verifier's findings after it.
type Error struct {
	Pipeline, Pass string
	Verify         bool // the module failed verification after the pass
	Err            error
}

func (e *Error) Error() string {
	if e.Verify {
		return fmt.Sprintf("internal error: pass %s of the %s pipeline left a module that does not verify (please report this with the module): %v", e.Pass, e.Pipeline, e.Err)
	}
	return e.Err.Error()
}

// Unwrap gives the pass's own error; a verification failure is the
// pass's bug, not the module's, so its findings are not unwrapped as the
// module's positioned errors.
func (e *Error) Unwrap() error {
	if e.Verify {
		return nil
	}
	return e.Err
}

// Names lists the pipeline's passes in order.
func (p *Pipeline) Names() []string {
	out := make([]string, len(p.Passes))
	for i, ps := range p.Passes {
		out[i] = ps.Name
	}
	return out
}

// Matching lists the passes whose whole name re matches.
func (p *Pipeline) Matching(re *regexp.Regexp) []string {
	var out []string
	for _, ps := range p.Passes {
		if fullMatch(re, ps.Name) {
			out = append(out, ps.Name)
		}
	}
	return out
}

func fullMatch(re *regexp.Regexp, s string) bool {
	loc := re.FindStringIndex(s)
	return loc != nil && loc[0] == 0 && loc[1] == len(s)
}

// Check refuses a pipeline whose pass names are empty or repeated, so that
// every name in an error or a dump points at one pass.
func (p *Pipeline) Check() error {
	seen := map[string]bool{}
	for i, ps := range p.Passes {
		if ps.Name == "" || ps.Run == nil {
			return fmt.Errorf("pipeline %s: pass %d has no name or no function", p.Name, i+1)
		}
		if seen[ps.Name] {
			return fmt.Errorf("pipeline %s: two passes named %s", p.Name, ps.Name)
		}
		seen[ps.Name] = true
	}
	return nil
}

// Run runs the passes on m in order. The first failure stops the run and
// comes back as an *Error naming the pass; file names the module for the
// verifier's messages.
func (p *Pipeline) Run(file string, m *hlo.Module, opts Options) error {
	if err := p.Check(); err != nil {
		return err
	}
	for i, ps := range p.Passes {
		if err := ps.Run(m); err != nil {
			return &Error{Pipeline: p.Name, Pass: ps.Name, Err: err}
		}
		if opts.Verify {
			if err := verify.Verify(file, m); err != nil {
				return &Error{Pipeline: p.Name, Pass: ps.Name, Verify: true, Err: err}
			}
		}
		if opts.DumpAfter != nil && opts.Dump != nil && fullMatch(opts.DumpAfter, ps.Name) {
			if err := opts.Dump(i+1, ps.Name, m); err != nil {
				return fmt.Errorf("dumping the module after %s: %w", ps.Name, err)
			}
		}
	}
	return nil
}

// Failed tells whether err came from a pass of a pipeline, and which.
func Failed(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
