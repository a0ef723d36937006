package dma

import (
	"testing"

	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/memory"
	"github.com/pulse-sim/pulse/sim"
	"github.com/stretchr/testify/require"
)

func tile(space isa.Space, base int64, shape []uint32, strides []int32) memory.Tile {
	l := &isa.Layout{Space: space, DType: isa.S8, Rank: uint8(len(shape))}
	copy(l.Shape[:], shape)
	if strides == nil {
		l.SetRowMajor()
	} else {
		copy(l.Strides[:], strides)
	}
	return memory.Tile{Base: base, Layout: l}
}

func flat(space isa.Space, n uint32) memory.Tile { return tile(space, 0, []uint32{n}, nil) }

func TestRuns(t *testing.T) {
	collect := func(tl memory.Tile) [][2]int64 {
		r := memory.NewRuns(tl)
		var out [][2]int64
		for {
			a, n, ok := r.Next()
			if !ok {
				return out
			}
			out = append(out, [2]int64{a, n})
		}
	}
	require.Equal(t, [][2]int64{{100, 24}}, collect(tile(isa.HBM, 100, []uint32{2, 3, 4}, nil)), "row-major: one run")
	require.Equal(t, [][2]int64{{0, 4}, {10, 4}, {20, 4}}, collect(tile(isa.HBM, 0, []uint32{3, 4}, []int32{10, 1})), "a window: one run per row")
	require.Equal(t, [][2]int64{{5, 1}, {4, 1}, {3, 1}}, collect(tile(isa.HBM, 5, []uint32{3}, []int32{-1})), "reversed: element runs")
	require.Equal(t, [][2]int64{{0, 2}, {0, 2}}, collect(tile(isa.HBM, 0, []uint32{2, 2}, []int32{0, 1})), "broadcast rows")
}

func run(t *testing.T, d *Engine, e *sim.Engine, dst, src memory.Tile) sim.Time {
	var done sim.Time
	d.Start(0, 0, dst, src, func(sim.Time) {}, func(t sim.Time) { done = t })
	e.Run(-1)
	return done
}

func TestStreamingReachesPeak(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(&e, 100, 50) // 100 GB/s: 10 ps per byte, 50 ns latency
	d := New(Config{BurstBytes: 512, MaxOutstanding: 16}, &e, hbm)
	// 1 MiB at 100 GB/s = 10,485,760 ps, plus one latency: 16 x 512 B in
	// flight covers 50 ns x 100 GB/s = 5 KB, enough to keep the bus busy.
	require.Equal(t, sim.Time(10_485_760+50_000), run(t, d, &e, flat(isa.SRAM, 1<<20), flat(isa.HBM, 1<<20)))
	require.Equal(t, int64(1<<20), d.Bytes)
}

func TestFewOutstandingIsLatencyBound(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(&e, 100, 50)
	d := New(Config{BurstBytes: 512, MaxOutstanding: 1}, &e, hbm)
	require.Equal(t, sim.Time(10*(5120+50_000)), run(t, d, &e, flat(isa.SRAM, 5120), flat(isa.HBM, 5120)), "one burst at a time: each pays the latency")
}

func TestBurstsFollowRuns(t *testing.T) {
	var e sim.Engine
	hbm := &countingHBM{Ideal: memory.NewIdeal(&e, 100, 0)}
	d := New(Config{BurstBytes: 512, MaxOutstanding: 64}, &e, hbm)
	// 8 rows of 256 B in a 4 KiB-wide matrix: 8 bursts, one per row, at the row addresses.
	run(t, d, &e, tile(isa.SRAM, 0, []uint32{8, 256}, nil), tile(isa.HBM, 0, []uint32{8, 256}, []int32{4096, 1}))
	require.Equal(t, []int64{0, 4096, 8192, 12288, 16384, 20480, 24576, 28672}, hbm.addrs)
}

