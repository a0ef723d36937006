package memory

import (
	"testing"

	"github.com/pulse-sim/pulse/sim"
	"github.com/stretchr/testify/require"
)

type rec struct{ t []sim.Time }

func (r *rec) Complete(t sim.Time) { r.t = append(r.t, t) }

func TestIdeal(t *testing.T) {
	var e sim.Engine
	h := NewIdeal(&e, 32, 28) // 32 GB/s = 31.25 ps per byte
	r := &rec{}
	h.Request(0, 0, 64, false, r)
	h.Request(0, 64, 64, true, r) // queues behind the first
	e.Run(-1)
	require.Equal(t, []sim.Time{2000 + 28000, 4000 + 28000}, r.t)
	// 1000 requests of 64 B take exactly 64000 B / 32 GB/s on the bus.
	var e2 sim.Engine
	h2 := NewIdeal(&e2, 32, 0)
	r2 := &rec{}
	for i := 0; i < 1000; i++ {
		h2.Request(0, int64(64*i), 64, false, r2)
	}
	e2.Run(-1)
	require.Equal(t, sim.Time(2_000_000), r2.t[999])
	require.Equal(t, int64(64000), h2.Stats().BytesRead)
	require.Equal(t, 32e9, h2.PeakBytesPerSecond())
}
