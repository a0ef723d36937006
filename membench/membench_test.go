package membench

import (
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

// The controller's queues are what holds an in-order requester back: with
// deep queues a sequential stream reaches the refresh bound.
func TestQueuesLimitInOrderStreams(t *testing.T) {
	shallow, err := Run(hbm2(t), Options{Pattern: "seq", Requests: 20000})
	require.NoError(t, err)
	deep, err := Run(hbm2(t, "hbm.controller.read_queue=256", "hbm.device.window=256"), Options{Pattern: "seq", Requests: 20000})
	require.NoError(t, err)
	require.Greater(t, deep.FractionOfPeak, 0.85)
	require.Greater(t, deep.FractionOfPeak, 2*shallow.FractionOfPeak)
}

func TestBadOptions(t *testing.T) {
	c := hbm2(t)
	_, err := Run(c, Options{Pattern: "zigzag"})
	require.ErrorContains(t, err, `--pattern "zigzag"`)
	_, err = Run(c, Options{Pattern: "random", Bytes: 48})
	require.ErrorContains(t, err, "divides 1 GiB")
	ideal, err := config.Load("teach16", nil)
	require.NoError(t, err)
	r, err := Run(ideal, Options{Pattern: "seq", Requests: 1000})
	require.NoError(t, err)
	require.InDelta(t, 1, r.FractionOfPeak, 0.1, "the ideal model streams at its bandwidth")
}
