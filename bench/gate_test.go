package bench_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/pulse-sim/pulse/bench"
	"github.com/stretchr/testify/require"
)

// hostResults makes results of n entries whose wall times are count
// samples of a noisy timer (lognormal, 6% spread, an occasional 30%
// outlier as a busy machine gives), entry i's scaled by shift(i).
func hostResults(r *rand.Rand, n, count int, shift func(i int) float64) *bench.Results {
	res := &bench.Results{SchemaVersion: bench.SchemaVersion, Suite: "aa"}
	for i := 0; i < n; i++ {
		e := &bench.Result{Name: fmt.Sprintf("e%d", i), Status: "ok"}
		for k := 0; k < count; k++ {
			v := math.Exp(r.NormFloat64()*0.06) * shift(i)
			if r.Float64() < 0.05 {
				v *= 1.3
			}
			e.Host.WallSeconds = append(e.Host.WallSeconds, v)
		}
		res.Entries = append(res.Entries, e)
	}
	return res
}

// TestHostGateAA: the A/A test of the host-time gate. Two runs of one
// build (the same timer noise, 100 entries, --count 6, wall=10%) must not
// report a regression more often than the gate's 5% family-wise rate;
// judged per comparison at alpha 0.05 (as before Holm), nearly every A/A
// pair of runs had one. And a real regression is still caught.
func TestHostGateAA(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	th := bench.Thresholds{"wall": 0.10}
	same := func(int) float64 { return 1 }
	const trials = 200
	flagged := 0
	for k := 0; k < trials; k++ {
		c, err := bench.Compare(hostResults(r, 100, 6, same), hostResults(r, 100, 6, same), th)
		require.NoError(t, err)
		require.Equal(t, 100, c.HostFamily)
		if c.Regressions > 0 {
			flagged++
		}
	}
	require.LessOrEqual(t, flagged, trials*5/100, "A/A runs flagged as regressions")

	// One entry 40% slower, --count 10: caught, and only it.
	slow := func(i int) float64 {
		if i == 3 {
			return 1.4
		}
		return 1
	}
	caught := 0
	for k := 0; k < 20; k++ {
		c, err := bench.Compare(hostResults(r, 20, 10, same), hostResults(r, 20, 10, slow), th)
		require.NoError(t, err)
		for _, ch := range c.Changes {
			if ch.Regression {
				require.Equal(t, "e3", ch.Entry)
				caught++
			}
		}
	}
	require.GreaterOrEqual(t, caught, 18, "a 40% regression caught in most runs")

	// A significant change below the threshold is not a regression.
	small := func(i int) float64 { return 1.05 }
	c, err := bench.Compare(hostResults(r, 5, 20, same), hostResults(r, 5, 20, small), th)
	require.NoError(t, err)
	require.Zero(t, c.Regressions)
}

// TestSetPerChip (issue 44, 13): "CHIP:key=value" changes only that chip's
// entries; a plain set changes all; a chip no entry runs on is an error.
func TestSetPerChip(t *testing.T) {
	wd, _ := os.Getwd()
	require.NoError(t, os.Chdir(".."))
	defer os.Chdir(wd)
	s, err := bench.LoadSuite("quick")
	require.NoError(t, err)
	es, err := s.Expand([]string{"tpuv4core:hbm.bandwidth_gbps=300", "clock_mhz=900"}, 1)
	require.NoError(t, err)
	for _, e := range es {
		require.Contains(t, e.Sets, "clock_mhz=900", e.Name)
		if e.Chip == "tpuv4core" {
			require.Contains(t, e.Sets, "hbm.bandwidth_gbps=300", e.Name)
		} else {
			require.NotContains(t, e.Sets, "hbm.bandwidth_gbps=300", e.Name)
		}
	}
	_, err = s.Expand([]string{"tpuv9:hbm.bandwidth_gbps=300"}, 1)
	require.EqualError(t, err, "--set tpuv9:hbm.bandwidth_gbps=300: no entry of suite quick runs on chip tpuv9")
	_, err = s.Expand([]string{"teach16:hbm.nope=1"}, 1)
	require.ErrorContains(t, err, "chip teach16")
}
