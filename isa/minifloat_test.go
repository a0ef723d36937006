package isa

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMinifloatCodes: every code of every small float decodes to a value
// that rounds to itself and encodes back to the same code (NaN to the
// canonical NaN), and the formats' extremes are the published ones.
func TestMinifloatCodes(t *testing.T) {
	maxima := map[string]float64{"f8e5m2": 57344, "f8e4m3": 240, "f8e3m4": 15.5, "f8e4m3fn": 448,
		"f8e4m3fnuz": 240, "f8e5m2fnuz": 57344, "f8e4m3b11fnuz": 30, "f4e2m1fn": 6, "f8e8m0fnu": math.Ldexp(1, 127)}
	for name, f := range Minifloats {
		require.Equal(t, maxima[name], f.value[f.pos[len(f.pos)-1]], name)
		for c, v := range f.value {
			if math.IsNaN(v) {
				require.True(t, math.IsNaN(f.Round(v)), name)
				require.True(t, math.IsNaN(f.value[f.Code(v)]), name)
				continue
			}
			require.Equal(t, v, f.Round(v), "%s code %#x", name, c)
			require.Equal(t, uint64(c), f.Code(v), "%s code %#x", name, c)
		}
	}
}

// TestMinifloatRoundingMatchesBruteForce: rounding any float64 gives the
// nearest representable value (ties to the even code), checked against a
// scan of all codes on a grid of inputs. (f8e8m0fnu rounds its own way:
// TestE8M0.)
func TestMinifloatRoundingMatchesBruteForce(t *testing.T) {
	for name, f := range Minifloats {
		if f.kind == e8m0 {
			continue
		}
		maxv := f.value[f.pos[len(f.pos)-1]]
		for x := -maxv; x <= maxv; x += maxv / 3001 {
			best, bestCode := math.Inf(1), -1
			for _, c := range f.pos {
				d := math.Abs(math.Abs(x) - f.value[c])
				if d < best || d == best && c&1 == 0 {
					best, bestCode = d, c
				}
			}
			want := math.Copysign(f.value[bestCode], x)
			if f.kind == fnuz && want == 0 {
				want = 0
			}
			got := f.Round(x)
			require.True(t, got == want && math.Signbit(got) == math.Signbit(want), "%s(%v) = %v, want %v", name, x, got, want)
		}
	}
}

// The bounds the rewrites use as identities of maximum and minimum.
func TestMinifloatBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		max  float64
		inf  bool
	}{
		{"f8e5m2", 57344, true}, {"f8e4m3", 240, true}, {"f8e3m4", 15.5, true},
		{"f8e4m3fn", 448, false}, {"f8e4m3fnuz", 240, false}, {"f8e5m2fnuz", 57344, false},
		{"f8e4m3b11fnuz", 30, false}, {"f4e2m1fn", 6, false},
	} {
		f := Minifloats[c.name]
		if f.MaxFinite() != c.max || f.HasInf() != c.inf {
			t.Errorf("%s: max %v inf %v, want %v %v", c.name, f.MaxFinite(), f.HasInf(), c.max, c.inf)
		}
	}
}

func TestMinifloatUlp(t *testing.T) {
	f := Minifloats["f8e4m3fn"]
	for _, c := range []struct{ x, ulp float64 }{
		{1, 0.125}, {0.875, 0.0625}, {-3, 0.25}, {448, 32}, {0, 1.0 / 512}, {1.0 / 256, 1.0 / 512},
	} {
		if got := f.Ulp(c.x); got != c.ulp {
			t.Errorf("Ulp(%v) = %v, want %v", c.x, got, c.ulp)
		}
	}
}
