package pulse_test

import (
	"os"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/pulse-sim/pulse/traces"
	"github.com/stretchr/testify/require"
)

// TestExplainBindingMoves: the resource --explain names as binding is one
// whose change moves the time. For each module, the config key of its
// "binds:" line is changed against the run (a resource halved, a cost
// doubled) and the cycles must grow by 20% or more: the issue's
// transposed-weight GEMV, the dots suite's decode GEMV and three corpus
// kernels (skipped without ../shared).
func TestExplainBindingMoves(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates corpus modules")
	}
	gemv := `HloModule gemv
ENTRY e {
  a = f32[4,4096] parameter(0)
  w = f32[8192,4096] parameter(1)
  ROOT d = f32[4,8192] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`
	decode, err := os.ReadFile("bench/workloads/dots/decode_gemv_bf16_l.hlo")
	require.NoError(t, err)
	for _, tc := range []struct {
		name, file, src, chip, key string
		change                     string // the key's new value: a resource halved, a cost doubled
	}{
		{"transposed-weight GEMV", "gemv.hlo", gemv, "tpuv4core", "hbm.bandwidth_gbps", "307"},
		{"decode GEMV, 8 rows", "decode.hlo", string(decode), "tpuv4core", "hbm.bandwidth_gbps", "307"},
		{"corpus gemm_1024_bf16", "../shared/corpus/jax/gemm_1024_bf16/gemm_1024_bf16.hlo", "", "tpuv4core", "mxu.count", "2"},
		{"corpus softmax", "../shared/corpus/hlo/test_softmax_f32_bf16out.hlo", "", "tpuv4core", "hbm.bandwidth_gbps", "307"},
		{"corpus gemm_1024_bf16 on trn1nc", "../shared/corpus/jax/gemm_1024_bf16/gemm_1024_bf16.hlo", "", "trn1nc", "dma.engine_gbps", "14.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			if tc.src == "" {
				b, err := os.ReadFile(tc.file)
				if os.IsNotExist(err) {
					t.Skip("no ../shared corpus")
				}
				require.NoError(t, err)
				src = b
			}
			key, cycles := explainRun(t, tc.file, src, tc.chip, nil)
			require.Equal(t, tc.key, key)
			_, moved := explainRun(t, tc.file, src, tc.chip, []string{key + "=" + tc.change})
			require.GreaterOrEqual(t, float64(moved), 1.2*float64(cycles), "%s=%s: %d -> %d cycles", key, tc.change, cycles, moved)
		})
	}
}

// explainRun simulates a module timing-only with --explain and returns
// the key its "binds:" line names and the cycles.
func explainRun(t *testing.T, file string, src []byte, chipName string, sets []string) (string, int64) {
	t.Helper()
	m, err := hlo.Parse(file, string(src))
	require.NoError(t, err)
	c, err := config.Load(chipName, sets)
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	x, err := client.Compile(file, m)
	require.NoError(t, err)
	ex := traces.NewExplain()
	r, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true, Observers: []core.Observer{ex}})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, ex.Write(&b, r.Report))
	for _, line := range strings.Split(b.String(), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "binds: "); ok {
			key, _, _ := strings.Cut(rest, ":")
			return key, r.Report.Cycles
		}
	}
	t.Fatalf("no binds line in:\n%s", b.String())
	return "", 0
}