// An on-chip side's runs a few bytes apart (an image's rows landing in a
// padded buffer) join a burst: the HBM side's contiguous run is what the
// bursts follow. Runs a bank line or more apart still split them.
func TestOnChipRunsJoinBursts(t *testing.T) {
	bursts := func(dst memory.Tile) (int, sim.Time) {
		var e sim.Engine
		hbm := &countingHBM{Ideal: memory.NewIdeal(&e, 100, 50)}
		banks := memory.NewBanks(32, 128, 1)
		d := New(Config{BurstBytes: 512, MaxOutstanding: 16, Banks: func(isa.Space) *memory.Banks { return banks }}, &e, hbm)
		done := run(t, d, &e, dst, flat(isa.HBM, 64*56))
		return len(hbm.addrs), done
	}
	dense, tDense := bursts(tile(isa.SRAM, 0, []uint32{64, 56}, nil))
	padded, tPadded := bursts(tile(isa.SRAM, 0, []uint32{64, 56}, []int32{64, 1}))
	apart, _ := bursts(tile(isa.SRAM, 0, []uint32{64, 56}, []int32{4096, 1}))
	require.Equal(t, 7, dense, "3,584 contiguous bytes: 7 bursts of 512")
	require.Equal(t, dense, padded, "rows of 56 B, 8 B apart: the same bursts")
	require.Equal(t, tDense, tPadded)
	require.Equal(t, 64, apart, "rows 4 KiB apart: a burst each")
}

type countingHBM struct {
	*memory.Ideal
	addrs []int64
}

func (c *countingHBM) Request(t sim.Time, addr, n int64, write bool, done memory.Done) {
	c.addrs = append(c.addrs, addr)
	c.Ideal.Request(t, addr, n, write, done)
}

func TestEnginesShareBandwidthFairly(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(&e, 100, 50)
	cfg := Config{BurstBytes: 512, MaxOutstanding: 8}
	a, b := New(cfg, &e, hbm), New(cfg, &e, hbm)
	var da, db sim.Time
	a.Start(0, 0, flat(isa.SRAM, 1<<20), flat(isa.HBM, 1<<20), func(sim.Time) {}, func(t sim.Time) { da = t })
	b.Start(0, 0, flat(isa.SRAM, 1<<20), flat(isa.HBM, 1<<20), func(sim.Time) {}, func(t sim.Time) { db = t })
	e.Run(-1)
	total := sim.Time(2 * 10_485_760)
	require.InDelta(t, float64(total), float64(max(da, db)), float64(total)/100, "together they use the whole bus")
	require.InDelta(t, float64(da), float64(db), float64(total)/50, "and finish together: neither starves")
}

func TestEngineCap(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(&e, 1000, 0)
	d := New(Config{BurstBytes: 1024, MaxOutstanding: 64, EngineGBps: 10}, &e, hbm)
	require.InDelta(t, 1<<20*100, float64(run(t, d, &e, flat(isa.SRAM, 1<<20), flat(isa.HBM, 1<<20))), 2000, "limited to 10 GB/s by the engine")
}

// TestDescriptorsPipeline: a second descriptor issues while the first one's
// bursts are in flight, and completions are reported in order.
func TestDescriptorsPipeline(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(&e, 100, 50)
	d := New(Config{BurstBytes: 512, MaxOutstanding: 64, Setup: 1000}, &e, hbm)
	var order []int
	var end sim.Time
	start2 := func(now sim.Time) {
		d.Start(now, now, flat(isa.SRAM, 4096), flat(isa.HBM, 4096), func(sim.Time) {}, func(t sim.Time) { order = append(order, 2); end = t })
	}
	d.Start(0, 0, flat(isa.SRAM, 4096), flat(isa.HBM, 4096), start2, func(sim.Time) { order = append(order, 1) })
	e.Run(-1)
	require.Equal(t, []int{1, 2}, order)
	// Back to back on the bus: 8 KiB at 10 ps/B after one setup and one
	// latency; the second descriptor's setup overlaps the first's transfer.
	require.Equal(t, sim.Time(1000+8192*10+50_000), end)
}

