package runtime_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo/stablehlo"
	"github.com/pulse-sim/pulse/runtime"
)

// TestStableHLOCorpusOnChips compiles and simulates every JAX-exported
// StableHLO test of the shared corpus on teach16 and tpuv4core: no file
// may fail (wrong numbers) or be bad input, and today's passing count
// (docs/coverage.md) is the floor.
func TestStableHLOCorpusOnChips(t *testing.T) {
	files, _ := filepath.Glob("../../shared/corpus/stablehlo/*.mlir")
	if len(files) == 0 {
		t.Skip("../shared/corpus/stablehlo is not present")
	}
	for _, name := range []string{"teach16", "tpuv4core"} {
		chip, err := config.Load(name, nil)
		require.NoError(t, err)
		run := (&runtime.Client{Chip: chip}).StableHLORunner()
		count := map[string]int{}
		for _, f := range files {
			o := stablehlo.TestFile(f, run)
			count[o.Status]++
			if o.Status == stablehlo.Fail || o.Status == stablehlo.ErrorStatus {
				t.Errorf("%s on %s: %s: %s", filepath.Base(f), name, o.Status, o.Message)
			}
		}
		t.Logf("%s: %d files: %d pass, %d fail, %d within rounding noise, %d unsupported, %d errors", name, len(files), count[stablehlo.Pass], count[stablehlo.Fail], count[stablehlo.Rounding], count[stablehlo.Unsupported], count[stablehlo.ErrorStatus])
		require.LessOrEqual(t, count[stablehlo.Rounding], 1, "%s: more files differ from XLA by rounding than docs/coverage.md records", name)
		require.GreaterOrEqual(t, count[stablehlo.Pass], 352, "%s: fewer files pass than docs/coverage.md records", name)
	}
}
