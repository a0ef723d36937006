package partition_test

import (
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/spmd"
	"github.com/pulse-sim/pulse/hlo/partition"
	"github.com/pulse-sim/pulse/hlo/verify"
)

// FuzzPartition: a sharded module that parses and verifies is partitioned
// or refused with a positioned error, never a panic; what is partitioned
// verifies, and on small inputs its devices' shards put together are the
// unpartitioned module's outputs.
func FuzzPartition(f *testing.F) {
	for _, body := range []string{
		"x = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}\n w = f32[4,6] parameter(1), sharding={devices=[1,2,2]<=[4] last_tile_dim_replicate}\n ROOT d = f32[8,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
		"x = f32[4,8] parameter(0), sharding={devices=[1,4]<=[4]}\n z = f32[] constant(0)\n ROOT r = f32[4] reduce(x, z), dimensions={1}, to_apply=add",
		"x = f32[4,8] parameter(0), sharding={devices=[2,2]<=[2,2]T(1,0)}\n t = f32[8,4] transpose(x), dimensions={1,0}\n ROOT r = f32[32] reshape(t), sharding={devices=[4]<=[4]}",
		// An uneven split, and two independent partial sums the combiner merges.
		"x = f32[6,4] parameter(0), sharding={devices=[4,1]<=[4]}\n ROOT n = f32[6,4] negate(x), sharding={devices=[4,1]<=[4]}",
		"x = f32[4,8] parameter(0), sharding={devices=[1,4]<=[4]}\n y = f32[4,8] parameter(1), sharding={devices=[1,4]<=[4]}\n z = f32[] constant(0)\n r = f32[4] reduce(x, z), dimensions={1}, to_apply=add\n q = f32[4] reduce(y, z), dimensions={1}, to_apply=add\n ROOT t = (f32[4], f32[4]) tuple(r, q)",
		"x = f32[8,2] parameter(0), sharding={devices=[4,1]<=[4]}\n y = f32[8,2] custom-call(x), custom_call_target=\"Sharding\", sharding={devices=[1,2,2]<=[4] last_tile_dim_replicate}\n ROOT s = f32[4,2] slice(y), slice={[0:4],[0:2]}",
	} {
		f.Add("HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n " + body + "\n}\n")
	}
	f.Add("HloModule m, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<[\"a\"=2, \"b\"=2]>}}\nENTRY e {\n x = f32[4,4] parameter(0), frontend_attributes={xla.sdy.sharding=\"#sdy.sharding<@mesh, [{\\\"b\\\"}, {\\\"a\\\"}]>\"}\n ROOT n = f32[4,4] negate(x)\n}\n")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := hlo.Parse("fuzz.hlo", src)
		if err != nil || verify.Verify("fuzz.hlo", m) != nil || !partition.IsSharded(m) || eval.ParamElements(m) > 1<<10 {
			return
		}
		res, err := partition.Partition("fuzz.hlo", m, 0)
		if err != nil {
			return
		}
		if err := verify.Verify("partitioned", res.Module); err != nil {
			t.Fatalf("the partitioned module does not verify: %v\n%s", err, res.Module)
		}
		n := res.Mesh.N()
		if n > 8 {
			return
		}
		args, err := eval.RandomArgsWithin(m, 1, 1<<10)
		if err != nil {
			return
		}
		want, err := (&eval.Evaluator{File: "fuzz.hlo", M: m, MaxLiveElements: 1 << 14, MaxWhileIterations: 50}).Run(args)
		if err != nil {
			return
		}
		devArgs := make([][]*eval.Value, n)
		for d := range n {
			for k, a := range args {
				if a.Tuple != nil || k >= len(res.Params) {
					return
				}
				data, dims, err := res.Mesh.Shard(a.Data, a.Shape.Dims, res.Params[k], d)
				if err != nil {
					t.Fatalf("parameter %d: %v", k, err)
				}
				devArgs[d] = append(devArgs[d], &eval.Value{Shape: &hlo.Shape{Elem: a.Shape.Elem, Dims: dims}, Data: data})
			}
		}
		outs, err := spmd.RunDevices(&eval.Evaluator{File: "partitioned", M: res.Module, MaxLiveElements: 1 << 16, MaxWhileIterations: 50}, hlo.Devices{Replicas: 1, Partitions: n}, devArgs)
		if err != nil {
			t.Fatalf("the partitioned module fails where the module runs: %v\n%s", err, res.Module)
		}
		leaves := eval.Leaves(want)
		for i, w := range leaves {
			if w.Tuple != nil || i >= len(res.Outputs) {
				return
			}
			shards := make([][]float64, n)
			for d := range n {
				shards[d] = eval.Leaves(outs[d])[i].Data
			}
			got, err := res.Mesh.Assemble(shards, w.Shape.Dims, res.Outputs[i])
			if err != nil {
				t.Fatal(err)
			}
			for k, x := range w.Data {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					continue
				}
				if math.Abs(got[k]-x) > 1e-3*max(1, math.Abs(x)) {
					t.Fatalf("output %d element %d: %g, want %g\n%s", i, k, got[k], x, res.Module)
				}
			}
		}
	})
}
