package partition_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/spmd"
	"github.com/pulse-sim/pulse/hlo/partition"
)

// runPartitioned partitions src, runs it on its devices with the shards
// of random global inputs, and checks that the assembled outputs are the
// unpartitioned module's.
func runPartitioned(t *testing.T, src string) *partition.Result {
	t.Helper()
	m, err := hlo.Parse("test.hlo", src)
	require.NoError(t, err)
	args, err := eval.RandomArgs(m, 7)
	require.NoError(t, err)
	want, err := (&eval.Evaluator{File: "test.hlo", M: m}).Run(args)
	require.NoError(t, err)
	res, err := partition.Partition("test.hlo", m, 0)
	require.NoError(t, err)
	n := res.Mesh.N()
	devArgs := make([][]*eval.Value, n)
	for d := range n {
		for k, a := range args {
			data, dims, err := res.Mesh.Shard(a.Data, a.Shape.Dims, res.Params[k], d)
			require.NoError(t, err)
			devArgs[d] = append(devArgs[d], &eval.Value{Shape: &hlo.Shape{Elem: a.Shape.Elem, Dims: dims}, Data: data})
		}
	}
	outs, err := spmd.RunDevices(&eval.Evaluator{File: "partitioned", M: res.Module}, hlo.Devices{Replicas: 1, Partitions: n}, devArgs)
	require.NoError(t, err, "partitioned module:\n%s", res.Module)
	wantLeaves := []*eval.Value{want}
	if want.Tuple != nil {
		wantLeaves = want.Tuple
	}
	require.Len(t, res.Outputs, len(wantLeaves))
	for i, w := range wantLeaves {
		shards := make([][]float64, n)
		for d := range n {
			o := outs[d]
			if o.Tuple != nil {
				o = o.Tuple[i]
			}
			shards[d] = o.Data
		}
		got, err := res.Mesh.Assemble(shards, w.Shape.Dims, res.Outputs[i])
		require.NoError(t, err)
		for k := range got {
			tol := 1e-4 * max(1, math.Abs(w.Data[k]))
			if w.Shape.Elem == "bf16" {
				tol = 2e-2 * max(1, math.Abs(w.Data[k]))
			}
			if math.Abs(got[k]-w.Data[k]) > tol {
				t.Fatalf("output %d element %d: %g, want %g\npartitioned module:\n%s", i, k, got[k], w.Data[k], res.Module)
			}
		}
	}
	return res
}

func kinds(res *partition.Result) string {
	var k []string
	for _, c := range res.Collectives {
		k = append(k, c.Kind)
	}
	return strings.Join(k, " ")
}

const adder = `
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
`

// scanLoop is a scan over 4 layers as JAX writes one: the stacked
// weights in the loop's state, each layer's taken by a dynamic-slice.
const scanLoop = `
body {
  s = (s32[], f32[64,16], f32[4,16,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[64,16] get-tuple-element(s), index=1
  ws = f32[4,16,16] get-tuple-element(s), index=2
  z = s32[] constant(0)
  w1 = f32[1,16,16] dynamic-slice(ws, i, z, z), dynamic_slice_sizes={1,16,16}
  w = f32[16,16] reshape(w1)
  d = f32[64,16] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[64,16] tanh(d)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT r = (s32[], f32[64,16], f32[4,16,16]) tuple(n, t, ws)
}
cond {
  s = (s32[], f32[64,16], f32[4,16,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(i, four), direction=LT
}
`

// stackLoop is a scan that writes each step's batch-split output into a
// stacked array of zeros, with a mask passed through its state unchanged.
const stackLoop = `
body2 {
  s = (s32[], f32[64,16], f32[4,64,16], f32[64,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[64,16] get-tuple-element(s), index=1
  ys = f32[4,64,16] get-tuple-element(s), index=2
  m = f32[64,16] get-tuple-element(s), index=3
  th = f32[64,16] tanh(h)
  t = f32[64,16] multiply(th, m)
  t1 = f32[1,64,16] reshape(t)
  z = s32[] constant(0)
  ys2 = f32[4,64,16] dynamic-update-slice(ys, t1, i, z, z)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT r = (s32[], f32[64,16], f32[4,64,16], f32[64,16]) tuple(n, t, ys2, m)
}
cond2 {
  s = (s32[], f32[64,16], f32[4,64,16], f32[64,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(i, four), direction=LT
}
`

