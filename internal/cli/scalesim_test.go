package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pulse scalesim takes SCALE-Sim's flags and files and writes its reports;
// bad files give file:line: message and exit 1, bad flags exit 2.
func TestScaleSimCLI(t *testing.T) {
	dir := t.TempDir()
	cfg, err := os.ReadFile("../../scalesim/testdata/scale.cfg")
	require.NoError(t, err)
	good := write(t, dir, "scale.cfg", string(cfg))
	topo := write(t, dir, "t.csv", "Layer, M, N, K,\nG1, 64, 40, 100,\nG2, 9, 128, 33,\n")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("scalesim", "-c", good, "-t", topo, "-p", out, "-i", "gemm", "--dram-reads")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "2 layers")
	require.Contains(t, stderr, "layer 2/2 G2")
	rep, err := os.ReadFile(filepath.Join(out, "scale_example_run_32x32_ws", "COMPUTE_REPORT.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(rep)), "\n")
	require.Len(t, lines, 3)
	require.True(t, strings.HasPrefix(lines[1], "0, "), lines[1])

	header := "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
	cases := []struct {
		name string
		cfg  string
		topo string
		args []string
		code int
		msg  string
	}{
		{"missing key", strings.Replace(string(cfg), "ArrayWidth:     32\n", "", 1), header + "C, 8, 8, 3, 3, 1, 4, 1,\n", nil, 1, "c.cfg:4: [architecture_presets] has no ArrayWidth"},
		{"dataflow xs", strings.Replace(string(cfg), "Dataflow : ws", "Dataflow : xs", 1), header + "C, 8, 8, 3, 3, 1, 4, 1,\n", nil, 1, `Dataflow "xs": must be ws, os or is`},
		{"letters", string(cfg), header + "C, 8, eight, 3, 3, 1, 4, 1,\n", nil, 1, `t2.csv:2: IFMAP Width "eight" is not a whole number`},
		{"zero filters", string(cfg), header + "C, 8, 8, 3, 3, 1, 0, 1,\n", nil, 1, "t2.csv:2: Num Filter is 0"},
		{"input type", string(cfg), header, []string{"-i", "matmul"}, 2, "-i matmul: must be conv or gemm"},
		{"no topology", string(cfg), "", []string{"-t", ""}, 2, "required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cf := write(t, dir, "c.cfg", c.cfg)
			tf := write(t, dir, "t2.csv", c.topo)
			args := append([]string{"scalesim", "-c", cf, "-t", tf, "-p", out}, c.args...)
			code, _, stderr := runCLI(args...)
			require.Equal(t, c.code, code, stderr)
			require.Contains(t, stderr, c.msg)
			require.NotContains(t, stderr, "goroutine")
		})
	}
}

func TestMembenchCLI(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "r.json")
	code, stdout, stderr := runCLI("membench", "--chip", "../../examples/chips/hbm2-dramsim3.yaml", "--pattern", "random", "--requests", "2000", "--json", js)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "row-hit rate")
	b, err := os.ReadFile(js)
	require.NoError(t, err)
	for _, k := range []string{"cycles", "bytes_per_second", "peak_bytes_per_second", "fraction_of_peak", "avg_read_latency_cycles", "row_hit_rate"} {
		require.Contains(t, string(b), `"`+k+`"`)
	}
	code, _, stderr = runCLI("membench", "--chip", "teach16", "--pattern", "zigzag")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `--pattern "zigzag"`)
	code, _, _ = runCLI("membench", "--chip", "teach16")
	require.Equal(t, 2, code)
	code, _, stderr = runCLI("membench", "--chip", "teach16", "--pattern", "seq", "--set", "hbm.controller.address_mapping=rorabgbachxx", "--set", "hbm.model=banked")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "hbm.controller.address_mapping")
}
