package dma

import (
	"testing"

	"github.com/pulse-sim/pulse/memory"
	"github.com/pulse-sim/pulse/sim"
	"github.com/stretchr/testify/require"
)

func TestStreamingReachesPeak(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(100, 50) // 100 GB/s: 10 ps per byte, 50 ns latency
	d := New(Config{BurstBytes: 512, MaxOutstanding: 16, OnChipGBps: 1000}, &e, hbm)
	var done sim.Time
	d.Start(0, 1<<20, true, false, func(sim.Time) {}, func(t sim.Time) { done = t })
	e.Run(-1)
	// 1 MiB at 100 GB/s = 10,485,760 ps, plus one latency: enough bursts in
	// flight (16 x 512 B covers 50 ns x 100 GB/s = 5 KB) keep the bus busy.
	require.Equal(t, sim.Time(10_485_760+50_000), done)
	require.Equal(t, int64(1<<20), d.Bytes)
}

func TestFewOutstandingIsLatencyBound(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(100, 50)
	d := New(Config{BurstBytes: 512, MaxOutstanding: 1, OnChipGBps: 1000}, &e, hbm)
	var done sim.Time
	d.Start(0, 512*10, true, false, func(sim.Time) {}, func(t sim.Time) { done = t })
	e.Run(-1)
	require.Equal(t, sim.Time(10*(5120+50_000)), done, "one burst at a time: each pays the latency")
}

func TestEnginesShareBandwidthFairly(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(100, 50)
	cfg := Config{BurstBytes: 512, MaxOutstanding: 8, OnChipGBps: 1000}
	a, b := New(cfg, &e, hbm), New(cfg, &e, hbm)
	var da, db sim.Time
	a.Start(0, 1<<20, true, false, func(sim.Time) {}, func(t sim.Time) { da = t })
	b.Start(0, 1<<20, true, false, func(sim.Time) {}, func(t sim.Time) { db = t })
	e.Run(-1)
	total := sim.Time(2 * 10_485_760)
	require.InDelta(t, float64(total), float64(max(da, db)), float64(total)/100, "together they use the whole bus")
	require.InDelta(t, float64(da), float64(db), float64(total)/50, "and finish together: neither starves")
}

func TestEngineCap(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(1000, 0)
	d := New(Config{BurstBytes: 1024, MaxOutstanding: 64, EngineGBps: 10, OnChipGBps: 1000}, &e, hbm)
	var done sim.Time
	d.Start(0, 1<<20, true, false, func(sim.Time) {}, func(t sim.Time) { done = t })
	e.Run(-1)
	require.InDelta(t, 1<<20*100, float64(done), 2000, "limited to 10 GB/s by the engine")
}

// TestDescriptorsPipeline: a second descriptor issues while the first one's
// bursts are in flight, and completions are reported in order.
func TestDescriptorsPipeline(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(100, 50)
	d := New(Config{BurstBytes: 512, MaxOutstanding: 64, Setup: 1000, OnChipGBps: 1000}, &e, hbm)
	var order []int
	var end sim.Time
	var start2 func(sim.Time)
	start2 = func(now sim.Time) {
		d.Start(now, 4096, true, false, func(sim.Time) {}, func(t sim.Time) { order = append(order, 2); end = t })
	}
	d.Start(0, 4096, true, false, start2, func(sim.Time) { order = append(order, 1) })
	e.Run(-1)
	require.Equal(t, []int{1, 2}, order)
	// Back to back on the bus: 8 KiB at 10 ps/B after one setup, one latency
	// and the second descriptor's setup, which overlaps the first's transfer.
	require.Equal(t, sim.Time(1000+8192*10+50_000), end)
}
