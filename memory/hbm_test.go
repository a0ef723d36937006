package memory

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIdeal(t *testing.T) {
	h := NewIdeal(32, 28) // 32 GB/s = 31.25 ps per byte
	require.Equal(t, int64(2000+28000), int64(h.Access(0, 64, false)), "64 B: 2000 ps on the bus + 28 ns")
	// A second request queues behind the first.
	done := h.Access(0, 64, true)
	require.Equal(t, int64(4000+28000), int64(done))
	// 1000 requests of 64 B take exactly 64000 B / 32 GB/s on the bus.
	h2 := NewIdeal(32, 0)
	var last int64
	for i := 0; i < 1000; i++ {
		last = int64(h2.Access(0, 64, false))
	}
	require.Equal(t, int64(2_000_000), last)
	require.Equal(t, int64(64000), h2.Stats().BytesRead)
	require.Equal(t, 32e9, h2.PeakBytesPerSecond())
}
