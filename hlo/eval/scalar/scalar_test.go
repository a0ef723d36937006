package scalar_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo/eval/scalar"
)

// TestBitsRoundTrip: an element's bit pattern reads back as the element,
// for floats, narrow and wide integers and pred.
func TestBitsRoundTrip(t *testing.T) {
	for _, c := range []struct {
		elem string
		x    float64
		bits uint64
	}{
		{"f32", 1, 0x3f800000},
		{"bf16", -2, 0xc000},
		{"f16", 0.5, 0x3800},
		{"f64", math.Inf(-1), 0xfff0000000000000},
		{"s8", -1, 0xff},
		{"u16", 65535, 0xffff},
		{"s32", -2147483648, 0x80000000},
		{"pred", 1, 1},
		{"s64", math.Float64frombits(1 << 63), 1 << 63}, // wide: carried as bits
	} {
		b := scalar.Bits(c.elem, c.x)
		require.Equal(t, c.bits, b, "%s %v", c.elem, c.x)
		back := scalar.FromBits(c.elem, b)
		require.Equal(t, math.Float64bits(c.x), math.Float64bits(back), "%s %v", c.elem, c.x)
	}
}

// TestConvertSaturatesAndWraps: float to integer conversions saturate (NaN
// is 0), integer to integer ones wrap, as XLA's do.
func TestConvertSaturatesAndWraps(t *testing.T) {
	require.Equal(t, 127.0, scalar.Convert("f32", "s8", 1000))
	require.Equal(t, -128.0, scalar.Convert("f32", "s8", -1000))
	require.Equal(t, 0.0, scalar.Convert("f32", "s32", math.NaN()))
	require.Equal(t, -1.0, scalar.Convert("s32", "s8", 255))
}
