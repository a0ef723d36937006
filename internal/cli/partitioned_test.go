package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/stretchr/testify/require"
)

// TestPartitionedJAXModules: the modules XLA's SPMD partitioner writes for
// a sharded jit and a shard_map (JAX 0.11, ../shared/corpus/jax, replica
// groups in the mesh form) run on their 8 devices, each device's outputs
// as XLA's within float32 rounding (the all-reduces sum in another order).
func TestPartitionedJAXModules(t *testing.T) {
	for _, name := range []string{"spmd_data_parallel_step", "spmd_shard_map_collectives"} {
		t.Run(name, func(t *testing.T) {
			dir := corpus.Path(t, "jax", name)
			args := []string{"simulate", filepath.Join(dir, name+".partitioned.hlo"), "--chip", "tpuv4core", "--out-dir", filepath.Join(t.TempDir(), "o")}
			for i := 0; ; i++ {
				if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("in.%d.dev0.npy", i))); err != nil {
					break
				}
				for d := range 8 {
					args = append(args, "--in", fmt.Sprintf("%d@%d=%s", i, d, filepath.Join(dir, fmt.Sprintf("in.%d.dev%d.npy", i, d))))
				}
			}
			code, out, errs := runCLI(args...)
			require.Equal(t, 0, code, errs)
			require.Contains(t, out, "8 devices")
			outs := 0
			for d := range 8 {
				for k := 0; ; k++ {
					want, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out.%d.dev%d.npy", k, d)))
					if err != nil {
						break
					}
					x, err := npy.Read(want)
					require.NoError(t, err)
					g, err := npy.Read(mustRead(t, filepath.Join(args[5], fmt.Sprint("device", d), fmt.Sprintf("out.%d.npy", k))))
					require.NoError(t, err)
					require.Equal(t, x.Shape, g.Shape)
					for i, v := range x.Values {
						require.LessOrEqual(t, math.Abs(g.Values[i]-v), 1e-4*math.Abs(v)+1e-6, "device %d output %d element %d", d, k, i)
					}
					outs++
				}
			}
			require.Equal(t, 16, outs)
		})
	}
}

// TestShardedButNotPartitioned: the HLO of a sharded jit before XLA's
// partitioner (parameters sharding={devices=[8,1]<=[8]}, Shardy's
// FuncResultSharding calls) runs whole on one chip, as unsharded, and says
// so.
func TestShardedButNotPartitioned(t *testing.T) {
	dir := corpus.Path(t, "jax", "spmd_data_parallel_step")
	code, _, errs := runCLI("simulate", filepath.Join(dir, "spmd_data_parallel_step.hlo"), "--chip", "tpuv4core", "--timing-only")
	require.Equal(t, 0, code, errs)
	require.Contains(t, errs, "is sharded over 8 devices (sharding={devices=[8,1]<=[8]}) but not partitioned: it runs whole on one tpuv4core")
	// An unsharded module says nothing of the kind.
	code, _, errs = runCLI("simulate", "../../examples/hlo/gemm1024_bf16.hlo", "--chip", "tpuv4core", "--timing-only")
	require.Equal(t, 0, code, errs)
	require.NotContains(t, errs, "sharded over")
}
