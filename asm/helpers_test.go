package asm_test

import (
	"math"
	"testing"

	"github.com/pulse-sim/pulse/asm"
	"github.com/stretchr/testify/require"
)

func mathFloat64bits(v float64) uint64 { return math.Float64bits(v) }

func TestUnterminatedString(t *testing.T) {
	_, err := asm.Assemble("u.s", []byte("  .include \"abc\n halt\n"), asm.Options{})
	require.ErrorContains(t, err, "u.s:1:12: unterminated string")
}
