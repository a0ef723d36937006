package validate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/config"
)

// Fitting one constant.
//
// A key whose value no specification gives (marked [design] in
// docs/chips.md) may be fitted to measurements: Fit finds the value in a
// range that minimizes the overall MAPE of the given rows, by
// golden-section search (the error is taken to fall and then rise over
// the range; each evaluation simulates every row). The fitted value is
// rounded to three significant digits, and the error is reported at it
// and at the chip's own value, so that docs/validation.md can list both
// (pulse validate --fit).

// FitSpec is a key and the range to search: "hbm.latency_ns=50:1000".
type FitSpec struct {
	Key    string
	Lo, Hi float64
}

// ParseFitSpec reads KEY=LO:HI.
func ParseFitSpec(s string) (FitSpec, error) {
	key, rng, ok := strings.Cut(s, "=")
	lo, hi, ok2 := strings.Cut(rng, ":")
	if !ok || !ok2 || key == "" {
		return FitSpec{}, fmt.Errorf("%q: want KEY=LO:HI (hbm.latency_ns=50:1000)", s)
	}
	a, err1 := strconv.ParseFloat(lo, 64)
	b, err2 := strconv.ParseFloat(hi, 64)
	if err1 != nil || err2 != nil || !(a < b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return FitSpec{}, fmt.Errorf("%q: the range must be two numbers, low below high", s)
	}
	return FitSpec{Key: key, Lo: a, Hi: b}, nil
}

// FitResult is a fitted constant and the error with and without it.
type FitResult struct {
	Key     string  `json:"key"`
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
	Value   float64 `json:"value"`   // the fitted value
	Default string  `json:"default"` // the chip's own value
	// MAPE at the fitted value and at the chip's own, over the rows.
	MAPE        float64 `json:"mape"`
	MAPEDefault float64 `json:"mape_default"`
	Evaluations int     `json:"evaluations"`
}

// fitIterations bounds the search: the bracket shrinks by 0.618 each
// time, to a 1/8000th of the range after 18.
const fitIterations = 18

// Fit fits spec's key over ms (on opt's chip and overrides) and returns
// the report at the fitted value with the fit. progress, if set, hears
// of each evaluation.
func Fit(ms []Measurement, opt Options, spec FitSpec, progress func(value, mape float64)) (*Report, *FitResult, error) {
	res := &FitResult{Key: spec.Key, Lo: spec.Lo, Hi: spec.Hi}
	// The key and its range are checked on every row's chip before any
	// work: a typo is an error now, not after the first full run.
	seen := map[string]bool{}
	for _, m := range ms {
		name := m.Chip
		if opt.Chip != "" {
			name = opt.Chip
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, v := range []float64{spec.Lo, spec.Hi} {
			sets := append(append([]string(nil), opt.Sets...), fmt.Sprintf("%s=%s", spec.Key, strconv.FormatFloat(v, 'g', -1, 64)))
			if _, err := config.Load(name, sets); err != nil {
				return nil, nil, fmt.Errorf("--fit %s=%g:%g on chip %s: %v", spec.Key, spec.Lo, spec.Hi, name, err)
			}
		}
	}
	at := func(v float64) (*Report, error) {
		o := opt
		o.Sets = append(append([]string(nil), opt.Sets...), fmt.Sprintf("%s=%s", spec.Key, strconv.FormatFloat(v, 'g', -1, 64)))
		o.OnRow = nil
		rep, err := Run(ms, o)
		if err != nil {
			return nil, err
		}
		res.Evaluations++
		if progress != nil {
			progress(v, rep.Overall.MAPE)
		}
		return rep, nil
	}
	base, err := Run(ms, Options{Chip: opt.Chip, Sets: opt.Sets})
	if err != nil {
		return nil, nil, err
	}
	res.MAPEDefault = base.Overall.MAPE
	res.Default = defaultValue(ms, opt, spec.Key)
	phi := (math.Sqrt(5) - 1) / 2
	a, b := spec.Lo, spec.Hi
	x1, x2 := b-phi*(b-a), a+phi*(b-a)
	r1, err := at(x1)
	if err != nil {
		return nil, nil, fmt.Errorf("--fit %s=%g: %v", spec.Key, x1, err)
	}
	r2, err := at(x2)
	if err != nil {
		return nil, nil, fmt.Errorf("--fit %s=%g: %v", spec.Key, x2, err)
	}
	for range fitIterations {
		if r1.Overall.MAPE <= r2.Overall.MAPE {
			b, x2, r2 = x2, x1, r1
			x1 = b - phi*(b-a)
			if r1, err = at(x1); err != nil {
				return nil, nil, err
			}
		} else {
			a, x1, r1 = x1, x2, r2
			x2 = a + phi*(b-a)
			if r2, err = at(x2); err != nil {
				return nil, nil, err
			}
		}
	}
	v := x1
	if r2.Overall.MAPE < r1.Overall.MAPE {
		v = x2
	}
	res.Value = roundSig(v, 3)
	rep, err := at(res.Value)
	if err != nil {
		return nil, nil, err
	}
	res.MAPE = rep.Overall.MAPE
	return rep, res, nil
}

// defaultValue is the key's value on the chip of the first row (the
// chip a fit is meant for), as text.
func defaultValue(ms []Measurement, opt Options, key string) string {
	name := opt.Chip
	if name == "" && len(ms) > 0 {
		name = ms[0].Chip
	}
	c, err := config.Load(name, opt.Sets)
	if err != nil {
		return "?"
	}
	v, err := c.Get(key)
	if err != nil {
		return "?"
	}
	return fmt.Sprint(v)
}

func roundSig(v float64, digits int) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
