package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxAxisValues bounds one axis, so that a typo in a range ("1:1e9:1")
// is an error rather than an hour of expansion.
const maxAxisValues = 100_000

// ParseValues reads an axis's values: a comma list ("ws,os,is"), an
// arithmetic range "start:stop:step" (stop included when reached), or a
// geometric range "start:stop:xF" ("32:256:x2" is 32,64,128,256).
func ParseValues(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("no values")
	}
	parts := strings.Split(s, ":")
	if len(parts) == 1 {
		var out []string
		for _, v := range strings.Split(s, ",") {
			v = strings.TrimSpace(v)
			if v == "" {
				return nil, fmt.Errorf("%q: an empty value in the list", s)
			}
			out = append(out, v)
		}
		return out, nil
	}
	if len(parts) != 3 {
		return nil, fmt.Errorf("%q: a range is start:stop:step or start:stop:xFACTOR", s)
	}
	num := func(what, t string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("%q: the %s %q is not a number", s, what, t)
		}
		return f, nil
	}
	start, err := num("start", parts[0])
	if err != nil {
		return nil, err
	}
	stop, err := num("stop", parts[1])
	if err != nil {
		return nil, err
	}
	step := strings.TrimSpace(parts[2])
	ints := isInt(parts[0]) && isInt(parts[1])
	var out []string
	emit := func(v float64) error {
		if len(out) == maxAxisValues {
			return fmt.Errorf("%q: more than %d values", s, maxAxisValues)
		}
		out = append(out, fmtValue(v, ints))
		return nil
	}
	if f, ok := strings.CutPrefix(step, "x"); ok {
		factor, err := num("factor", f)
		if err != nil {
			return nil, err
		}
		if factor <= 1 || start <= 0 {
			return nil, fmt.Errorf("%q: a geometric range needs start > 0 and a factor above 1", s)
		}
		ints = ints && isInt(f)
		for v := start; v <= stop*(1+1e-12); v *= factor {
			if err := emit(v); err != nil {
				return nil, err
			}
		}
	} else {
		d, err := num("step", step)
		if err != nil {
			return nil, err
		}
		if d == 0 || (stop-start)*d < 0 {
			return nil, fmt.Errorf("%q: the step %s never reaches the stop", s, step)
		}
		ints = ints && isInt(step)
		n := math.Floor((stop-start)/d+1e-9) + 1
		if n > maxAxisValues {
			return nil, fmt.Errorf("%q: more than %d values", s, maxAxisValues)
		}
		for i := 0; i < int(n); i++ {
			if err := emit(start + float64(i)*d); err != nil {
				return nil, err
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q: the range is empty", s)
	}
	return out, nil
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return err == nil
}

// fmtValue prints a range value as --set takes it, without binary
// rounding noise (0.1+0.2 prints 0.3).
func fmtValue(v float64, integer bool) string {
	if integer {
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return strconv.FormatFloat(r, 'g', -1, 64)
}
