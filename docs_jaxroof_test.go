package pulse_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/internal/npy"
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
	const corpus = "../shared/corpus/jax"
	dirs, err := os.ReadDir(corpus)
	if err != nil {
		t.Skip("needs ../shared/corpus/jax")
	}
	var b strings.Builder
	b.WriteString("| program | cycles | kernel roofs | efficiency |\n|---|---:|---:|---:|\n")
	var cycles, roofs float64
	below := 0
	for _, d := range dirs {
		name := d.Name()
		dir := filepath.Join(corpus, name)
		if !d.IsDir() || strings.HasPrefix(name, "spmd_") || strings.HasPrefix(name, "gpt3_") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "out.0.npy")); err != nil {
			continue
		}
		report := filepath.Join(t.TempDir(), "r.json")
		args := []string{"simulate", filepath.Join(dir, name+".hlo"), "--chip", "tpuv4core", "--timing-only", "--json", report}
		for _, in := range corpusInputs(t, dir, name) {
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

// corpusInputs binds a program's in.N.npy files to its parameters in order,
// skipping an input whose shape is not the next parameter's (jax.jit drops
// the arguments a function does not use: layernorm_backward's beta).
func corpusInputs(t *testing.T, dir, name string) []string {
	src, err := os.ReadFile(filepath.Join(dir, name+".hlo"))
	require.NoError(t, err)
	m, err := hlo.Parse(name, string(src))
	require.NoError(t, err)
	params := map[int64]*hlo.Instruction{}
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpParameter {
			params[in.ParamNumber] = in
		}
	}
	var out []string
	next := int64(0)
	for i := 0; next < int64(len(params)); i++ {
		p := filepath.Join(dir, fmt.Sprintf("in.%d.npy", i))
		data, err := os.ReadFile(p)
		require.NoError(t, err, "parameter %d of %s has no input", next, name)
		a, err := npy.Read(data)
		require.NoError(t, err)
		if !slices.EqualFunc(a.Shape, params[next].Shape.Dims, func(x int, y int64) bool { return int64(x) == y }) {
			continue
		}
		out = append(out, fmt.Sprintf("%d=%s", next, p))
		next++
	}
	return out
}
