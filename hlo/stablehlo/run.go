package stablehlo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/internal/inputs"
)

// Runner computes a read module's root values (the host evaluator, or a
// simulated chip).
type Runner func(r *Result) ([]*eval.Value, error)

// TestFile reads a StableHLO test file, runs it and applies its checks.
func TestFile(path string, run Runner) Outcome {
	o := Outcome{File: path}
	src, err := inputs.ReadFile(path, inputs.Sources)
	if err != nil {
		o.Status, o.Message = ErrorStatus, err.Error()
		return o
	}
	if run == nil {
		run = Evaluate
	}
	// Interpreter tests hold several modules separated by "// -----"
	// lines; each runs on its own (line numbers stay the file's).
	chunks := splitModules(string(src))
	for _, c := range chunks {
		r, err := Read(path, []byte(c))
		if err != nil {
			o.Status, o.Message = classify(err), err.Error()
			return o
		}
		vals, err := run(r)
		if err != nil {
			o.Status, o.Message = Unsupported, err.Error()
			return o
		}
		if err := CheckAll(r, vals); err != nil {
			o.Status, o.Message = Fail, err.Error()
			var f *CheckFailure
			if !errors.As(err, &f) {
				return o
			}
			ok, noise, nerr := withinRounding(r, vals, f)
			switch {
			case nerr != nil:
				o.Message += " (rounding noise not measured: " + nerr.Error() + ")"
				return o
			case !ok:
				return o
			}
			// Explained by rounding; the file's later modules still run.
			o.Status = Rounding
			o.Message = fmt.Sprintf("%s; within rounding noise: Monte Carlo arithmetic moves the computed values by up to %.3g, and each differs by at most %d times that", err, noise, check.NoiseFactor)
		}
	}
	if o.Status == "" {
		o.Status = Pass
	}
	return o
}

// splitModules splits at "// -----" lines, blanking the other parts so that
// each chunk keeps the file's line numbers.
func splitModules(src string) []string {
	lines := strings.Split(src, "\n")
	var cuts []int
	for i, l := range lines {
		if strings.TrimSpace(l) == "// -----" {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return []string{src}
	}
	var out []string
	start := 0
	for _, c := range append(cuts, len(lines)) {
		part := make([]string, len(lines))
		copy(part[start:c], lines[start:c])
		out = append(out, strings.Join(part, "\n"))
		start = c + 1
	}
	return out
}

// classify tells an input the reader does not support from a malformed one.
func classify(err error) string {
	var e *Error
	if errors.As(err, &e) && (strings.Contains(e.Msg, "unsupported") || strings.Contains(e.Msg, "not supported") || strings.Contains(e.Msg, "not read yet")) {
		return Unsupported
	}
	return ErrorStatus
}

// ParseFile reads HLO text or StableHLO (by extension, or by content when
// the extension says nothing): the one entry point commands use.
func ParseFile(path string, src []byte) (*hlo.Module, error) {
	if !IsStableHLO(path, src) || strings.HasSuffix(path, ".hlo") {
		return hlo.Parse(path, string(src))
	}
	r, err := Read(path, src)
	if err != nil {
		return nil, err
	}
	return r.Module, nil
}
