package stablehlo

import (
	"errors"
	"os"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// Runner computes a read module's root values (the host evaluator, or a
// simulated chip).
type Runner func(r *Result) ([]*hlo.Value, error)

// TestFile reads a StableHLO test file, runs it and applies its checks.
func TestFile(path string, run Runner) Outcome {
	o := Outcome{File: path}
	src, err := os.ReadFile(path)
	if err != nil {
		o.Status, o.Message = ErrorStatus, err.Error()
		return o
	}
	r, err := Read(path, src)
	if err != nil {
		o.Status, o.Message = classify(err), err.Error()
		return o
	}
	if run == nil {
		run = Evaluate
	}
	vals, err := run(r)
	if err != nil {
		o.Status, o.Message = Unsupported, err.Error()
		return o
	}
	if err := CheckAll(r, vals); err != nil {
		o.Status, o.Message = Fail, err.Error()
		return o
	}
	o.Status = Pass
	return o
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
