package isa

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestE8M0: f8e8m0fnu holds powers of two 2^-127..2^127, 0xFF is NaN;
// conversions round as ml_dtypes' (significand to nearest even at no
// fraction bits: a tie 1.5 x 2^k goes up), and what it cannot hold (zero,
// negatives, infinities, beyond 2^127) is NaN.
func TestE8M0(t *testing.T) {
	f := Minifloats["f8e8m0fnu"]
	require.Equal(t, math.Ldexp(1, -127), f.Value(0))
	require.Equal(t, 1.0, f.Value(127))
	require.Equal(t, math.Ldexp(1, 127), f.Value(0xFE))
	require.True(t, math.IsNaN(f.Value(0xFF)))
	for _, c := range []struct{ x, want float64 }{
		{1, 1}, {0.3, 0.25}, {5, 4}, {6, 8}, {3, 4}, {1.4999, 1}, {1.5, 2}, {2.9, 2}, {0.75, 1},
		{math.Ldexp(1, 127), math.Ldexp(1, 127)}, {math.Ldexp(1.4, 127), math.Ldexp(1, 127)},
		{math.Ldexp(1, -127), math.Ldexp(1, -127)}, {math.Ldexp(1, -128), math.Ldexp(1, -127)},
		{math.Ldexp(1.6, -127), math.Ldexp(1, -126)},
	} {
		require.Equal(t, c.want, f.Round(c.x), "%g", c.x)
		require.Equal(t, c.want, f.Value(f.Code(c.want)), "code of %g", c.want)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1, -0.5, math.Inf(1), math.Inf(-1), math.NaN(), math.Ldexp(1.5, 127), math.Ldexp(1, 128)} {
		require.True(t, math.IsNaN(f.Round(x)), "%g", x)
	}
	require.Equal(t, uint64(0xFF), f.Code(math.NaN()))
}
