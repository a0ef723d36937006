package runtime

import (
	"testing"

	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/stretchr/testify/require"
)

// TestCheckHostMemory: a value run whose devices' simulated HBM would not
// fit the host's memory is refused at once, naming what it needs; reused
// addresses count once; timing-only runs and unknown hosts are not
// checked.
func TestCheckHostMemory(t *testing.T) {
	p := &exe.Program{Symbols: []exe.Symbol{
		{Name: "a", Space: isa.HBM, Addr: 0, DType: isa.F32, Shape: []uint32{1 << 20}},       // 4 MiB
		{Name: "b", Space: isa.HBM, Addr: 1 << 21, DType: isa.F32, Shape: []uint32{1 << 20}}, // overlaps a's second half
		{Name: "s", Space: isa.SRAM, Addr: 0, DType: isa.F32, Shape: []uint32{1 << 20}},
	}}
	require.Equal(t, int64(6<<20), imageBytes(p))
	x := &Executable{Compiled: &lowering.Compiled{Program: p}}
	require.NoError(t, checkHostMemory(x, 4, false, 24<<20))
	err := checkHostMemory(x, 4, false, 20<<20)
	require.ErrorContains(t, err, "a value run of 4 devices needs about 0.0 GiB")
	require.ErrorContains(t, err, "run with --timing-only")
	require.NoError(t, checkHostMemory(x, 4, true, 1))
	require.NoError(t, checkHostMemory(x, 4, false, 0))
}
