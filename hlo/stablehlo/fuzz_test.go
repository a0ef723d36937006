package stablehlo

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
)

// FuzzRead: any text is a module or a positioned error, never a panic or
// a hang.
func FuzzRead(f *testing.F) {
	f.Add([]byte("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.abs %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}"))
	f.Add([]byte("module @m {\n func.func public @main() -> tensor<i1> {\n %c = stablehlo.constant dense<false> : tensor<i1>\n return %c : tensor<i1>\n }\n}"))
	f.Add([]byte("%0:2 = stablehlo.while(%i = %a) : tensor<i32>\n cond {\n stablehlo.return %i : tensor<i32>\n } do {\n stablehlo.return %i : tensor<i32>\n }"))
	// Issue 44's input kinds: splats of any size, integers beyond their
	// type, negative and huge dimensions, a NUL, a non-ASCII name, a
	// return of the wrong type.
	f.Add([]byte("func.func @main() -> tensor<100000x100000xf32> {\n  %c = stablehlo.constant dense<1.0> : tensor<100000x100000xf32>\n  return %c : tensor<100000x100000xf32>\n}"))
	f.Add([]byte("func.func @main() -> tensor<3xi8> {\n  %c = stablehlo.constant dense<[300, -129, 127]> : tensor<3xi8>\n  return %c : tensor<3xi8>\n}"))
	f.Add([]byte("func.func @main() -> tensor<2xui4> {\n  %c = stablehlo.constant dense<[15, 16]> : tensor<2xui4>\n  return %c : tensor<2xui4>\n}"))
	f.Add([]byte("func.func @main(%a: tensor<-3xf32>) -> tensor<99999999999999999999xf32> {\n  return %a : tensor<-3xf32>\n}"))
	f.Add([]byte("func.func @main(%\u00e4: tensor<2xf32>) -> tensor<3xf32> {\n  return %\u00e4 : tensor<2xf32>\x00\n}"))
	// Shardy (issue 42): meshes, argument and result shardings, a
	// sharding constraint, a shard_map body with mesh-axes collectives.
	f.Add([]byte(`module @m attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y", ?}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}], replicated={"x"}>}) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"y"}, {}]> : tensor<8x4xf32>
    %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"x", "y"}, {}]>] out_shardings=[<@mesh, [{"x", "y"}, {}]>] manual_axes={"x", "y"} (%arg1: tensor<2x4xf32>) {
      %2 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "y">]>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<4x4xf32>
      %3 = stablehlo.slice %2 [0:2, 0:4] : (tensor<4x4xf32>) -> tensor<2x4xf32>
      sdy.return %3 : tensor<2x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
}`))
	// Debug locations (issue 45): aliases, name stacks, call sites, fused
	// locations, a column range, an alias cycle.
	f.Add([]byte(`#loc1 = loc("x")
module @m {
  func.func public @main(%arg0: tensor<3xf32> loc("x")) -> (tensor<3xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<3xf32> loc(#loc4)
    %1 = stablehlo.abs %0 : tensor<3xf32> loc(fused[#loc1, callsite("f"("a.py":3:1 to :9) at #loc2)])
    %2 = stablehlo.sine %1 : tensor<3xf32> loc(#loc5)
    return %2 : tensor<3xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("a.py":9:0)
#loc3 = loc("jit(f)"(#loc2))
#loc4 = loc("neg"(#loc3))
#loc5 = loc("a"(#loc6))
#loc6 = loc("b"(#loc5))
`))
	f.Fuzz(func(t *testing.T, src []byte) {
		r, err := Read("f.mlir", src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				if _, ok := err.(hlo.ErrorList); !ok {
					t.Fatalf("an error without a position: %T %v", err, err)
				}
			}
			return
		}
		_ = verify.Verify("f.mlir", r.Module) // must not panic
	})
}
