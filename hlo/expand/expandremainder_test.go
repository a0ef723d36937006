package expand_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestExpandFloatRemainders: the chips' exact long division gives math.Mod
// bit for bit (the evaluator's own remainder) on every float type: huge
// and tiny quotients, subnormals, signs, zeros, infinities and NaNs.
func TestExpandFloatRemainders(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	special := []float64{0, math.Copysign(0, -1), 1, -1, 3, -7.5, 1e-40, -1e-45, 1e-300, 5e-324, 1e38, 3.4e38, 1e300, 1.7e308,
		math.Inf(1), math.Inf(-1), math.NaN(), 0.1, 2.5, 1 << 24, 1<<24 + 1, 6.02e23, 1e-7}
	for _, elem := range []string{"f32", "f64", "f16", "bf16"} {
		var xs, ys []float64
		for _, a := range special {
			for _, b := range special {
				xs, ys = append(xs, a), append(ys, b)
			}
		}
		for range 2000 {
			xs = append(xs, math.Ldexp(rng.Float64()*2-1, rng.IntN(300)-150))
			ys = append(ys, math.Ldexp(rng.Float64()*2-1, rng.IntN(300)-150))
		}
		n := len(xs)
		src := fmt.Sprintf("ENTRY e {\n x = %s[%d] parameter(0)\n y = %s[%d] parameter(1)\n ROOT r = %s[%d] remainder(x, y)\n}\n", elem, n, elem, n, elem, n)
		m, err := hlo.Parse("r.hlo", src)
		require.NoError(t, err)
		require.NoError(t, verify.Verify("r.hlo", m))
		round := scalar.Rounder(elem)
		args := []*eval.Value{{Shape: &hlo.Shape{Elem: elem, Dims: []int64{int64(n)}}, Data: make([]float64, n)}, {Shape: &hlo.Shape{Elem: elem, Dims: []int64{int64(n)}}, Data: make([]float64, n)}}
		for i := range xs {
			args[0].Data[i], args[1].Data[i] = round(xs[i]), round(ys[i])
		}
		want, err := (&eval.Evaluator{File: "r.hlo", M: m}).Run(args)
		require.NoError(t, err)
		x := m.Clone()
		require.NoError(t, expand.ExpandFloatRemainders(x))
		require.NoError(t, verify.Verify("x.hlo", x), elem)
		require.NotContains(t, x.String(), "remainder(", elem)
		got, err := (&eval.Evaluator{File: "x.hlo", M: x}).Run(args)
		require.NoError(t, err, elem)
		for i := range want.Data {
			w, g := want.Data[i], got.Data[i]
			if math.IsNaN(w) {
				require.True(t, math.IsNaN(g), "%s fmod(%g, %g): got %g, want NaN", elem, args[0].Data[i], args[1].Data[i], g)
				continue
			}
			require.Equal(t, math.Float64bits(w), math.Float64bits(g), "%s fmod(%g, %g): got %g, want %g", elem, args[0].Data[i], args[1].Data[i], g, w)
		}
	}
}
