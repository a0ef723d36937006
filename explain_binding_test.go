package pulse_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/pulse-sim/pulse/traces"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestExplainBindingMoves: the resource --explain names as binding is one
// whose change moves the time. For each module, the config key of its
// "binds:" line is halved and the cycles must grow by 20% or more: the
// issue's transposed-weight GEMV and three corpus kernels (skipped
// without ../shared).
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
	for _, tc := range []struct {
		name, file, src, chip, key string
	}{
		{"transposed-weight GEMV", "gemv.hlo", gemv, "tpuv4core", "hbm.bandwidth_gbps"},
		{"corpus gemm_1024_bf16", "../shared/corpus/jax/gemm_1024_bf16/gemm_1024_bf16.hlo", "", "tpuv4core", "mxu.count"},
		{"corpus softmax", "../shared/corpus/hlo/test_softmax_f32_bf16out.hlo", "", "tpuv4core", "hbm.bandwidth_gbps"},
		{"corpus gemm_1024_bf16 on trn1nc", "../shared/corpus/jax/gemm_1024_bf16/gemm_1024_bf16.hlo", "", "trn1nc", "dma.max_outstanding"},
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
			half := halved(t, tc.chip, key)
			_, moved := explainRun(t, tc.file, src, tc.chip, []string{key + "=" + half})
			require.GreaterOrEqual(t, float64(moved), 1.2*float64(cycles), "%s=%s: %d -> %d cycles", key, half, cycles, moved)
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

// halved is half of a chip's numeric key.
func halved(t *testing.T, chipName, key string) string {
	c, err := config.Load(chipName, nil)
	require.NoError(t, err)
	b, err := yaml.Marshal(c)
	require.NoError(t, err)
	var tree map[string]any
	require.NoError(t, yaml.Unmarshal(b, &tree))
	sect, field, _ := strings.Cut(key, ".")
	v := tree[sect].(map[string]any)[field]
	f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	require.NoError(t, err, "%s = %v", key, v)
	if f == float64(int64(f)) && !strings.Contains(key, "gbps") {
		return strconv.FormatInt(int64(f)/2, 10)
	}
	return strconv.FormatFloat(f/2, 'g', -1, 64)
}
