package hlo

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// nanPayload is a NaN written with its payload, nan(0x7f).
var nanPayload = regexp.MustCompile(`nan\([^)]*\)`)

// hloOpcodes are XLA's opcodes (hlo_opcode.h's list), and pulseOpcodes the
// ones Pulse adds for StableHLO's CHLO ops it evaluates directly. Any other
// opcode is a verifier error: a module with "$0" or a misspelt op is not
// HLO (XLA's tests hold templates whose opcodes are placeholders).
var hloOpcodes = opSet(`abs acos acosh add add-dependency after-all all-gather all-gather-done
	all-gather-start all-reduce all-reduce-done all-reduce-start all-to-all and asin asinh async-done
	async-start async-update atan atan2 atanh batch-norm-grad batch-norm-inference batch-norm-training
	bitcast bitcast-convert broadcast call cbrt ceil cholesky clamp count-leading-zeros
	collective-broadcast collective-permute collective-permute-done collective-permute-start
	collective-reduce compare complex concatenate conditional constant convert convolution copy
	copy-done copy-start cosine cosh custom-call divide domain dot dynamic-reshape dynamic-slice
	dynamic-update-slice erf exponential exponential-minus-one fft floor fusion gather
	get-dimension-size get-tuple-element imag infeed iota is-finite log log-plus-one logistic map
	maximum minimum mulhi multiply negate not opt-barrier optimization-barrier or outfeed pad parameter
	partition-id popcnt power ragged-all-to-all ragged-dot real recv recv-done reduce reduce-precision
	reduce-scatter reduce-window remainder replica-id reshape reverse rng rng-bit-generator
	rng-get-and-update-state round-nearest-afz round-nearest-even rsqrt scaled-dot scan scatter
	select select-and-scatter send send-done set-dimension-size shift-left shift-right-arithmetic
	shift-right-logical shuffle sign sine sinh slice sort sqrt stochastic-convert subtract tan tanh
	topk transpose triangular-solve tuple while xor trace`)

var pulseOpcodes = opSet(`lgamma digamma erf-inv erfc next-after bessel-i1e`)

// KnownOpcode reports whether op is an HLO opcode (or one of its short
// asynchronous forms, op-start/-update/-done).
func KnownOpcode(op string) bool {
	if hloOpcodes[op] || pulseOpcodes[op] {
		return true
	}
	for _, p := range []string{"-start", "-update", "-done"} {
		if b, ok := strings.CutSuffix(op, p); ok && hloOpcodes[b] {
			return true
		}
	}
	return false
}

// checkLiteral tells whether a constant's literal can be one of shape s:
// elided ({...}), one value for the whole array, or as many values as it
// has elements (pairs for complex ones, element by element for tuples),
// each a number, true, false, inf or nan (with or without a payload). It
// allocates nothing per element: a large constant costs a scan.
func checkLiteral(lit string, s *Shape) error {
	t := strings.TrimSpace(lit)
	if t == "{...}" || t == "" && s.Elems() == 0 {
		return nil
	}
	if s.IsTuple {
		parts, ok := splitTupleLiteral(t)
		if !ok || len(parts) != len(s.Tuple) {
			return fmt.Errorf("the literal does not hold the %d elements of %s", len(s.Tuple), s)
		}
		for i, p := range parts {
			if err := checkLiteral(p, s.Tuple[i]); err != nil {
				return err
			}
		}
		return nil
	}
	t = nanPayload.ReplaceAllString(t, "nan")
	per := int64(1)
	if IsComplex(s.Elem) {
		per = 2
	}
	n := int64(0)
	var bad string
	for _, f := range strings.FieldsFunc(t, func(r rune) bool { return strings.ContainsRune("{}(), ", r) }) {
		n++
		if bad == "" && !literalToken(f, s.Elem) {
			bad = f
		}
	}
	if bad != "" {
		return fmt.Errorf("bad literal value %q for %s", bad, s.Elem)
	}
	if n == per*s.Elems() || n == per && !strings.HasPrefix(t, "{") || n == 1 && !strings.HasPrefix(t, "{") {
		return nil
	}
	return fmt.Errorf("the literal has %d values for %s", n/per, s)
}

// literalToken: f is a value an HLO literal may hold.
func literalToken(f, elem string) bool {
	switch strings.TrimPrefix(f, "-") {
	case "true", "false", "inf", "nan":
		return true
	}
	if strings.HasPrefix(f, "0x") {
		_, err := strconv.ParseUint(f[2:], 16, 64)
		return err == nil
	}
	if _, err := strconv.ParseFloat(f, 64); err == nil {
		return true
	}
	// Integers beyond float64's range are exact in s64/u64 literals.
	if _, err := strconv.ParseUint(strings.TrimPrefix(f, "-"), 10, 64); err == nil && !isFloat(elem) {
		return true
	}
	return false
}
