package grade

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/labs"
)

// fill makes the values of input tensor t for one test. spec is a case's
// fill ("" or "random": uniform in the tensor's range), one of
//
//	zeros  ones  const:V  uniform:LO:HI  ramp  identity  rowconst:LO:HI
//
// Values are rounded to the tensor's dtype, so the reference computes on
// exactly what the machine holds.
func fill(t labs.Tensor, spec string, rng *rand.Rand) ([]float64, error) {
	n := t.Elems()
	v := make([]float64, n)
	lo, hi := -1.0, 1.0
	if len(t.Range) == 2 {
		lo, hi = t.Range[0], t.Range[1]
	}
	kind, args, _ := strings.Cut(spec, ":")
	nums, err := parseNums(args)
	if err != nil {
		return nil, fmt.Errorf("fill %q: %v", spec, err)
	}
	cols := t.Shape[len(t.Shape)-1]
	switch kind {
	case "", "random":
		for i := range v {
			v[i] = lo + (hi-lo)*rng.Float64()
		}
	case "zeros":
	case "ones":
		for i := range v {
			v[i] = 1
		}
	case "const":
		if len(nums) != 1 {
			return nil, fmt.Errorf("fill %q: const takes one value", spec)
		}
		for i := range v {
			v[i] = nums[0]
		}
	case "uniform":
		if len(nums) != 2 {
			return nil, fmt.Errorf("fill %q: uniform takes LO:HI", spec)
		}
		for i := range v {
			v[i] = nums[0] + (nums[1]-nums[0])*rng.Float64()
		}
	case "ramp":
		// 1, 2, 3, ... scaled into the range: every element distinct, so
		// an element read from the wrong place shows.
		for i := range v {
			v[i] = lo + (hi-lo)*float64(i+1)/float64(n+1)
		}
	case "identity":
		if len(t.Shape) != 2 {
			return nil, fmt.Errorf("fill identity: tensor %s is not a matrix", t.Name)
		}
		for i := 0; i < t.Shape[0] && i < cols; i++ {
			v[i*cols+i] = 1
		}
	case "rowconst":
		if len(nums) != 2 {
			return nil, fmt.Errorf("fill %q: rowconst takes LO:HI", spec)
		}
		for r := 0; r < n/cols; r++ {
			x := nums[0] + (nums[1]-nums[0])*rng.Float64()
			for c := 0; c < cols; c++ {
				v[r*cols+c] = x
			}
		}
	default:
		return nil, fmt.Errorf("unknown fill %q (random, zeros, ones, const:V, uniform:LO:HI, ramp, identity, rowconst:LO:HI)", spec)
	}
	d, ok := isa.ParseDType(t.DType)
	if !ok {
		return nil, fmt.Errorf("tensor %s: unknown dtype %q", t.Name, t.DType)
	}
	for i := range v {
		v[i] = isa.Round(d, v[i])
	}
	return v, nil
}

func parseNums(s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ":") {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(x) {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		out = append(out, x)
	}
	return out, nil
}
