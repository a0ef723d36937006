package check

import (
	"math"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/pulse-sim/pulse/isa"
)

// Tolerance bounds how far a result may be from the reference evaluator's:
// |got - want| <= Abs*scale + Rel*|want|, where scale is the largest
// finite |want| of the whole output (at least 1). NaN must meet NaN,
// infinities must meet the same infinity, integers and pred must be equal.
//
// The absolute term scales with the output because a sum computed in
// another order (MXU tiles, f32 instead of float64) errs by a few ulps of
// its largest terms, not of its result: an element that cancels to a
// small value keeps the absolute error of the big ones (docs/RATIONALE.md,
// "Normwise tolerances").
type Tolerance struct{ Rel, Abs float64 }

// ToleranceFor is the documented tolerance of an element type (docs/hlo.md):
// a few units in the last place for a result computed with a different
// summation order or in f32 instead of float64.
func ToleranceFor(elem string) Tolerance {
	switch elem {
	case hlo.F64, hlo.C128:
		return Tolerance{Rel: 1e-12, Abs: 1e-12}
	case hlo.F32, hlo.C64:
		return Tolerance{Rel: 2e-5, Abs: 2e-5}
	case hlo.BF16:
		return Tolerance{Rel: 1.0 / 64, Abs: 1.0 / 64} // 2 ulps
	case hlo.F16:
		return Tolerance{Rel: 1.0 / 512, Abs: 1.0 / 512}
	}
	if _, ok := isa.Minifloats[elem]; ok {
		return Tolerance{Rel: 0.25, Abs: 0.25}
	}
	return Tolerance{} // integers (s64 and u64 carried as bits), pred: exact
}

// Diff summarizes how an output differs from the reference.
type Diff struct {
	MaxAbs, MaxRel      float64
	Mismatches          int // elements beyond tolerance
	First               int // index of the first one (-1: none)
	FirstGot, FirstWant float64
}

// Compare checks got against want element by element with want's
// element type's tolerance.
func Compare(got, want *eval.Value) Diff { return CompareWithin(got, want, 0) }

// CompareWithin is Compare with an absolute allowance added to every
// element's tolerance: the output's measured rounding noise (check.go).
func CompareWithin(got, want *eval.Value, allowance float64) Diff {
	d := Diff{First: -1}
	tol := ToleranceFor(want.Shape.Elem)
	n := len(want.Data)
	if len(got.Data) != n {
		d.Mismatches = max(n, len(got.Data))
		d.First = 0
		return d
	}
	if elem := want.Shape.Elem; hlo.IsWide(elem) {
		// Carried bits (IsWide): equal or not; the errors as numbers.
		for i, w := range want.Data {
			if math.Float64bits(got.Data[i]) == math.Float64bits(w) {
				continue
			}
			g, x := scalar.WideNumber(elem, got.Data[i]), scalar.WideNumber(elem, w)
			d.MaxAbs = math.Max(d.MaxAbs, math.Abs(g-x))
			if d.Mismatches == 0 {
				d.First, d.FirstGot, d.FirstWant = i, g, x
			}
			d.Mismatches++
		}
		return d
	}
	scale := 1.0
	for _, w := range want.Data {
		if a := math.Abs(w); a > scale && !math.IsInf(a, 0) {
			scale = a
		}
	}
	for i, w := range want.Data {
		g := got.Data[i]
		ok := true
		switch {
		case math.IsNaN(w) || math.IsNaN(g):
			ok = math.IsNaN(w) && math.IsNaN(g)
		case math.IsInf(w, 0) || math.IsInf(g, 0):
			ok = g == w
		default:
			e := math.Abs(g - w)
			d.MaxAbs = math.Max(d.MaxAbs, e)
			if w != 0 {
				d.MaxRel = math.Max(d.MaxRel, e/math.Abs(w))
			}
			ok = e <= tol.Abs*scale+tol.Rel*math.Abs(w)+allowance
		}
		if !ok {
			if d.Mismatches == 0 {
				d.First, d.FirstGot, d.FirstWant = i, g, w
			}
			d.Mismatches++
		}
	}
	return d
}