func TestHBMToHBM(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(&e, 100, 0)
	d := New(Config{BurstBytes: 512, MaxOutstanding: 64}, &e, hbm)
	run(t, d, &e, tile(isa.HBM, 1<<20, []uint32{4, 300}, nil), tile(isa.HBM, 0, []uint32{4, 300}, []int32{1000, 1}))
	st := hbm.Stats()
	require.Equal(t, int64(1200), st.BytesRead)
	require.Equal(t, int64(1200), st.BytesWritten)
}

// TestHostLink: a host side is timed by the link's direction it uses, not
// by HBM: host to SRAM at the link's rate plus its latency; host to HBM
// reads the link, then writes HBM; HBM to host writes the other direction.
func TestHostLink(t *testing.T) {
	var e sim.Engine
	hbm := memory.NewIdeal(&e, 100, 50) // 10 ps/B, 50 ns
	in := memory.NewIdeal(&e, 10, 1000) // 100 ps/B, 1 us
	out := memory.NewIdeal(&e, 5, 1000) // 200 ps/B, 1 us
	d := New(Config{BurstBytes: 512, MaxOutstanding: 64, HostIn: in, HostOut: out}, &e, hbm)
	const n = 1 << 16
	require.Equal(t, sim.Time(n*100+1_000_000), run(t, d, &e, flat(isa.SRAM, n), flat(isa.HOST, n)), "host to SRAM: the inbound link")
	require.Equal(t, int64(n), in.Stats().BytesRead)
	require.Zero(t, hbm.Stats().BytesRead+hbm.Stats().BytesWritten)

	e = sim.Engine{}
	hbm, in, out = memory.NewIdeal(&e, 100, 50), memory.NewIdeal(&e, 10, 1000), memory.NewIdeal(&e, 5, 1000)
	d = New(Config{BurstBytes: 512, MaxOutstanding: 64, HostIn: in, HostOut: out}, &e, hbm)
	got := run(t, d, &e, flat(isa.HOST, n), flat(isa.HBM, n))
	// HBM reads pipeline under the slower outbound link: its rate and
	// latency, after the first burst's read.
	require.Equal(t, sim.Time(512*10+50_000+n*200+1_000_000), got, "HBM to host: the outbound link")
	require.Equal(t, int64(n), out.Stats().BytesWritten)
	require.Zero(t, in.Stats().BytesRead)
}

// TestPrefetchHidesSetup: with Prefetch, a descriptor queued behind
// another is set up while that one transfers (it saves one setup), and a
// descriptor available only when the engine takes it (its semaphore met
// late) pays its setup in full, as without.
func TestPrefetchHidesSetup(t *testing.T) {
	twoBackToBack := func(prefetch int, secondAvail func(accept sim.Time) sim.Time) sim.Time {
		var e sim.Engine
		hbm := memory.NewIdeal(&e, 1000, 0)
		d := New(Config{BurstBytes: 512, MaxOutstanding: 64, Setup: 100_000, EngineGBps: 10, Prefetch: prefetch}, &e, hbm)
		var end sim.Time
		second := func(now sim.Time) {
			d.Start(now, secondAvail(now), flat(isa.SRAM, 10_000), flat(isa.HBM, 10_000), func(sim.Time) {}, func(t sim.Time) { end = t })
		}
		d.Start(0, 0, flat(isa.SRAM, 10_000), flat(isa.HBM, 10_000), second, func(sim.Time) {})
		e.Run(-1)
		return end
	}
	queued := func(sim.Time) sim.Time { return 0 }
	late := func(accept sim.Time) sim.Time { return accept }
	serial := twoBackToBack(0, queued)
	// Without prefetch the second setup starts as the first's last burst
	// (272 of 10,000 B, 27.2 ns at 10 GB/s) enters the engine's data path,
	// so it already hides that much of the 100 ns.
	require.Equal(t, sim.Time(100_000-27_200), serial-twoBackToBack(1, queued), "the second setup overlaps the first transfer")
	require.Equal(t, serial, twoBackToBack(1, late), "a descriptor available late pays its setup")
	require.Equal(t, serial, twoBackToBack(0, late))
}
