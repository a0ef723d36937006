package memory_test

import (
	"testing"

	"github.com/pulse-sim/pulse/memory"
	"github.com/pulse-sim/pulse/sim"
	"github.com/stretchr/testify/require"
)

// hbm2 is the shape of the presets' HBM2 device (R2 HBM2_2400).
var hbm2 = memory.BankedConfig{Channels: 16, BankGroups: 4, BanksPerGroup: 4, Rows: 32768, Columns: 64, AccessBytes: 64,
	TCK: 833, CL: 17, CWL: 6, RCD: 17, RP: 17, RAS: 40, CCDS: 2, CCDL: 4, RRDS: 5, RRDL: 5, FAW: 19,
	WTRS: 8, WTRL: 10, RTP: 6, WR: 19, RFC: 421, REFI: 4682, BL: 2, Window: 32}

// TestStreamingFrom: the closed form's terms from the device's timings.
func TestStreamingFrom(t *testing.T) {
	s := memory.StreamingFrom(hbm2)
	require.InDelta(t, 421.0/4682, s.RefreshFraction, 1e-12)
	// Two turnarounds a batch of 32 writes of 2 clocks: 2 + CL + tWTR_S.
	require.InDelta(t, 27.0/64, s.WriteTurnaround, 1e-12)
	require.Equal(t, sim.Time(2*32*2*833), s.MixWindow)
	// A write queue sets the batch; no refresh interval, no refresh.
	q := hbm2
	q.WriteQueue, q.REFI = 64, 0
	s = memory.StreamingFrom(q)
	require.Zero(t, s.RefreshFraction)
	require.InDelta(t, 27.0/128, s.WriteTurnaround, 1e-12)
}

type at struct{ t *sim.Time }

func (a at) Complete(t sim.Time) { *a.t = max(*a.t, t) }

// stream drives n requests of 512 bytes, back to back, reads and writes
// as pattern says, and returns when the last completes.
func stream(h memory.HBM, e *sim.Engine, n int, write func(i int) bool) sim.Time {
	var end sim.Time
	for i := range n {
		h.Request(0, int64(i)*512, 512, write(i), at{&end})
	}
	e.Run(-1)
	return end
}

// TestStreamingCosts: reads alone pay the refresh; writes among reads the
// turnarounds too; writes alone only the refresh; the ideal bus neither.
func TestStreamingCosts(t *testing.T) {
	const n = 10000
	bus := float64(n*512) * 1000 / 100 // ps at 100 GB/s
	for _, c := range []struct {
		name   string
		write  func(int) bool
		factor float64
	}{
		{"reads", func(int) bool { return false }, 1 / (1 - 421.0/4682)},
		{"writes", func(int) bool { return true }, 1 / (1 - 421.0/4682)},
		{"mixed", func(i int) bool { return i%2 == 1 }, (1 + 27.0/64/2) / (1 - 421.0/4682)},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &sim.Engine{}
			ideal := stream(memory.NewIdeal(e, 100, 0), e, n, c.write)
			require.InDelta(t, bus, float64(ideal), 2)
			e = &sim.Engine{}
			got := stream(memory.NewStreaming(e, 100, 0, memory.StreamingFrom(hbm2)), e, n, c.write)
			require.InEpsilon(t, bus*c.factor, float64(got), 1e-3)
		})
	}
}
