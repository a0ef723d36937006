package membench

import (
	"fmt"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/stretchr/testify/require"
)

func hbm2(t *testing.T, sets ...string) *config.Chip {
	t.Helper()
	c, err := config.Load("../examples/chips/hbm2-dramsim3.yaml", sets)
	require.NoError(t, err)
	return c
}

// DRAMSim3's HBM2_8Gb_x128: 256 GB/s peak; every pattern stays under the
// bounds its timings set, and each shows the behaviour it is there for.
func TestHBM2Bounds(t *testing.T) {
	c := hbm2(t)
	tm := c.HBM.Timing
	refresh := 1 - float64(tm.RFC)/float64(tm.REFI)                // 93.3%: the bus is idle during refresh
	faw := 4 * 64 / (float64(tm.FAW) * 1e-9) * 8 / 256e9 * refresh // 4 activates per tFAW per channel
	cases := []struct {
		pattern        string
		bound          float64
		minFrac        float64
		minHit, maxHit float64
	}{
		{"seq", refresh, 0.30, 0.9, 1},
		{"random", faw, 0.15, 0, 0.01},
		{"mix", refresh, 0.30, 0.9, 1},
	}
	for _, cs := range cases {
		t.Run(cs.pattern, func(t *testing.T) {
			r, err := Run(c, Options{Pattern: cs.pattern, Requests: 20000, Seed: 1})
			require.NoError(t, err)
			require.InDelta(t, 256e9, r.PeakBytesPerSecond, 1)
			require.LessOrEqual(t, r.FractionOfPeak, cs.bound)
			require.GreaterOrEqual(t, r.FractionOfPeak, cs.minFrac)
			require.GreaterOrEqual(t, r.RowHitRate, cs.minHit)
			require.LessOrEqual(t, r.RowHitRate, cs.maxHit)
			// A read takes at least tRCD + CL + the burst.
			require.GreaterOrEqual(t, r.AvgReadLatencyCycles, float64(tm.CL+tm.BL))
			again, err := Run(c, Options{Pattern: cs.pattern, Requests: 20000, Seed: 1})
			require.NoError(t, err)
			require.Equal(t, r, again, "deterministic")
		})
	}
}

// Per-bank command queues (DRAMSim3's organisation) take the stream that a
// transaction queue alone would hold back: with bank_queue 0 the controller
// schedules from its 32-entry read queue directly, and an in-order requester
// that has filled one channel's queue with one row waits while the other
// channels run dry.
func TestBankQueuesTakeInOrderStreams(t *testing.T) {
	window, err := Run(hbm2(t, "hbm.controller.bank_queue=0"), Options{Pattern: "seq", Requests: 20000})
	require.NoError(t, err)
	queues, err := Run(hbm2(t), Options{Pattern: "seq", Requests: 20000})
	require.NoError(t, err)
	require.Greater(t, queues.FractionOfPeak, 0.85)
	require.Greater(t, queues.FractionOfPeak, 2*window.FractionOfPeak)
	// So do deep queues without them.
	deep, err := Run(hbm2(t, "hbm.controller.bank_queue=0", "hbm.controller.read_queue=256", "hbm.device.window=256"), Options{Pattern: "seq", Requests: 20000})
	require.NoError(t, err)
	require.Greater(t, deep.FractionOfPeak, 0.85)
}

// dramsim3Figures are DRAMSim3's own figures for its HBM2_8Gb_x128 under the
// patterns and driver of Options (100,000 requests of 64 bytes, issued in
// order as fast as WillAcceptTransaction allows, or one a clock), measured
// with DRAMSim3 at commit 29817593 (docs/membench.md says how): memory
// clocks from the first request to the last read's data or write's data
// end, and the row-hit rate.
var dramsim3Figures = []struct {
	pattern  string
	perClock int
	cycles   int64
	rowHits  float64
}{
	{"seq", 0, 26925, 12113.0 / 12512},
	{"random", 0, 103761, 9.0 / 12497},
	{"mix", 0, 32135, (6039.0 + 6054) / (6256 + 6256)},
	{"seq", 1, 101790, -1},
	{"random", 1, 103910, -1},
	{"mix", 1, 100063, -1},
}

// Pulse's controller reproduces DRAMSim3's cycles within 5% on each pattern.
func TestMatchesDRAMSim3(t *testing.T) {
	c := hbm2(t)
	for _, f := range dramsim3Figures {
		t.Run(fmt.Sprintf("%s/per-clock=%d", f.pattern, f.perClock), func(t *testing.T) {
			r, err := Run(c, Options{Pattern: f.pattern, Requests: 100000, Seed: 1, PerClock: f.perClock})
			require.NoError(t, err)
			require.InEpsilon(t, float64(f.cycles), float64(r.Cycles), 0.05, "cycles: DRAMSim3 %d, Pulse %d", f.cycles, r.Cycles)
			if f.rowHits >= 0 {
				require.InDelta(t, f.rowHits, r.RowHitRate, 0.02)
			}
		})
	}
}

func TestBadOptions(t *testing.T) {
	c := hbm2(t)
	_, err := Run(c, Options{Pattern: "zigzag"})
	require.ErrorContains(t, err, `--pattern "zigzag"`)
	_, err = Run(c, Options{Pattern: "seq", PerClock: -1})
	require.ErrorContains(t, err, "--per-clock -1")
	_, err = Run(c, Options{Pattern: "random", Bytes: 48})
	require.ErrorContains(t, err, "divides 1 GiB")
	ideal, err := config.Load("teach16", nil)
	require.NoError(t, err)
	r, err := Run(ideal, Options{Pattern: "seq", Requests: 1000})
	require.NoError(t, err)
	require.InDelta(t, 1, r.FractionOfPeak, 0.1, "the ideal model streams at its bandwidth")
}

// TestStreamingMatchesBanked: the streaming model's closed form of refresh
// and turnarounds gives the banked model's bandwidth on long streams, read
// only and alternating, within 6 points of peak (tpuv3core's HBM2: banked
// 89.9% and 80.0%, streaming 90.7% and 75.0%).
func TestStreamingMatchesBanked(t *testing.T) {
	for _, pattern := range []string{"seq", "mix"} {
		t.Run(pattern, func(t *testing.T) {
			frac := map[string]float64{}
			for _, model := range []string{"banked", "streaming"} {
				c, err := config.Load("tpuv3core", []string{"hbm.model=" + model})
				require.NoError(t, err)
				r, err := Run(c, Options{Pattern: pattern, Requests: 50000})
				require.NoError(t, err)
				frac[model] = r.FractionOfPeak
			}
			require.InDelta(t, frac["banked"], frac["streaming"], 0.06, "%v", frac)
			require.Less(t, frac["streaming"], 0.95, "streaming pays for refresh at least")
		})
	}
}
