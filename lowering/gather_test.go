package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGatherScatterKernels: windowed gathers (clamped starts) and scatters
// (windows that do not fit skipped, repeated indices combined in order)
// against the evaluator. Random integer inputs are 0..7, so indices into
// dims shorter than 8 fall out of range.
func TestGatherScatterKernels(t *testing.T) {
	const combiners = `HloModule g
assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
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
	cases := map[string]string{
		"embedding rows, implicit index vector": `ENTRY e {
  t = f32[6,16] parameter(0)
  i = u32[37] parameter(1)
  ROOT g = f32[37,16] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}
}`,
		"s64 index vectors of one entry, batch dims 2-D": `ENTRY e {
  t = f32[8,3,4] parameter(0)
  i = s64[5,2,1] parameter(1)
  ROOT g = f32[5,2,3,4] gather(t, i), offset_dims={2,3}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,3,4}
}`,
		"elements at two-entry starts": `ENTRY e {
  t = f32[5,7] parameter(0)
  i = s32[9,2] parameter(1)
  ROOT g = f32[9] gather(t, i), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1}
}`,
		"partial windows, index on the inner dim": `ENTRY e {
  t = f32[8,10] parameter(0)
  i = s32[4,1] parameter(1)
  ROOT g = f32[4,2,5] gather(t, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={1}, index_vector_dim=1, slice_sizes={2,5}
}`,
		"computed indices below and above range": `ENTRY e {
  t = f32[30,8] parameter(0)
  i = s32[20] iota(), iota_dimension=0
  three = s32[] constant(3)
  b3 = s32[20] broadcast(three), dimensions={}
  m = s32[20] multiply(i, b3)
  twenty = s32[] constant(20)
  b20 = s32[20] broadcast(twenty), dimensions={}
  o = s32[20] subtract(m, b20)
  ROOT g = f32[20,8] gather(t, o), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}
}`,
		"scatter assign, one window (a KV-cache update)": `ENTRY e {
  c = f32[8,4,6] parameter(0)
  i = s32[1] parameter(1)
  u = f32[1,4,6] parameter(2)
  ROOT s = f32[8,4,6] scatter(c, i, u), update_window_dims={1,2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
}`,
		"scatter assign, repeated and skipped indices": `ENTRY e {
  c = f32[4,8] parameter(0)
  i = s32[30] parameter(1)
  u = f32[30,8] parameter(2)
  ROOT s = f32[4,8] scatter(c, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
}`,
		"scatter assign, unique indices (on the engines in turn), one skipped": `ENTRY e {
  c = f32[9,8] parameter(0)
  i = s32[6,1] constant({{3},{0},{6},{1},{12},{8}})
  u = f32[6,8] parameter(1)
  ROOT s = f32[9,8] scatter(c, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=false, unique_indices=true, to_apply=assign
}`,
		"scatter add, repeated and skipped indices (an embedding gradient)": `ENTRY e {
  c = f32[5,16] parameter(0)
  i = s64[40,1] parameter(1)
  u = f32[40,16] parameter(2)
  ROOT s = f32[5,16] scatter(c, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}`,
		"scatter maximum of elements": `ENTRY e {
  c = f32[6,6] parameter(0)
  i = s32[10,2] parameter(1)
  u = f32[10] parameter(2)
  ROOT s = f32[6,6] scatter(c, i, u), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=max
}`,
	}
	for name, entry := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, combiners+entry+"\n") })
		}
	}
}

// TestIndexVectorsInside: index vectors along an inner dimension of the
// index array (index_vector_dim between batch dims, once refused as
// "batch dims not one strided run") are moved last (legalize.IndexVectorsLast),
// for gathers and scatters, on both chips against the evaluator.
func TestIndexVectorsInside(t *testing.T) {
	for _, src := range []string{`HloModule g
ENTRY e {
  t = f32[6,16] parameter(0)
  i = s32[3,2,4] parameter(1)
  ROOT g = f32[3,4,8] gather(t, i), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,8}
}
`, `HloModule s
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  t = f32[6,16] parameter(0)
  i = s32[3,2,4] parameter(1)
  u = f32[3,4,8] parameter(2)
  ROOT s = f32[6,16] scatter(t, i, u), update_window_dims={2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=add
}
`} {
		for _, chip := range chips {
			runChecked(t, chip, src)
		}
	}
}

// TestVariadicScatterRefusal: a variadic scatter whose combiner mixes its
// operands (an argmax) is not split, and the lowering names it.
func TestVariadicScatterRefusal(t *testing.T) {
	const src = `argmax {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  g = pred[] compare(b0, a0), direction=GT
  v = f32[] select(g, b0, a0)
  i = s32[] select(g, b1, a1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[8] parameter(0)
  y = s32[8] parameter(1)
  i = s32[20,1] parameter(2)
  u = f32[20] parameter(3)
  v = s32[20] parameter(4)
  ROOT s = (f32[8], s32[8]) scatter(x, y, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=argmax
}
`
	_, err := compileErr(t, "teach16", src)
	require.ErrorContains(t, err, "variadic scatters are not lowered yet")
}

// TestNarrowIndices: gathers and scatters with 8- and 16-bit indices
// (legalize.WidenNarrowIndices) on both chips against the evaluator, indices
// out of range included (a gather clamps them, a scatter skips them).
func TestNarrowIndices(t *testing.T) {
	for _, src := range []string{`HloModule m
ENTRY e {
  x = f32[10,4] parameter(0)
  i = u8[3,1] constant({{2}, {9}, {200}})
  ROOT g = f32[3,4] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
}`, `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[10,4] parameter(0)
  i = s16[3,1] constant({{2}, {-1}, {9}})
  u = f32[3,4] parameter(1)
  ROOT s = f32[10,4] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}`} {
		for _, chip := range chips {
			runChecked(t, chip, src)
		}
	}
}

// TestTrivialGathersScatters: a scatter without updates is its operand, a
// gather of index vectors of no entries is the operand's window at the
// origin (legalize.TrivialGathersScatters; XLA's scatter_test EmptyIndices and
// gather_operation_test GatherFromScalar), on both chips.
func TestTrivialGathersScatters(t *testing.T) {
	for _, src := range []string{`HloModule s
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[3] parameter(0)
  i = s32[0] parameter(1)
  u = s32[0] parameter(2)
  ROOT s = s32[3] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}`, `HloModule g
ENTRY e {
  x = f32[] parameter(0)
  i = s32[0] parameter(1)
  ROOT g = f32[] gather(x, i), offset_dims={}, collapsed_slice_dims={}, start_index_map={}, index_vector_dim=0, slice_sizes={}
}`, `HloModule g
ENTRY e {
  x = f32[5,6] parameter(0)
  i = s32[4,0] parameter(1)
  ROOT g = f32[4,2,3] gather(x, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={}, index_vector_dim=1, slice_sizes={2,3}
}`} {
		for _, chip := range chips {
			runChecked(t, chip, src)
		}
	}
}
