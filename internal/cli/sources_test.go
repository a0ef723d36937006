package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pulse-sim/pulse/hlo/stablehlo"
	"github.com/stretchr/testify/require"
)

// A JAX export with debug info (as_text(debug_info=True): loc(...) on
// every operation) and the same module as HLO text with XLA's metadata
// name the model's lines: the kernel table's SOURCE column, the JSON and
// CSV kernels' source, --explain's model lines and the pprof profile's
// outermost frames, whose cycles add up to the run's.
func TestModelSourceLines(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	const example = "../../examples/hlo/mlp_debuginfo.mlir"
	r, err := stablehlo.Read(example, mustRead(t, example))
	require.NoError(t, err)
	hloText := r.Module.String()
	require.Contains(t, hloText, `source_file="/home/user/models/mlp.py" source_line=14`)
	hloFile := write(t, dir, "mlp.hlo", hloText)
	for _, model := range []string{example, hloFile} {
		t.Run(filepath.Ext(model), func(t *testing.T) {
			p := func(ext string) string { return filepath.Join(dir, filepath.Base(model)+ext) }
			code, stdout, stderr := runCLI("simulate", model, "--chip", "tpuv4core", "--timing-only", "--explain",
				"--pprof", p(".pb.gz"), "--csv", p(".csv"), "--json", p(".json"))
			require.Equal(t, 0, code, stderr)
			require.Contains(t, stdout, "SOURCE")
			for _, line := range []string{"mlp.py:14", "mlp.py:16", "mlp.py:17"} {
				require.Contains(t, stdout, line, "the kernel table")
			}
			require.Contains(t, stdout, "model lines (kernel cycles by the source line their HLO names):")
			require.Contains(t, stdout, "kernel(s)  /home/user/models/mlp.py:14")

			var rep struct {
				Cycles  int64 `json:"cycles"`
				Kernels []struct {
					Name   string `json:"name"`
					Kind   string `json:"kind"`
					Source string `json:"source"`
				} `json:"kernels"`
			}
			require.NoError(t, json.Unmarshal(mustRead(t, p(".json")), &rep))
			dots := 0
			for _, k := range rep.Kernels {
				require.NotEmpty(t, k.Source, "kernel %s", k.Name)
				if k.Kind == "output" {
					dots++
					require.Contains(t, []string{"/home/user/models/mlp.py:14", "/home/user/models/mlp.py:16"}, k.Source, "a dot's kernel is the dot's line, not its epilogue's")
				}
			}
			require.Equal(t, 2, dots)
			require.Contains(t, string(mustRead(t, p(".csv"))), ",/home/user/models/mlp.py:14\n")

			f, err := os.Open(p(".pb.gz"))
			require.NoError(t, err)
			prof, err := profile.Parse(f)
			f.Close()
			require.NoError(t, err)
			var busy, onModel int64
			for _, s := range prof.Sample {
				busy += s.Value[0]
				if root := s.Location[len(s.Location)-1]; root.Line[0].Function.Filename == "/home/user/models/mlp.py" {
					require.True(t, strings.HasPrefix(root.Line[0].Function.Name, "/home/user/models/mlp.py:"))
					require.Positive(t, root.Line[0].Line)
					onModel += s.Value[0]
				}
			}
			require.Positive(t, busy)
			require.Greater(t, onModel, busy*9/10, "nearly all busy cycles are under a line of the model")
		})
	}
}

// PyTorch/XLA's dumps carry metadata too (source_file, source_line): the
// corpus's MLP training step names torch's lines.
func TestModelSourceLinesTorchXLA(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	file := "../../../shared/corpus/hlo/torchxla_mlp_single_final.hlo"
	if _, err := os.Stat(file); err != nil {
		t.Skip("needs ../shared/corpus/hlo")
	}
	code, stdout, stderr := runCLI("simulate", file, "--chip", "tpuv4core", "--timing-only", "--explain")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "linear.py:114")
	require.Contains(t, stdout, "kernel(s)  /home/ubuntu/kahfi/pytorch/torch/nn/modules/linear.py:114")
}
