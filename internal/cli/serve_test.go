package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServe: pulse serve runs the tiny Llama-style session JAX exported,
// prints its steps, TTFT and TPOT, agrees with JAX's tokens, writes JSON.
func TestServe(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.json")
	code, stdout, stderr := runCLI("serve", "../../examples/serving/llama_tiny", "--chip", "tpuv4core", "--steps", "3", "--no-cache", "--json", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "time to first token ")
	require.Contains(t, stdout, "time per output token ")
	require.Contains(t, stdout, "over 3 decode steps (")
	require.Contains(t, stdout, " tokens/s across the batch)")
	require.Contains(t, stdout, "tokens: 8 of 8 the same as JAX's session")
	var r struct {
		Steps []struct {
			Program string `json:"program"`
			Cycles  int64  `json:"cycles"`
		} `json:"steps"`
		TTFT float64 `json:"ttft_seconds"`
		TPOT float64 `json:"tpot_seconds"`
	}
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &r))
	require.Len(t, r.Steps, 4)
	require.Equal(t, "prefill", r.Steps[0].Program)
	require.Positive(t, r.TTFT)
	require.Positive(t, r.TPOT)

	code, _, stderr = runCLI("serve", t.TempDir(), "--chip", "tpuv4core")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no prefill.hlo or prefill.mlir")
	code, _, stderr = runCLI("serve", "../../examples/serving/llama_tiny", "--steps", "-1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--steps -1")
}
