package bench_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/pulse-sim/pulse/bench"
	"github.com/stretchr/testify/require"
)

const siliconBaseline = "baselines/silicon-sim.json"

func runSilicon(t *testing.T, sets []string) *bench.Results {
	t.Helper()
	return runSuite(t, "silicon", sets)
}

// TestSiliconGate: the silicon suite's error against measured TPUs does
// not rise by more than 2 points over the checked-in baseline (CI's gate
// of issue 41). A change that lowers it passes; accept it as the new
// baseline with go test ./bench -run TestSiliconGate -update.
func TestSiliconGate(t *testing.T) {
	got := runSilicon(t, nil)
	for _, e := range got.Entries {
		require.Equal(t, "ok", e.Status, "%s: %s", e.Name, e.Error)
		require.Positive(t, e.MeasuredUs, e.Name)
	}
	if *update {
		got.Provenance = bench.Provenance{}
		f, err := os.Create(siliconBaseline)
		require.NoError(t, err)
		require.NoError(t, got.Encode(f))
		require.NoError(t, f.Close())
		t.Logf("wrote %s", siliconBaseline)
		return
	}
	old, err := bench.ReadResults(siliconBaseline)
	require.NoError(t, err, "no baseline: go test ./bench -run TestSiliconGate -update writes it")
	c, err := bench.Compare(old, got, bench.Thresholds{})
	require.NoError(t, err)
	require.NotNil(t, c.Silicon)
	t.Logf("silicon MAPE %.2f%% -> %.2f%% over %d entries", 100*c.Silicon.OldMAPE, 100*c.Silicon.NewMAPE, c.Silicon.Entries)
	if c.Regressions > 0 {
		var b bytes.Buffer
		require.NoError(t, c.Write(&b, "table"))
		t.Fatalf("the silicon suite's error rose:\n%s\nIf the change is intended, accept it: go test ./bench -run TestSiliconGate -update", b.String())
	}
}

// The silicon gate fails when a change moves the error up by more than 2
// points (here a slower HBM on every TPU v4 entry), and names it.
func TestSiliconGateCatches(t *testing.T) {
	old, err := bench.ReadResults(siliconBaseline)
	require.NoError(t, err)
	got := runSilicon(t, []string{"tpuv4:hbm.latency_ns=1000"})
	c, err := bench.Compare(old, got, bench.Thresholds{})
	require.NoError(t, err)
	require.True(t, c.Silicon.Regression)
	require.Positive(t, c.Regressions)
	var b bytes.Buffer
	require.NoError(t, c.Write(&b, "table"))
	require.Contains(t, b.String(), "error against silicon: MAPE")
	require.Contains(t, b.String(), "REGRESSION")
	// A generous threshold lets it through.
	c, err = bench.Compare(old, got, bench.Thresholds{"mape": 1})
	require.NoError(t, err)
	require.False(t, c.Silicon.Regression)
}
