package pulse_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// depthwiseNCHW: the depthwise convolutions of examples/hlo/depthwise (as
// PyTorch's XLA dumps write them), timing-only on tpuv4core: each one's
// cycles and kernels.
func depthwiseNCHW(t *testing.T) string {
	files, err := filepath.Glob("examples/hlo/depthwise/*.hlo")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var b strings.Builder
	b.WriteString("| example | cycles | kernels |\n|---|---:|---:|\n")
	for _, f := range files {
		report := filepath.Join(t.TempDir(), "r.json")
		pulseCLI(t, "simulate", f, "--chip", "tpuv4core", "--timing-only", "--json", report)
		data, err := os.ReadFile(report)
		require.NoError(t, err)
		var r struct {
			Cycles  int64             `json:"cycles"`
			Kernels []json.RawMessage `json:"kernels"`
		}
		require.NoError(t, json.Unmarshal(data, &r))
		fmt.Fprintf(&b, "| %s | %d | %d |\n", strings.TrimSuffix(filepath.Base(f), ".hlo"), r.Cycles, len(r.Kernels))
	}
	return b.String()
}
