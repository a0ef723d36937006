package stablehlo

import (
	"fmt"
	"math"
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/pulse-sim/pulse/hlo/verify"
)

// Status of a test file.
const (
	Pass = "pass"
	Fail = "fail"
	// Rounding: an expect_close or expect_almost_eq check failed, but by
	// no more than rounding alone moves the computed value (measured
	// with Monte Carlo arithmetic, RoundingNoise): the reference and
	// Pulse order their arithmetic differently on a computation that
	// amplifies rounding. Neither a pass nor wrong numbers.
	Rounding    = "rounding"
	Unsupported = "unsupported"
	ErrorStatus = "error"
)

// Outcome is a test file's result.
type Outcome struct {
	File    string `json:"file"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// Evaluate computes the entry's root tuple on the host evaluator.
func Evaluate(r *Result) ([]*eval.Value, error) {
	if err := verify.Verify(r.File, r.Module); err != nil {
		return nil, err
	}
	v, err := (&eval.Evaluator{File: r.File, M: r.Module}).Run(nil)
	if err != nil {
		return nil, err
	}
	if v.Tuple != nil {
		return v.Tuple, nil
	}
	return []*eval.Value{v}, nil
}

// CheckFailure is a check that did not hold: its line, and the first
// element that differs.
type CheckFailure struct {
	Line    int
	Kind    string
	Element int
	msg     string
}

func (f *CheckFailure) Error() string { return f.msg }

// CheckAll applies the module's checks to its computed root values; the
// first failure is returned (a *CheckFailure when numbers differ).
func CheckAll(r *Result, vals []*eval.Value) error {
	return checkWithin(r, vals, nil)
}

// checkWithin is CheckAll with each value's elements also accepted within
// slack[value index] of the expected (nil: no slack).
func checkWithin(r *Result, vals []*eval.Value, slack map[int]float64) error {
	if len(r.Checks) == 0 {
		return fmt.Errorf("no check.expect_* call: nothing to compare")
	}
	for _, c := range r.Checks {
		var got []*eval.Value
		var idx []int
		for _, i := range c.Outputs {
			k := r.Outputs + i
			if k >= len(vals) {
				return fmt.Errorf("line %d: internal error: check operand %d missing", c.Line, i)
			}
			got = append(got, vals[k])
			idx = append(idx, k)
		}
		if len(got) != 2 {
			return fmt.Errorf("line %d: check.%s with %d operands is not supported", c.Line, c.Kind, len(got))
		}
		a, b := got[0], got[1]
		if len(a.Data) != len(b.Data) {
			return fmt.Errorf("line %d: check.%s: %d elements against %d", c.Line, c.Kind, len(a.Data), len(b.Data))
		}
		tol := slack[idx[0]] + slack[idx[1]]
		for i := range a.Data {
			x, y := a.Data[i], b.Data[i]
			if elem := a.Shape.Elem; hlo.IsWide(elem) {
				// Carried as bits (hlo.IsWide): equal or not.
				if scalar.Bits(elem, x) != scalar.Bits(elem, y) {
					return &CheckFailure{Line: c.Line, Kind: c.Kind, Element: i,
						msg: fmt.Sprintf("line %d: check.%s: element %d is %s, expected %s", c.Line, c.Kind, i, wideText(elem, x), wideText(elem, y))}
				}
				continue
			}
			if !close(c, a.Shape.Elem, x, y) && !(tol > 0 && math.Abs(x-y) <= tol) {
				return &CheckFailure{Line: c.Line, Kind: c.Kind, Element: i,
					msg: fmt.Sprintf("line %d: check.%s: element %d is %v, expected %v", c.Line, c.Kind, i, x, y)}
			}
		}
	}
	return nil
}

// RoundingNoise measures, for each root value of the module, how far
// rounding alone moves it: the module evaluated with Monte Carlo
// arithmetic (eval.Evaluator.Perturb, seeds 1 to eval.NoiseSamples, each
// rounded result moved by up to an ulp) against the plain evaluation, the
// largest move per value (0 for constants and integers). The same
// measure --check uses (docs/hlo.md).
func RoundingNoise(r *Result) (map[int]float64, error) {
	ref, err := Evaluate(r)
	if err != nil {
		return nil, err
	}
	noise := map[int]float64{}
	for seed := uint64(1); seed <= check.NoiseSamples; seed++ {
		v, err := (&eval.Evaluator{File: r.File, M: r.Module, Perturb: seed}).Run(nil)
		if err != nil {
			return nil, err
		}
		vals := []*eval.Value{v}
		if v.Tuple != nil {
			vals = v.Tuple
		}
		for i := range min(len(vals), len(ref)) {
			noise[i] = max(noise[i], check.Noise(vals[i], ref[i]))
		}
	}
	return noise, nil
}

// withinRounding reports whether a failed close check is explained by
// rounding: every check holds once each value may also differ by
// eval.NoiseFactor times its measured rounding noise. Exact checks
// (expect_eq) are never explained so.
func withinRounding(r *Result, vals []*eval.Value, f *CheckFailure) (bool, float64, error) {
	if f.Kind != "expect_close" && f.Kind != "expect_almost_eq" && f.Kind != "expect_almost_eq_const" {
		return false, 0, nil
	}
	noise, err := RoundingNoise(r)
	if err != nil {
		return false, 0, err
	}
	slack := map[int]float64{}
	most := 0.0
	for k, n := range noise {
		slack[k] = check.NoiseFactor * n
		most = max(most, n)
	}
	return most > 0 && checkWithin(r, vals, slack) == nil, most, nil
}

// close judges one element: expect_eq exactly (NaN equals NaN),
// expect_almost_eq within 1e-4 (relative above 1), expect_close within MaxULP units in the
// last place of the element type.
func close(c Check, elem string, x, y float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	if x == y { // infinities included
		return true
	}
	switch c.Kind {
	case "expect_eq", "expect_eq_const":
		return x == y
	case "expect_almost_eq", "expect_almost_eq_const":
		return math.Abs(x-y) <= 1e-4*math.Max(1, math.Abs(y))
	}
	if x == y {
		return true
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return false
	}
	return ulps(elem, x, y) <= c.MaxULP
}

// ulps counts representable values of elem between x and y.
func ulps(elem string, x, y float64) int64 {
	ord := func(v float64) int64 {
		switch elem {
		case hlo.F64:
			b := int64(math.Float64bits(v))
			if b < 0 {
				b = math.MinInt64 - b
			}
			return b
		case hlo.F16:
			return int64(math.Round(v)) // handled below
		}
		b := int64(int32(math.Float32bits(float32(v))))
		if b < 0 {
			b = math.MinInt32 - b
		}
		switch elem {
		case hlo.BF16:
			return b >> 16
		}
		return b
	}
	if elem == hlo.F16 {
		// f16 spacing: 2^(e-10) for normal numbers.
		m := math.Max(math.Abs(x), math.Abs(y))
		e := math.Max(math.Floor(math.Log2(m)), -14)
		return int64(math.Ceil(math.Abs(x-y) / math.Pow(2, e-10)))
	}
	if elem != hlo.F32 && elem != hlo.F64 && elem != hlo.BF16 {
		return int64(math.Abs(x - y)) // integers: exact differences
	}
	d := ord(x) - ord(y)
	if d < 0 {
		d = -d
	}
	return d
}

// wideText prints an s64/u64 value exactly.
func wideText(elem string, x float64) string {
	if elem == hlo.U64 {
		return strconv.FormatUint(scalar.Bits(elem, x), 10)
	}
	return strconv.FormatInt(int64(scalar.Bits(elem, x)), 10)
}
