package cli

import (
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

// TestPartitionedJAXModules: JAX 0.11's sharded programs
// (../shared/corpus/jax) run on their 8 devices from every form they ship
// in, each device's outputs as XLA's within float32 rounding (the
// all-reduces sum in another order): the module XLA's SPMD partitioner
// wrote (.partitioned.hlo, replica groups in the mesh form, each device
// given its own shards), and the unpartitioned sharded HLO (.hlo) and
// Shardy StableHLO (.mlir), which Pulse partitions itself and which take
// the global inputs.
func TestPartitionedJAXModules(t *testing.T) {
	for _, name := range []string{"spmd_data_parallel_step", "spmd_shard_map_collectives"} {
		for _, form := range []string{".partitioned.hlo", ".hlo", ".mlir"} {
			t.Run(name+form, func(t *testing.T) {
				dir := corpus.Path(t, "jax", name)
				outDir := filepath.Join(t.TempDir(), "o")
				args := []string{"simulate", filepath.Join(dir, name+form), "--chip", "tpuv4core", "--out-dir", outDir, "--check"}
				for i := 0; ; i++ {
					if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("in.%d.dev0.npy", i))); err != nil {
						break
					}
					if form != ".partitioned.hlo" {
						args = append(args, "--in", fmt.Sprintf("%d=%s", i, filepath.Join(dir, fmt.Sprintf("in.%d.npy", i))))
						continue
					}
					for d := range 8 {
						args = append(args, "--in", fmt.Sprintf("%d@%d=%s", i, d, filepath.Join(dir, fmt.Sprintf("in.%d.dev%d.npy", i, d))))
					}
				}
				code, out, errs := runCLI(args...)
				require.Equal(t, 0, code, errs)
				require.Contains(t, out, "8 devices")
				if form != ".partitioned.hlo" {
					require.Contains(t, errs, "Pulse partitioned it into one program per device")
					if name == "spmd_shard_map_collectives" {
						require.Contains(t, out, "it has no unpartitioned run to compare with")
					} else {
						require.Contains(t, out, "the devices' shards put together, against the unpartitioned module")
					}
				}
				outs := 0
				for d := range 8 {
					for k := 0; ; k++ {
						want, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out.%d.dev%d.npy", k, d)))
						if err != nil {
							break
						}
						x, err := npy.Read(want)
						require.NoError(t, err)
						g, err := npy.Read(mustRead(t, filepath.Join(outDir, fmt.Sprint("device", d), fmt.Sprintf("out.%d.npy", k))))
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
}

// TestNoPartition: --no-partition runs the HLO of a sharded jit whole on
// one chip, as unsharded, and says so; an unsharded module says nothing
// of the kind.
func TestNoPartition(t *testing.T) {
	dir := corpus.Path(t, "jax", "spmd_data_parallel_step")
	code, out, errs := runCLI("simulate", filepath.Join(dir, "spmd_data_parallel_step.hlo"), "--chip", "tpuv4core", "--timing-only", "--no-partition")
	require.Equal(t, 0, code, errs)
	require.Contains(t, errs, "is sharded over 8 devices (sharding={devices=[8,1]<=[8]}); --no-partition runs it whole on one chip")
	require.NotContains(t, out, "8 devices")
	code, _, errs = runCLI("simulate", "../../examples/hlo/gemm1024_bf16.hlo", "--chip", "tpuv4core", "--timing-only")
	require.Equal(t, 0, code, errs)
	require.NotContains(t, errs, "sharded over")
}

// TestHLOPartitionAgainstXLA: pulse hlo partition lists Pulse's
// partition of JAX 0.11's sharded programs beside XLA's own: the same
// collectives in kind, groups and bytes (a shard_map's), combined by
// XLA (the data-parallel step's two all-reduces), or the same elements as
// f32 (XLA's CPU module) where Pulse keeps bf16 (GPT-3's tensor-parallel
// layer); -o writes the per-device program.
func TestHLOPartitionAgainstXLA(t *testing.T) {
	for _, tc := range []struct{ name, form, want string }{
		{"spmd_shard_map_collectives", ".mlir", "4 collectives against 4: 4 agree in kind, groups and bytes"},
		{"spmd_shard_map_collectives", ".hlo", "4 collectives against 4: 4 agree in kind, groups and bytes"},
		// Pulse's all-reduce combiner merges the gradient's and the loss's
		// all-reduces into one, as XLA's does.
		{"spmd_data_parallel_step", ".hlo", "1 collective against 1: 1 agree in kind, groups and bytes"},
		{"spmd_data_parallel_step", ".mlir", "1 collective against 1: 1 agree in kind, groups and bytes; 0 move the same elements as another type; 0 were combined by the other; 0 agree in kind and groups only; 0 of Pulse's and 0 of the other's unmatched"},
		{"gpt3_175b_layer_prefill_b8_s2048_tp8", ".hlo", "3 collectives against 3: 0 agree in kind, groups and bytes; 3 move the same elements as another type"},
		{"gpt3_175b_layer_prefill_b8_s2048_tp8", ".mlir", "3 move the same elements as another type; 0 were combined by the other; 0 agree in kind and groups only; 0 of Pulse's and 0 of the other's unmatched"},
	} {
		t.Run(tc.name+tc.form, func(t *testing.T) {
			dir := corpus.Path(t, "jax", tc.name)
			out := filepath.Join(t.TempDir(), "p.hlo")
			code, stdout, errs := runCLI("hlo", "partition", filepath.Join(dir, tc.name+tc.form), "--against", filepath.Join(dir, tc.name+".partitioned.hlo"), "-o", out)
			require.Equal(t, 0, code, errs)
			require.Contains(t, stdout, tc.want)
			require.Contains(t, stdout, "every op partitioned")
			code, _, errs = runCLI("hlo", "fmt", out)
			require.Equal(t, 0, code, errs)
		})
	}
}

// TestShardyForms: Shardy's other forms a JAX export may carry run on
// their devices and match the unpartitioned module: a named computation
// (jax.named_scope) with a sharding on an op inside, a propagation
// barrier, a sharding constraint, and a shard_map over a 2x2 mesh with a
// collective over one of its axes.
func TestShardyForms(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"named computation", `module @m attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = sdy.named_computation<"foo">(%arg0) (%arg1: tensor<8x4xf32>) {
      %1 = stablehlo.multiply %arg1, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} : tensor<8x4xf32>
      sdy.return %1 : tensor<8x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %2 = sdy.propagation_barrier %0 allowed_direction=NONE : tensor<8x4xf32>
    return %2 : tensor<8x4xf32>
  }
}`, "the devices' shards put together, against the unpartitioned module"},
		{"shard_map on a 2x2 mesh", `module @m attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y", ?}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}], replicated={"x"}>}) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"y"}, {}]> : tensor<8x4xf32>
    %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"x", "y"}, {}]>] out_shardings=[<@mesh, [{"x", "y"}, {}]>] manual_axes={"x", "y"} (%arg1: tensor<2x4xf32>) {
      %2 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "y">]>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
      %3 = stablehlo.slice %2 [2:4, 0:4] : (tensor<4x4xf32>) -> tensor<2x4xf32>
      sdy.return %3 : tensor<2x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
}`, "check: every output of every device matches the reference evaluator"},
		// Manual over x only (shard_map with y left to the partitioner):
		// the body runs on its x-shards, whole along y.
		{"shard_map manual over one axis of two", `module @m attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %1 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x4xf32>) {
      %2 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x">]>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
      %3 = stablehlo.multiply %2, %arg1 : tensor<4x4xf32>
      sdy.return %3 : tensor<4x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
}`, "check: every output of every device matches the reference evaluator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "m.mlir")
			require.NoError(t, os.WriteFile(f, []byte(tc.src), 0o644))
			code, out, errs := runCLI("simulate", f, "--chip", "teach16", "--random-inputs", "1", "--check")
			require.Equal(t, 0, code, errs)
			require.Contains(t, out, "4 devices")
			require.Contains(t, out, tc.want)
		})
	}
}

// TestWindowedEinsumStopsClearly: XLA's windowed-einsum test module (4
// partitions of 5.2 GiB of HBM each) ran out of a 24 GB host's memory
// after minutes, or faulted at a negative HBM address; it now stops at
// once with what it needs where the host cannot hold it, and otherwise
// starts cleanly (stopped here by --max-cycles).
func TestWindowedEinsumStopsClearly(t *testing.T) {
	dir := corpus.Path(t, "hlo")
	code, _, errs := runCLI("simulate", filepath.Join(dir, "jax_pjit_windowed_einsum_allgather_f8.hlo"), "--chip", "tpuv4core",
		"--random-inputs", "1", "--max-cycles", "20000")
	require.Equal(t, 1, code, errs)
	if !strings.Contains(errs, "needs about") {
		require.Contains(t, errs, "stopped at the --max-cycles limit of 20000 cycles")
	} else {
		require.Contains(t, errs, "a value run of 4 devices needs about 20.7 GiB of this host's memory for the simulated HBM (5.2 GiB a device")
	}
	require.NotContains(t, errs, "reaches outside")
	require.NotContains(t, errs, "panic")
}

// TestAllToAllAcrossDimensions: a shard_map's all_to_all that splits one
// dimension and concatenates along another (Ulysses attention's
// heads-for-sequence swap), which HLO's all-to-all does not express, moves
// a row-split array to a column split: device d ends with columns
// 2d..2d+1 of the whole.
func TestAllToAllAcrossDimensions(t *testing.T) {
	const src = `module @m attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main() -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) {
    %r = stablehlo.iota dim = 0 : tensor<8x8xf32>
    %c = stablehlo.iota dim = 1 : tensor<8x8xf32>
    %k = stablehlo.constant dense<8.0> : tensor<8x8xf32>
    %r8 = stablehlo.multiply %r, %k : tensor<8x8xf32>
    %x = stablehlo.add %r8, %c : tensor<8x8xf32>
    %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{}, {"x"}]>] manual_axes={"x"} (%a: tensor<2x8xf32>) {
      %1 = "stablehlo.all_to_all"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 1 : i64}> : (tensor<2x8xf32>) -> tensor<8x2xf32>
      sdy.return %1 : tensor<8x2xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}`
	dir := t.TempDir()
	f := filepath.Join(dir, "a2a.mlir")
	require.NoError(t, os.WriteFile(f, []byte(src), 0o644))
	out := filepath.Join(dir, "o")
	code, _, errs := runCLI("simulate", f, "--chip", "teach16", "--out-dir", out, "--check")
	require.Equal(t, 0, code, errs)
	for d := range 4 {
		g, err := npy.Read(mustRead(t, filepath.Join(out, fmt.Sprint("device", d), "out.0.npy")))
		require.NoError(t, err)
		require.Equal(t, []int{8, 2}, g.Shape)
		for r := range 8 {
			for c := range 2 {
				require.Equal(t, float64(r*8+2*d+c), g.Values[r*2+c], "device %d [%d,%d]", d, r, c)
			}
		}
	}
}

// TestAlreadyPartitionedModule: a module XLA's SPMD partitioner wrote
// (entry <name>_spmd) whose dump lost num_partitions — the MaxText steps
// of the shared corpus — runs as it is on the partitions its collectives
// name, not partitioned again by the sharding= its parameters keep from
// the global arrays (which cut each shard once more, silently).
func TestAlreadyPartitionedModule(t *testing.T) {
	dir := corpus.Path(t, "jax", "spmd_data_parallel_step")
	src := string(mustRead(t, filepath.Join(dir, "spmd_data_parallel_step.partitioned.hlo")))
	require.Contains(t, src, ", num_partitions=8")
	headless := filepath.Join(t.TempDir(), "step.hlo")
	require.NoError(t, os.WriteFile(headless, []byte(strings.Replace(src, ", num_partitions=8", "", 1)), 0o644))
	cycles := func(file string) string {
		code, out, errs := runCLI("simulate", file, "--chip", "tpuv4core", "--timing-only")
		require.Equal(t, 0, code, errs)
		require.NotContains(t, errs, "Pulse partitioned it")
		require.Contains(t, out, "8 devices (1 replica x 8 partitions)")
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "cycles") {
				return l
			}
		}
		t.Fatalf("no cycles in %s", out)
		return ""
	}
	require.Equal(t, cycles(filepath.Join(dir, "spmd_data_parallel_step.partitioned.hlo")), cycles(headless))
}
