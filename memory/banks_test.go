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
	end0, _ := b.ReserveTile(0, f32Tile(0, []uint32{1024}, nil))
	require.Equal(t, sim.Time(8000), end0)
	require.Equal(t, int64(0), b.ConflictCycles)
	// A column of a 512-B-wide matrix: every element in the same bank -> 16 cycles, not 2.
	b2 := NewBanks(8, 64, 1000)
	end, _ := b2.ReserveTile(0, f32Tile(0, []uint32{16}, []int32{128}))
	require.Equal(t, sim.Time(16000), end)
	require.Equal(t, int64(14), b2.ConflictCycles)
	// Two units at once on the same banks: the second waits for the first.
	b3 := NewBanks(8, 64, 1000)
	b3.ReserveTile(0, f32Tile(0, []uint32{1024}, nil))
	end3, _ := b3.ReserveTile(0, f32Tile(1<<20, []uint32{1024}, nil))
	require.Equal(t, sim.Time(16000), end3)
	require.Equal(t, int64(8), b3.ConflictCycles)
	require.Equal(t, int64(128), b3.Lines)
}

// Conflict stalls are counted as the time during which some request waits,
// not summed over requests: three requests stalled over the same cycles
// count those cycles once, and the total never exceeds the elapsed time.
func TestBankConflictsAreAUnion(t *testing.T) {
	b := NewBanks(8, 64, 1000)
	now := sim.Time(0)
	b.Now = func() sim.Time { return now }
	column := f32Tile(0, []uint32{16}, []int32{128}) // 16 lines in one bank
	_, ideal := b.ReserveTile(0, column)             // [2, 16): 14 cycles
	require.Equal(t, sim.Time(2000), ideal)
	require.Equal(t, int64(14), b.ConflictCycles)
	b.ReserveTile(0, column) // waits behind it: [2, 32)
	b.ReserveTile(0, column) // [2, 48)
	require.Equal(t, int64(46), b.ConflictCycles, "the union of [2,16), [2,32) and [2,48)")
	// Later, after those are over, a fresh stall adds its own time.
	now = 100_000
	_, ideal = b.ReserveTile(now, column)
	require.Equal(t, now+2000, ideal)
	require.Equal(t, int64(46+14), b.ConflictCycles)
	require.Len(t, b.open, 1, "intervals that ended are dropped")
}
