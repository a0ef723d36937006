package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/stretchr/testify/require"
)

// TestJAXCorpusMatchesXLA: every single-device JAX 0.11 program of
// ../shared/corpus/jax that ships inputs simulates on tpuv4core from its
// HLO and from its StableHLO with those inputs, and each output matches
// XLA's (f32 and wider within 1e-4 of the output's largest magnitude,
// bf16 and f16 within 3e-2, integers and booleans exactly). The sharded
// programs (spmd_*, gpt3_*) are TestPartitionedJAXModules'; the models
// without inputs are timing-only.
func TestJAXCorpusMatchesXLA(t *testing.T) {
	root := corpus.Path(t, "jax")
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	ran := 0
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, "spmd_") || strings.HasPrefix(name, "gpt3_") {
			continue
		}
		dir := filepath.Join(root, name)
		if _, err := os.Stat(filepath.Join(dir, "out.0.npy")); err != nil {
			continue // no XLA outputs: a timing-only model
		}
		for _, form := range []string{".hlo", ".mlir"} {
			t.Run(name+form, func(t *testing.T) {
				ran++
				outDir := filepath.Join(t.TempDir(), "o")
				args := []string{"simulate", filepath.Join(dir, name+form), "--chip", "tpuv4core", "--out-dir", outDir}
				for _, b := range corpus.JAXInputs(t, dir, name) {
					args = append(args, "--in", b)
				}
				code, _, errs := runCLI(args...)
				require.Equal(t, 0, code, errs)
				var meta struct {
					Outputs []struct{ Dtype string } `json:"outputs"`
				}
				require.NoError(t, json.Unmarshal(mustRead(t, filepath.Join(dir, "meta.json")), &meta))
				for k := 0; ; k++ {
					want, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out.%d.npy", k)))
					if err != nil {
						require.Positive(t, k)
						break
					}
					gotPath := filepath.Join(outDir, fmt.Sprintf("out.%d.npy", k))
					if _, err := os.Stat(gotPath); err != nil && k == 0 {
						gotPath = filepath.Join(outDir, "out.npy")
					}
					require.Less(t, k, len(meta.Outputs))
					requireMatchesXLA(t, fmt.Sprintf("%s output %d", name+form, k), meta.Outputs[k].Dtype, want, mustRead(t, gotPath))
				}
			})
		}
	}
	require.Positive(t, ran, "no program with inputs and XLA outputs")
}

// requireMatchesXLA compares one output with XLA's at the tolerance of its
// type (TestJAXCorpusMatchesXLA).
func requireMatchesXLA(t *testing.T, what, dtype string, wantNPY, gotNPY []byte) {
	t.Helper()
	want, err := npy.Read(wantNPY)
	require.NoError(t, err, what)
	got, err := npy.Read(gotNPY)
	require.NoError(t, err, what)
	require.Equal(t, want.Shape, got.Shape, what)
	require.Equal(t, len(want.Values), len(got.Values), what)
	tol := 0.0 // integers and booleans: exactly
	switch dtype {
	case "float32", "float64", "complex64", "complex128":
		tol = 1e-4
	case "bfloat16", "float16":
		tol = 3e-2
	}
	if want.Bits != nil && got.Bits != nil {
		require.Equal(t, want.Bits, got.Bits, what)
		return
	}
	largest := 0.0
	for _, v := range want.Values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			largest = max(largest, math.Abs(v))
		}
	}
	for i, v := range want.Values {
		g := got.Values[i]
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			require.True(t, math.IsNaN(v) && math.IsNaN(g) || v == g, "%s element %d: %v, XLA %v", what, i, g, v)
		default:
			require.LessOrEqual(t, math.Abs(g-v), tol*largest, "%s element %d: %v, XLA %v (tolerance %g of %g)", what, i, g, v, tol, largest)
		}
	}
}
