package pulse_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/stretchr/testify/require"
)

// jaxCorpusRoof: issue 45's measure on the shared JAX corpus: each
// single-device program with XLA's outputs (the spmd_* and gpt3_* ones
// are the SPMD issue's; the models without inputs are timing-only), run
// on tpuv4core with its own inputs, and its kernel-roof efficiency, the
// sum over its kernels of max(FLOPs / peak, bytes / HBM peak) over its
// cycles (../shared/tools/kernel-roof's formula); the aggregate is the
// sums' ratio.
func jaxCorpusRoof(t *testing.T) string {
	const corpusDir = "../shared/corpus/jax"
	dirs, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Skip("needs ../shared/corpus/jax")
	}
	var b strings.Builder
	b.WriteString("| program | cycles | kernel roofs | efficiency |\n|---|---:|---:|---:|\n")
	var cycles, roofs float64
	below := 0
	for _, d := range dirs {
		name := d.Name()
		dir := filepath.Join(corpusDir, name)
		if !d.IsDir() || strings.HasPrefix(name, "spmd_") || strings.HasPrefix(name, "gpt3_") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "out.0.npy")); err != nil {
			continue
		}
		report := filepath.Join(t.TempDir(), "r.json")
		args := []string{"simulate", filepath.Join(dir, name+".hlo"), "--chip", "tpuv4core", "--timing-only", "--json", report}
		for _, in := range corpus.JAXInputs(t, dir, name) {
			args = append(args, "--in", in)
		}
		pulseCLI(t, args...)
		c, r := kernelRoof(t, report)
		cycles, roofs = cycles+c, roofs+r
		if r/c < 0.2 {
			below++
		}
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.3f |\n", name, c, r, r/c)
	}
	fmt.Fprintf(&b, "| **aggregate** | %.0f | %.0f | **%.3f** |\n\n%d programs below 0.2.\n", cycles, roofs, roofs/cycles, below)
	return b.String()
}

// kernelRoof reads a simulate --json report: its cycles and the sum of its
// kernels' roofs in cycles.
func kernelRoof(t *testing.T, path string) (cycles, roofs float64) {
	var r struct {
		Cycles   float64 `json:"cycles"`
		ClockMHz float64 `json:"clock_mhz"`
		Peak     float64 `json:"peak_flops_per_second"`
		HBM      struct {
			Peak float64 `json:"peak_bytes_per_second"`
		} `json:"hbm"`
		Kernels []struct {
			FLOPs float64 `json:"flops"`
			Bytes float64 `json:"bytes"`
		} `json:"kernels"`
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &r))
	for _, k := range r.Kernels {
		roofs += math.Max(k.FLOPs/r.Peak, k.Bytes/r.HBM.Peak) * r.ClockMHz * 1e6
	}
	return r.Cycles, roofs
}
