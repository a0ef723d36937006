package stablehlo

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/spmd"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestCollectives: a sharded export (JAX's shard_map writes
// mhlo.num_partitions and these ops) reads into HLO's collectives and
// evaluates on its devices; device i brings [10i, 10i+1].
func TestCollectives(t *testing.T) {
	src := `module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<ui32>, tensor<2xf32>) {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2xf32>) -> tensor<4xf32>
    %2 = "stablehlo.reduce_scatter"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<1xf32>
    %3 = "stablehlo.all_to_all"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<2xf32>) -> tensor<2xf32>
    %4 = "stablehlo.collective_permute"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
    %5 = "stablehlo.collective_broadcast"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 6, type = 1>, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
    %6 = stablehlo.partition_id : tensor<ui32>
    %7 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<ui32>, tensor<2xf32>
  }
}`
	r, err := Read("c.mlir", []byte(src))
	require.NoError(t, err)
	require.NoError(t, verify.Verify("c.mlir", r.Module))
	d, err := hlo.ModuleDevices(r.Module)
	require.NoError(t, err)
	require.Equal(t, hlo.Devices{Replicas: 1, Partitions: 2}, d)
	args := [][]*eval.Value{}
	for i := range 2 {
		args = append(args, []*eval.Value{{Shape: &hlo.Shape{Elem: "f32", Dims: []int64{2}}, Data: []float64{float64(10 * i), float64(10*i + 1)}}})
	}
	out, err := spmd.RunDevices((&eval.Evaluator{File: "c.mlir", M: r.Module}), d, args)
	require.NoError(t, err)
	want := [][][]float64{
		{{10, 12}, {10, 11, 0, 1}, {10}, {0, 10}, {0, 0}, {10, 11}, {0}, {0, 2}},
		{{10, 12}, {10, 11, 0, 1}, {11}, {1, 11}, {0, 1}, {10, 11}, {1}, {20, 22}},
	}
	for i, w := range want {
		var got [][]float64
		for _, l := range eval.Leaves(out[i]) {
			got = append(got, l.Data)
		}
		require.Equal(t, w, got, "device %d", i)
	}

	// An all_to_all that splits one dimension and concatenates another:
	// device i sends its column j to device j, which stacks what it gets
	// in device order. Device 0 has [[1,2],[3,4]], device 1 [[5,6],[7,8]].
	r, err = Read("a.mlir", []byte(`module @m attributes {mhlo.num_partitions = 2 : i32} {
  func.func @main(%a: tensor<2x2xf32>) -> tensor<4x1xf32> {
    %0 = "stablehlo.all_to_all"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x2xf32>) -> tensor<4x1xf32>
    return %0 : tensor<4x1xf32>
  }
}`))
	require.NoError(t, err)
	require.NoError(t, verify.Verify("a.mlir", r.Module))
	args = [][]*eval.Value{}
	for i := range 2 {
		b := float64(4 * i)
		args = append(args, []*eval.Value{{Shape: &hlo.Shape{Elem: "f32", Dims: []int64{2, 2}}, Data: []float64{b + 1, b + 2, b + 3, b + 4}}})
	}
	out, err = spmd.RunDevices((&eval.Evaluator{File: "a.mlir", M: r.Module}), hlo.Devices{Replicas: 1, Partitions: 2}, args)
	require.NoError(t, err)
	require.Equal(t, []float64{1, 3, 5, 7}, eval.Leaves(out[0])[0].Data)
	require.Equal(t, []float64{2, 4, 6, 8}, eval.Leaves(out[1])[0].Data)
}
