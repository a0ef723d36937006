package hlo

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// nanPayload is a NaN written with its payload, nan(0x7f).
var nanPayload = regexp.MustCompile(`nan\([^)]*\)`)

// hloOpcodes are XLA's opcodes (hlo_opcode.h's list), and pulseOpcodes the
// ones Pulse adds for StableHLO's CHLO ops it evaluates directly. Any other
// opcode is a verifier error: a module with "$0" or a misspelt op is not
// HLO (XLA's tests hold templates whose opcodes are placeholders).
var hloOpcodes = OpSet(`abs acos acosh add add-dependency after-all all-gather all-gather-done
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

var pulseOpcodes = OpSet(`lgamma digamma erf-inv erfc next-after bessel-i1e`)

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

// CheckLiteral tells whether a constant's literal can be one of shape s:
// elided ({...}), one value for the whole array, or as many values as it
// has elements (pairs for complex ones, element by element for tuples),
// each a number, true, false, inf or nan (with or without a payload). It
// allocates nothing per element: a large constant costs a scan.
func CheckLiteral(lit string, s *Shape) error {
	if len(lit) < bigLiteral {
		return checkLiteral(lit, s)
	}
	// A large constant made by a pass (an FFT's DFT matrix) is checked by
	// the verifier after every later pass: its verdict is kept by content,
	// then shape (looking the literal up hashes it; nothing is copied).
	shape := s.String()
	literalVerdicts.Lock()
	err, ok := literalVerdicts.m[lit][shape]
	literalVerdicts.Unlock()
	if ok {
		return err
	}
	err = checkLiteral(lit, s)
	literalVerdicts.Lock()
	byShape := literalVerdicts.m[lit]
	if byShape == nil {
		if literalVerdicts.bytes+len(lit) > maxLiteralVerdictBytes {
			literalVerdicts.m, literalVerdicts.bytes = map[string]map[string]error{}, 0
		}
		byShape = map[string]error{}
		literalVerdicts.m[lit] = byShape
		literalVerdicts.bytes += len(lit)
	}
	byShape[shape] = err
	literalVerdicts.Unlock()
	return err
}

// bigLiteral is the literal length from which CheckLiteral keeps verdicts,
// and maxLiteralVerdictBytes how many bytes of literals it keeps before
// starting over.
const (
	bigLiteral             = 64 << 10
	maxLiteralVerdictBytes = 64 << 20
)

var literalVerdicts = struct {
	sync.Mutex
	m     map[string]map[string]error // literal -> shape -> verdict
	bytes int                         // of the literals kept
}{m: map[string]map[string]error{}}

func checkLiteral(lit string, s *Shape) error {
	t := strings.TrimSpace(lit)
	if t == "{...}" || t == "" && s.Elems() == 0 {
		return nil
	}
	if s.IsTuple {
		parts, ok := SplitTupleLiteral(t)
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
	if strings.Contains(t, "nan(") {
		t = nanPayload.ReplaceAllString(t, "nan")
	}
	per := int64(1)
	if IsComplex(s.Elem) {
		per = 2
	}
	n := int64(0)
	var bad string
	elem := s.Elem
	if IsComplex(elem) {
		elem = "f64"
	}
	for rest := t; rest != ""; {
		i := strings.IndexFunc(rest, isLiteralField)
		if i < 0 {
			break
		}
		rest = rest[i:]
		j := strings.IndexFunc(rest, func(r rune) bool { return !isLiteralField(r) })
		if j < 0 {
			j = len(rest)
		}
		n++
		if bad == "" {
			bad = literalToken(rest[:j], elem)
		}
		rest = rest[j:]
	}
	if bad != "" {
		return fmt.Errorf("%s", bad)
	}
	if n == per*s.Elems() || n == per && !strings.HasPrefix(t, "{") || n == 1 && !strings.HasPrefix(t, "{") {
		return nil
	}
	return fmt.Errorf("the literal has %d values for %s", n/per, s)
}

// isLiteralField: r is part of a literal's value, not a separator.
func isLiteralField(r rune) bool { return !strings.ContainsRune("{}(), ", r) }

// CheckLiteralValue tells whether v, one number of a literal, is a value of
// the element type elem: what the verifier checks of every constant, for
// front ends (StableHLO) that position the error in their own source.
func CheckLiteralValue(v, elem string) error {
	if msg := literalToken(v, elem); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// literalToken: f is a value an HLO literal of elem may hold ("" if so,
// else why not). Integers must be whole and within their type, as XLA's
// parser requires: a constant that wrapped (s8 300 read as 44) would be a
// silent wrong number.
func literalToken(f, elem string) string {
	switch strings.TrimPrefix(f, "-") {
	case "true", "false":
		return ""
	case "inf", "nan":
		if IsFloat(elem) {
			return ""
		}
		return fmt.Sprintf("%s is not a value of %s", f, elem)
	}
	if IsFloat(elem) || elem == "" {
		if strings.HasPrefix(f, "0x") {
			if _, err := strconv.ParseUint(f[2:], 16, 64); err == nil {
				return ""
			}
		}
		if _, err := strconv.ParseFloat(f, 64); err == nil {
			return ""
		}
		return fmt.Sprintf("bad literal value %q for %s", f, elem)
	}
	// An integer type: a whole number in range. The common case (decimal,
	// a type narrower than 64 bits) allocates nothing.
	if bits := ElemBits(elem); bits > 0 && bits < 64 && elem != Pred {
		if v, err := strconv.ParseInt(f, 10, 64); err == nil {
			lo, hi := int64(0), int64(1)<<bits-1
			if !IsUnsigned(elem) {
				lo, hi = -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
			}
			if v >= lo && v <= hi {
				return ""
			}
			return fmt.Sprintf("%s is out of range for %s (%d..%d)", f, elem, lo, hi)
		}
	}
	neg := strings.HasPrefix(f, "-")
	mag := new(big.Int)
	digits := strings.TrimPrefix(f, "-")
	base := 10
	if strings.HasPrefix(digits, "0x") {
		digits, base = digits[2:], 16
	}
	if _, ok := mag.SetString(digits, base); !ok || strings.HasPrefix(digits, "+") {
		if _, err := strconv.ParseFloat(f, 64); err == nil {
			return fmt.Sprintf("%s is not an integer, as %s needs", f, elem)
		}
		return fmt.Sprintf("bad literal value %q for %s", f, elem)
	}
	if neg {
		mag.Neg(mag)
	}
	lo, hi := intRange(elem)
	if lo == nil {
		return ""
	}
	if mag.Cmp(lo) < 0 || mag.Cmp(hi) > 0 {
		return fmt.Sprintf("%s is out of range for %s (%s..%s)", f, elem, lo, hi)
	}
	return ""
}

// intRange is the range of an integer element type (pred: 0..1); nil for
// a type that is not one.
func intRange(elem string) (lo, hi *big.Int) {
	t, _ := LookupElem(elem)
	return t.IntRange()
}

// StructuralOps are the evaluator's ops that are not elementwise and not
// collectives (see eval and evalMore).
const StructuralOps = `parameter constant tuple get-tuple-element reshape bitcast copy opt-barrier
	iota broadcast transpose dot ragged-dot convolution pad reduce-window dynamic-slice dynamic-update-slice
	reduce slice concatenate reverse call fusion while after-all conditional custom-call
	gather scatter sort topk select-and-scatter batch-norm-training batch-norm-inference batch-norm-grad
	bitcast-convert map rng rng-bit-generator rng-get-and-update-state scaled-dot stochastic-convert get-dimension-size
	set-dimension-size async-start async-update async-done partition-id replica-id add-dependency domain
	copy-start copy-done`

// elementwise holds the ops applied element by element. It is built by a
// variable initializer (not init) so that other tables may be derived from
// it in theirs.
var elementwise = OpSet(`add subtract multiply divide remainder power maximum minimum atan2 next-after and or xor not
	shift-left shift-right-logical shift-right-arithmetic popcnt count-leading-zeros compare select clamp
	abs negate sign floor ceil round-nearest-afz round-nearest-even sqrt rsqrt cbrt exponential exponential-minus-one
	log log-plus-one logistic sine cosine tan tanh erf is-finite convert reduce-precision acos acosh asin asinh atanh sinh cosh lgamma digamma erf-inv erfc bessel-i1e`)

// IsElementwise reports whether op is applied element by element.
func IsElementwise(op string) bool { return elementwise[op] }

// ElementwiseOps lists IsElementwise's opcodes, sorted.
func ElementwiseOps() []string { return sortedOps(elementwise) }

// sortedOps lists a set of opcodes, sorted.
func sortedOps(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for op := range set {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

// OpSet makes a set of the space-separated opcodes, plus those of extra sets.
func OpSet(ops string, extra ...map[string]bool) map[string]bool {
	s := map[string]bool{}
	for _, op := range strings.Fields(ops) {
		s[op] = true
	}
	for _, e := range extra {
		for op := range e {
			s[op] = true
		}
	}
	return s
}

// SplitTupleLiteral splits a tuple constant's literal, "(1, {2, 3}, (4,
// 5))", into its elements' literals; false when it is not one.
func SplitTupleLiteral(lit string) ([]string, bool) {
	lit = strings.TrimSpace(lit)
	if len(lit) < 2 || lit[0] != '(' || lit[len(lit)-1] != ')' {
		return nil, false
	}
	inner := strings.TrimSpace(lit[1 : len(lit)-1])
	if inner == "" {
		return nil, true
	}
	var parts []string
	depth, start := 0, 0
	for i, r := range inner {
		switch r {
		case '(', '{':
			depth++
		case ')', '}':
			depth--
			if depth < 0 {
				return nil, false
			}
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(inner[start:i]))
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, false
	}
	return append(parts, strings.TrimSpace(inner[start:])), true
}

// ownAsyncForms are the ops whose -start/-done are ops of their own.
var ownAsyncForms = map[string]bool{"all-reduce": true, "all-gather": true, "collective-permute": true, "copy": true, "send": true, "recv": true}

// ShortAsync splits an opcode of the short async form into the wrapped op
// and the part ("start", "update" or "done"); ok is false for any other
// opcode.
func ShortAsync(opcode string) (base, part string, ok bool) {
	for _, p := range []string{"start", "update", "done"} {
		if b, found := strings.CutSuffix(opcode, "-"+p); found && b != "async" && !ownAsyncForms[b] && knownOp(b) {
			return b, p, true
		}
	}
	return "", "", false
}

// knownOp: the evaluator or a collective implements op.
func knownOp(op string) bool {
	return elementwise[op] || collectives[op] || strings.Contains(" "+strings.Join(strings.Fields(StructuralOps), " ")+" ", " "+op+" ") ||
		op == OpAllToAll || op == OpReduceScatter || op == OpRaggedAllToAll || op == OpCollectiveBroadcast
}

// ShortAsyncInner is the op a short-form -start runs: the instruction with
// the wrapped opcode, the result's shape and the op's own attributes.
func ShortAsyncInner(in *Instruction, base string) (*Instruction, bool) {
	if in.Shape == nil || !in.Shape.IsTuple || len(in.Shape.Tuple) < 2 {
		return nil, false
	}
	inner := *in
	inner.Opcode = base
	inner.Shape = in.Shape.Tuple[1]
	inner.IsRoot = true
	inner.Attrs = nil
	for _, a := range in.Attrs {
		if !strings.HasPrefix(a.Key, "async_") {
			inner.Attrs = append(inner.Attrs, a)
		}
	}
	return &inner, true
}
