package expand_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/stretchr/testify/require"
)

// TestExpandErfInvs: the chips' erf-inv (Giles' approximation, evaluated
// here in f32 as the chips run it) against math.Erfinv over the open
// interval, near ±1 and at 0 and ±1: within 2e-6 relative (the
// approximation is good to about 4e-7, f32 arithmetic adds a few ulps),
// 1e-5 beyond |x| = 0.999 where rounding x^2 is amplified.
func TestExpandErfInvs(t *testing.T) {
	var xs []string
	var want []float64
	for i := -999; i <= 999; i += 3 {
		v := float64(float32(float64(i) / 1000))
		xs, want = append(xs, fmt.Sprint(v)), append(want, math.Erfinv(v))
	}
	for _, v := range []float64{0.9999, -0.99999, 0.999999, 1, -1, 0} {
		v = float64(float32(v))
		xs, want = append(xs, fmt.Sprint(v)), append(want, math.Erfinv(v))
	}
	n := len(xs)
	src := fmt.Sprintf("HloModule e\nENTRY e {\n  x = f32[%d] constant({%s})\n  ROOT y = f32[%d] erf-inv(x)\n}\n", n, strings.Join(xs, ", "), n)
	m, err := hlo.Parse("e.hlo", src)
	require.NoError(t, err)
	require.NoError(t, expand.ExpandErfInvs(m))
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			require.NotEqual(t, "erf-inv", in.Opcode)
		}
	}
	got, err := (&eval.Evaluator{File: "e.hlo", M: m}).Run(nil)
	require.NoError(t, err)
	for i, w := range want {
		if math.IsInf(w, 0) {
			require.Equal(t, w, got.Data[i], "x = %s", xs[i])
			continue
		}
		tol := 2e-6 // near ±1, x^2's rounding in log1p(-x^2) costs more
		if math.Abs(w) > 2.3 {
			tol = 1e-5
		}
		require.InDelta(t, w, got.Data[i], tol*math.Abs(w)+1e-12, "x = %s", xs[i])
	}
}

// TestExpandErfcs: the chips' erfc (Cephes, as XLA computes it) in f32
// and f64 against math.Erfc from -4 to 9: within 2e-6 relative in f32,
// 1e-14 in f64, times x^2/4 beyond 2 (exp(-x^2) inherits x^2's rounding).
func TestExpandErfcs(t *testing.T) {
	for _, c := range []struct {
		elem string
		tol  float64
	}{{"f32", 2e-6}, {"f64", 1e-14}} {
		var xs []string
		var in []float64
		for i := -400; i <= 900; i += 7 {
			v := float64(i) / 100
			if c.elem == "f32" {
				v = float64(float32(v))
			}
			xs, in = append(xs, fmt.Sprint(v)), append(in, v)
		}
		n := len(xs)
		src := fmt.Sprintf("HloModule e\nENTRY e {\n  x = %s[%d] constant({%s})\n  ROOT y = %s[%d] erfc(x)\n}\n", c.elem, n, strings.Join(xs, ", "), c.elem, n)
		m, err := hlo.Parse("e.hlo", src)
		require.NoError(t, err)
		require.NoError(t, expand.ExpandErfcs(m))
		got, err := (&eval.Evaluator{File: "e.hlo", M: m}).Run(nil)
		require.NoError(t, err)
		for i, v := range in {
			w := math.Erfc(v)
			// exp(-x^2) inherits x^2's rounding, amplified by x^2.
			tol := c.tol * max(1, v*v/4)
			require.InDelta(t, w, got.Data[i], tol*w+1e-300, "%s erfc(%v)", c.elem, v)
		}
	}
}

// TestExpandBesselI1es: the chips' bessel-i1e (Cephes' Chebyshev series,
// as XLA computes it) against the evaluator's own (a power series, then
// Hankel's expansion) from -40 to 40: 2e-6 relative in f32, 1e-13 in f64.
func TestExpandBesselI1es(t *testing.T) {
	for _, c := range []struct {
		elem string
		tol  float64
	}{{"f32", 2e-6}, {"f64", 1e-13}} {
		var xs []string
		for i := -4000; i <= 4000; i += 37 {
			xs = append(xs, fmt.Sprint(float64(i)/100))
		}
		n := len(xs)
		src := fmt.Sprintf("HloModule b\nENTRY e {\n  x = %s[%d] constant({%s})\n  ROOT y = %s[%d] bessel-i1e(x)\n}\n", c.elem, n, strings.Join(xs, ", "), c.elem, n)
		m, err := hlo.Parse("b.hlo", src)
		require.NoError(t, err)
		want, err := (&eval.Evaluator{File: "b.hlo", M: m}).Run(nil)
		require.NoError(t, err)
		x := m.Clone()
		require.NoError(t, expand.ExpandBesselI1es(x))
		got, err := (&eval.Evaluator{File: "b.hlo", M: x}).Run(nil)
		require.NoError(t, err)
		for i, w := range want.Data {
			require.InDelta(t, w, got.Data[i], c.tol*math.Abs(w)+1e-30, "%s bessel_i1e(%s)", c.elem, xs[i])
		}
	}
}

// TestExpandErf64: the chips' f64 erf (Cephes: x T(x^2)/U(x^2) within
// (-1, 1), 1 - erfc's tail beyond, as XLA computes it) against math.Erf
// from -6 to 6, ±1 and 0 included: within 1e-15 (absolute near 0).
func TestExpandErf64(t *testing.T) {
	var xs []string
	var in []float64
	for i := -600; i <= 600; i += 7 {
		in = append(in, float64(i)/100)
	}
	in = append(in, 1, -1, 0)
	for _, v := range in {
		xs = append(xs, fmt.Sprint(v))
	}
	n := len(xs)
	src := fmt.Sprintf("HloModule e\nENTRY e {\n  x = f64[%d] constant({%s})\n  ROOT y = f64[%d] erf(x)\n}\n", n, strings.Join(xs, ", "), n)
	m, err := hlo.Parse("e.hlo", src)
	require.NoError(t, err)
	require.NoError(t, expand.ExpandErfAndActivations(m))
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			require.NotEqual(t, "erf", in.Opcode)
		}
	}
	got, err := (&eval.Evaluator{File: "e.hlo", M: m}).Run(nil)
	require.NoError(t, err)
	for i, v := range in {
		require.InDelta(t, math.Erf(v), got.Data[i], 1e-15, "erf(%v)", v)
	}
}

// TestErfInv64: the evaluator's f64 erf-inv (XLA's polynomials) against
// math.Erfinv: within 1e-14 relative up to |x| = 0.99, 1e-11 beyond (x^2's
// rounding in log1p(-x^2) is amplified there), ±inf at ±1.
func TestErfInv64(t *testing.T) {
	for i := -999999; i <= 999999; i += 997 {
		x := float64(i) / 1e6
		w := math.Erfinv(x)
		tol := 1e-14
		if math.Abs(x) > 0.99 {
			tol = 1e-11
		}
		require.InDelta(t, w, scalar.ErfInv64(x), tol*math.Abs(w)+1e-300, "erfinv(%v)", x)
	}
	for _, x := range []float64{1 - 1e-9, -(1 - 1e-12), 1e-300} {
		w := math.Erfinv(x)
		require.InDelta(t, w, scalar.ErfInv64(x), 1e-9*math.Abs(w)+1e-300, "erfinv(%v)", x)
	}
	require.Equal(t, math.Inf(1), scalar.ErfInv64(1))
	require.Equal(t, math.Inf(-1), scalar.ErfInv64(-1))
}
