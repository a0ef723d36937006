package memory

import (
	"testing"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/sim"
	"github.com/stretchr/testify/require"
)

func f32Tile(base int64, shape []uint32, strides []int32) Tile {
	l := &isa.Layout{Space: isa.SRAM, DType: isa.F32, Rank: uint8(len(shape))}
	copy(l.Shape[:], shape)
	if strides == nil {
		l.SetRowMajor()
	} else {
		copy(l.Strides[:], strides)
	}
	return Tile{base, l}
}

func TestBanksSpreadAndConflicts(t *testing.T) {
	b := NewBanks(8, 64, 1000) // 8 banks of 64 B, 1 ns cycle
	// 4 KiB contiguous: 64 lines over 8 banks, 8 cycles, no conflict.
	require.Equal(t, sim.Time(8000), b.ReserveTile(0, f32Tile(0, []uint32{1024}, nil)))
	require.Equal(t, int64(0), b.ConflictCycles)
	// A column of a 512-B-wide matrix: every element in the same bank -> 16 cycles, not 2.
	b2 := NewBanks(8, 64, 1000)
	end := b2.ReserveTile(0, f32Tile(0, []uint32{16}, []int32{128}))
	require.Equal(t, sim.Time(16000), end)
	require.Equal(t, int64(14), b2.ConflictCycles)
	// Two units at once on the same banks: the second waits for the first.
	b3 := NewBanks(8, 64, 1000)
	b3.ReserveTile(0, f32Tile(0, []uint32{1024}, nil))
	require.Equal(t, sim.Time(16000), b3.ReserveTile(0, f32Tile(1<<20, []uint32{1024}, nil)))
	require.Equal(t, int64(8), b3.ConflictCycles)
	require.Equal(t, int64(128), b3.Lines)
}
