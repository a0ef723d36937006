package lowering_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// TestNoKernelBeatsItsRoof: over the corpora's kernel tables, no kernel
// reaches more than its roof, max(FLOPs / peak, bytes / HBM peak, with
// VMEM bytes at the SRAM banks' rate): a
// figure above 100% is an accounting error (issue 40: two MobileNet-v2
// kernels claimed 583% and 1,084%, counting bytes their piece never read).
// Modules within 2 GFLOP as run are simulated timing-only on tpuv4core;
// PULSE_ROOF_ALL=1 takes every single-device module that fits (MobileNet-v2
// among them: 80 s).
func TestNoKernelBeatsItsRoof(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates corpus modules")
	}
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.hlo"))
	// The JAX programs too: their small arrays stay in VMEM, whose bytes
	// the roof takes at the SRAM banks' rate (a kernel reading and writing
	// one array in place was credited with it once and beat its roof 2x).
	jax, _ := filepath.Glob(filepath.Join(corpusDir, "..", "jax", "*", "*.hlo"))
	files = append(files, jax...)
	if len(files) == 0 {
		t.Skip("corpus not present")
	}
	flopBudget := 2e9
	if os.Getenv("PULSE_ROOF_ALL") != "" {
		flopBudget = 1e12
	}
	c, err := config.Load("tpuv4core", nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	checked := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		m, err := hlo.Parse(f, string(src))
		if err != nil || verify.Verify(f, m) != nil {
			continue
		}
		if d, err := hlo.ModuleDevices(m); err != nil || d.N() > 1 {
			continue
		}
		if k, _ := analysis.ExecutedCost(m); float64(k.FLOPs) > flopBudget || eval.ParamElements(m) > 1<<24 {
			continue
		}
		x, err := client.Compile(f, m)
		if err != nil {
			continue // docs/coverage.md says why
		}
		args, err := eval.RandomArgs(m, 1)
		if err != nil {
			continue
		}
		r, err := client.Execute(x, args, runtime.ExecOptions{TimingOnly: true, MaxCycles: 2e9})
		if err != nil {
			continue
		}
		for _, k := range r.Kernels {
			require.LessOrEqual(t, k.Achieved, 1+1e-9, "%s: kernel %s reaches %.1f%% of its %s roof (%d FLOPs, %d bytes in %d cycles)",
				filepath.Base(f), k.Name, 100*k.Achieved, k.Bound, k.FLOPs, k.Bytes, k.Cycles)
		}
		checked++
		t.Logf("%s: %d kernels within their roofs", filepath.Base(f), len(r.Kernels))
	}
	require.GreaterOrEqual(t, checked, 10, "corpus modules checked")
}

// TestConstantPieceReadsNothing: a piece split out of a fusion that
// computes from constants alone (MobileNet-v2's adaptive average pool:
// 1/49, or NaN for an empty window) reads no operand of the fusion; it
// had been charged both of the fusion's operands.
func TestConstantPieceReadsNothing(t *testing.T) {
	src := `f {
  p0 = f32[96,1280] parameter(0)
  p1 = f32[96,1280] parameter(1)
  n = s32[] constant(49)
  z = s32[] constant(0)
  ne = pred[] compare(n, z), direction=NE
  one = f32[] constant(1)
  nf = f32[] convert(n)
  d = f32[] divide(one, nf)
  nan = f32[] constant(nan)
  s = f32[] select(ne, d, nan)
  b = f32[96,1280] broadcast(s), dimensions={}
  m = f32[96,1280] multiply(p0, b)
  ROOT a = f32[96,1280] add(m, p1)
}

ENTRY e {
  x = f32[96,1280] parameter(0)
  y = f32[96,1280] parameter(1)
  ROOT r = f32[96,1280] fusion(x, y), kind=kLoop, calls=f
}`
	comp := compileFor(t, "tpuv4core", src)
	for _, k := range comp.Kernels {
		t.Logf("%s %s flops %d bytes %d", k.Name, k.Kind, k.FLOPs, k.Bytes)
		if strings.Count(k.Name, "/") > 0 && k.Bytes > 1024 && !strings.HasSuffix(k.Name, "/a") && !strings.HasSuffix(k.Name, "/r") {
			t.Errorf("piece %s charged %d bytes", k.Name, k.Bytes)
		}
	}
	runChecked(t, "tpuv4core", src)
}