func TestPartitionMatchesUnpartitioned(t *testing.T) {
	for _, tc := range []struct {
		name, body  string
		collectives string // the collectives the partition should need, in order
		fallbacks   int
	}{
		{"data parallel step", `
  w = f32[16,8] parameter(0), sharding={replicated}
  x = f32[32,16] parameter(1), sharding={devices=[8,1]<=[8]}
  y = f32[32,8] parameter(2), sharding={devices=[8,1]<=[8]}
  h = f32[32,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[32,8] tanh(h)
  e = f32[32,8] subtract(t, y)
  g = f32[16,8] dot(x, e), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  lr = f32[] constant(0.1)
  lrb = f32[16,8] broadcast(lr), dimensions={}
  s = f32[16,8] multiply(g, lrb)
  nw = f32[16,8] subtract(w, s)
  sq = f32[32,8] multiply(e, e)
  z = f32[] constant(0)
  loss = f32[] reduce(sq, z), dimensions={0,1}, to_apply=add
  ROOT r = (f32[16,8], f32[]) tuple(nw, loss), sharding={{replicated}, {replicated}}`, "all-reduce", 0}, // the gradient's and the loss's, combined
		{"megatron mlp", `
  x = f32[16,32] parameter(0), sharding={replicated}
  w1 = f32[32,64] parameter(1), sharding={devices=[1,8]<=[8]}
  w2 = f32[64,32] parameter(2), sharding={devices=[8,1]<=[8]}
  h = f32[16,64] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[16,64] tanh(h)
  o = f32[16,32] dot(a, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[16,32] add(o, x), sharding={replicated}`, "all-reduce", 0},
		{"megatron output split: reduce-scatter", `
  x = f32[16,32] parameter(0), sharding={replicated}
  w2 = f32[32,24] parameter(1), sharding={devices=[8,1]<=[8]}
  xs = f32[16,32] custom-call(x), custom_call_target="Sharding", sharding={devices=[1,8]<=[8]}
  ROOT o = f32[16,24] dot(xs, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[8,1]<=[8]}`, "reduce-scatter", 0},
		{"a one-hot over a split vocabulary: each device its iota's shard, offset", `
  l = s32[16] parameter(0), sharding={replicated}
  lb = s32[16,64] broadcast(l), dimensions={0}
  i = s32[16,64] iota(), iota_dimension=1, sharding={devices=[1,8]<=[8]}
  e = pred[16,64] compare(lb, i), direction=EQ
  x = f32[16,64] parameter(1), sharding={devices=[1,8]<=[8]}
  z = f32[16,64] broadcast(f32[] constant(0)), dimensions={}
  s = f32[16,64] select(e, x, z)
  zero = f32[] constant(0)
  ROOT r = f32[16] reduce(s, zero), dimensions={1}, to_apply=add, sharding={replicated}`, "all-reduce", 0},
		{"an iota split along another dimension: its shard, no offset", `
  i = s32[16,8] iota(), iota_dimension=1, sharding={devices=[8,1]<=[8]}
  x = s32[16,8] parameter(0), sharding={devices=[8,1]<=[8]}
  ROOT r = s32[16,8] add(i, x), sharding={devices=[8,1]<=[8]}`, "", 0},
		{"fsdp gathers the weight", `
  x = f32[64,32] parameter(0), sharding={devices=[8,1]<=[8]}
  w = f32[32,64] parameter(1), sharding={devices=[8,1]<=[8]}
  ROOT h = f32[64,64] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[8,1]<=[8]}`, "all-gather", 0},
		{"2-D mesh, batch and columns", `
  x = f32[8,32] parameter(0), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}
  w = f32[32,16] parameter(1), sharding={devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  h = f32[8,16] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT e = f32[8,16] exponential(h), sharding={devices=[2,4]<=[8]}`, "", 0},
		{"batched attention scores, heads split", `
  q = f32[2,8,16,4] parameter(0), sharding={devices=[1,8,1,1]<=[8]}
  k = f32[2,8,16,4] parameter(1), sharding={devices=[1,8,1,1]<=[8]}
  s = f32[2,8,16,16] dot(q, k), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_contracting_dims={3}
  ninf = f32[] constant(-inf)
  m = f32[2,8,16] reduce(s, ninf), dimensions={3}, to_apply=max
  mb = f32[2,8,16,16] broadcast(m), dimensions={0,1,2}
  d = f32[2,8,16,16] subtract(s, mb)
  ROOT e = f32[2,8,16,16] exponential(d)`, "", 0},
		{"softmax over a split dimension", `
  x = f32[4,64] parameter(0), sharding={devices=[1,8]<=[8]}
  ninf = f32[] constant(-inf)
  m = f32[4] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[4,64] broadcast(m), dimensions={0}
  d = f32[4,64] subtract(x, mb)
  e = f32[4,64] exponential(d)
  z = f32[] constant(0)
  s = f32[4] reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[4,64] broadcast(s), dimensions={0}
  ROOT p = f32[4,64] divide(e, sb), sharding={devices=[1,8]<=[8]}`, "all-reduce all-reduce", 0},
		{"reshape, transpose and slices keep the split", `
  x = f32[16,4,6] parameter(0), sharding={devices=[8,1,1]<=[8]}
  r = f32[16,24] reshape(x)
  t = f32[24,16] transpose(r), dimensions={1,0}
  s = f32[12,16] slice(t), slice={[0:12], [0:16]}
  c = f32[36,16] concatenate(s, t), dimensions={0}
  zero = f32[] constant(0)
  p = f32[40,16] pad(c, zero), padding=0_4x0_0
  rv = f32[40,16] reverse(p), dimensions={0}
  ROOT m = f32[10,64] reshape(rv)`, "all-gather", 0},
		{"merge reshape of a split major dim", `
  x = f32[8,2,3] parameter(0), sharding={devices=[8,1,1]<=[8]}
  ROOT r = f32[48] reshape(x), sharding={devices=[8]<=[8]}`, "", 0},
		{"dynamic-slice along a whole dimension", `
  x = f32[16,10] parameter(0), sharding={devices=[8,1]<=[8]}
  i = s32[] constant(3)
  z = s32[] constant(0)
  ROOT d = f32[16,4] dynamic-slice(x, z, i), dynamic_slice_sizes={16,4}, sharding={devices=[8,1]<=[8]}`, "", 0},
		{"a data-parallel convolution stays local", `
  x = f32[8,6,6,3] parameter(0), sharding={devices=[8,1,1,1]<=[8]}
  k = f32[3,3,3,4] parameter(1), sharding={replicated}
  ROOT c = f32[8,4,4,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, sharding={devices=[8,1,1,1]<=[8]}`, "", 0},
		{"a convolution with split input features sums partials", `
  x = f32[2,6,6,16] parameter(0), sharding={devices=[1,1,1,8]<=[8]}
  k = f32[3,3,16,4] parameter(1), sharding={devices=[1,1,8,1]<=[8]}
  ROOT c = f32[2,4,4,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, sharding={replicated}`, "all-reduce", 0},
		{"a gather along a split dimension gathers it first", `
  x = f32[16,4] parameter(0), sharding={devices=[8,1]<=[8]}
  i = s32[3,1] constant({{1},{5},{9}})
  ROOT g = f32[3,4] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}`, "all-gather", 0},
		{"an embedding lookup keeps the table's column split and the tokens' batch split", `
  table = f32[32,16] parameter(0), sharding={devices=[1,2,4]<=[8] last_tile_dim_replicate}
  ids = s32[8,4,1] parameter(1), sharding={devices=[4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  c = s32[8,4,1] clamp(s32[] constant(0), ids, s32[] constant(31))
  ROOT g = f32[8,4,16] gather(table, c), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,16}`, "", 0},
		{"an embedding gradient scatters where its updates are, then sums", `
  upd = f32[8,16] parameter(0), sharding={devices=[8,1]<=[8]}
  ids = s32[8,1] parameter(1), sharding={devices=[8,1]<=[8]}
  c = s32[8,1] clamp(s32[] constant(0), ids, s32[] constant(31))
  z = f32[] constant(0)
  zeros = f32[32,16] broadcast(z), dimensions={}
  ROOT s = f32[32,16] scatter(zeros, c, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add, sharding={devices=[8,1]<=[8]}`, "reduce-scatter", 0},
		{"a scan over layers keeps its state split: FSDP gathers each layer's weight in the loop", `
  x = f32[64,16] parameter(0), sharding={devices=[8,1]<=[8]}
  ws = f32[4,16,16] parameter(1), sharding={devices=[1,8,1]<=[8]}
  z = s32[] constant(0)
  s0 = (s32[], f32[64,16], f32[4,16,16]) tuple(z, x, ws)
  l = (s32[], f32[64,16], f32[4,16,16]) while(s0), condition=cond, body=body
  ROOT h = f32[64,16] get-tuple-element(l), index=1`, "all-gather", 0},
		{"a scan's stacked outputs and its mask are split as its batch: nothing moves", `
  x = f32[64,16] parameter(0), sharding={devices=[8,1]<=[8]}
  z = s32[] constant(0)
  zf = f32[] constant(0)
  ys = f32[4,64,16] broadcast(zf), dimensions={}
  half = f32[] constant(0.5)
  m = f32[64,16] broadcast(half), dimensions={}
  s0 = (s32[], f32[64,16], f32[4,64,16], f32[64,16]) tuple(z, x, ys, m)
  l = (s32[], f32[64,16], f32[4,64,16], f32[64,16]) while(s0), condition=cond2, body=body2
  ROOT o = f32[4,64,16] get-tuple-element(l), index=2`, "", 0},
		{"a take_along_axis gradient scatters each device's batch rows", `
  upd = f32[8,4,1] parameter(0), sharding={devices=[8,1,1]<=[8]}
  ids = s32[8,4,1,1] parameter(1), sharding={devices=[8,1,1,1]<=[8]}
  c = s32[8,4,1,1] clamp(s32[] constant(0), ids, s32[] constant(15))
  z = f32[] constant(0)
  zeros = f32[8,4,16] broadcast(z), dimensions={}
  ROOT s = f32[8,4,16] scatter(zeros, c, upd), update_window_dims={}, inserted_window_dims={2}, scatter_dims_to_operand_dims={2}, input_batching_dims={0,1}, scatter_indices_batching_dims={0,1}, index_vector_dim=3, to_apply=add`, "", 0},
		{"a norm's split weight is gathered, not its broadcast moved all-to-all", `
  x = f32[16,64] parameter(0), sharding={devices=[8,1]<=[8]}
  g = f32[64] parameter(1), sharding={devices=[8]<=[8]}
  gb = f32[16,64] broadcast(g), dimensions={1}
  ROOT y = f32[16,64] multiply(x, gb), sharding={devices=[8,1]<=[8]}`, "all-gather", 0},
		{"a split moved to another dimension is one all-to-all", `
  x = f32[16,8] parameter(0), sharding={devices=[8,1]<=[8]}
  y = f32[16,8] parameter(1), sharding={devices=[1,8]<=[8]}
  ROOT a = f32[16,8] add(x, y), sharding={devices=[8,1]<=[8]}`, "all-to-all", 0},
		{"all-to-all over one axis of a 2-D mesh, the other kept", `
  x = f32[4,8,6] parameter(0), sharding={devices=[2,1,1,4]<=[8] last_tile_dim_replicate}
  ROOT n = f32[4,8,6] negate(x), sharding={devices=[1,2,1,4]<=[8] last_tile_dim_replicate}`, "all-to-all", 0},
		{"all-to-all into a minor dimension, a 3-D array", `
  x = f32[4,6,8] parameter(0), sharding={devices=[1,2,1,4]<=[8] last_tile_dim_replicate}
  ROOT n = f32[4,6,8] negate(x), sharding={devices=[1,1,2,4]<=[8] last_tile_dim_replicate}`, "all-to-all", 0},
		// Uneven splits: kept over the axes that divide the dimension,
		// each listed (counted with the fallbacks).
		{"an uneven split kept over the axes that divide it", `
  x = f32[10,4] parameter(0), sharding={devices=[8,1]<=[8]}
  e = f32[10,4] exponential(x)
  z = f32[] constant(0)
  ROOT r = f32[10] reduce(e, z), dimensions={1}, to_apply=add, sharding={devices=[8]<=[8]}`, "", 2},
		{"an LM head over a vocabulary no device count divides", `
  h = f32[4,16] parameter(0), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}
  w = f32[16,50] parameter(1), sharding={devices=[1,8]<=[8]}
  l = f32[4,50] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[4,50] multiply(l, l), sharding={devices=[1,8]<=[8]}`, "all-gather", 2},
		{"a tuple result with an uneven element", `
  x = f32[6,8] parameter(0), sharding={devices=[4,2]<=[8]}
  n = f32[6,8] negate(x)
  ROOT t = (f32[6,8], f32[6,8]) tuple(n, x), sharding={{devices=[4,2]<=[8]}, {devices=[8,1]<=[8]}}`, "all-gather", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runPartitioned(t, "HloModule m\n"+adder+scanLoop+stackLoop+"\nENTRY e {"+tc.body+"\n}\n")
			require.Equal(t, tc.collectives, kinds(res), "partitioned module:\n%s", res.Module)
			require.Len(t, append(res.Fallbacks, res.Uneven...), tc.fallbacks)
			switch { // the iotas' global shapes are never made
			case strings.Contains(tc.name, "one-hot"):
				require.NotRegexp(t, `s32\[16,64\]\S* iota`, res.Module)
			case strings.Contains(tc.name, "an iota"):
				require.NotRegexp(t, `s32\[16,8\]\S* iota`, res.Module)
			}
		})
	}
}
