package legalize_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/lowering/legalize"
)

// TestGatherIndexRewrites: the index-array rewrites the lowering relies
// on change no value: narrow indices widened (out of range included) and
// index vectors along an inner dimension moved last, for gathers and
// scatters.
func TestGatherIndexRewrites(t *testing.T) {
	const add = `add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
`
	cases := map[string]struct {
		text   string
		expand func(*hlo.Module) error
	}{
		"u8 gather indices": {`HloModule g
ENTRY e {
  x = f32[10,4] parameter(0)
  i = u8[3,1] constant({{2}, {9}, {200}})
  ROOT g = f32[3,4] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
}`, legalize.WidenNarrowIndices},
		"s16 scatter indices": {"HloModule s\n" + add + `ENTRY e {
  x = f32[10,4] parameter(0)
  i = s16[3,1] constant({{2}, {-1}, {9}})
  u = f32[3,4] parameter(1)
  ROOT s = f32[10,4] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}`, legalize.WidenNarrowIndices},
		"gather index vectors inside": {`HloModule g
ENTRY e {
  t = f32[6,16] parameter(0)
  i = s32[3,2,4] parameter(1)
  ROOT g = f32[3,4,8] gather(t, i), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,8}
}`, legalize.IndexVectorsLast},
		"scatter index vectors inside": {"HloModule s\n" + add + `ENTRY e {
  t = f32[6,16] parameter(0)
  i = s32[3,2,4] parameter(1)
  u = f32[3,4,8] parameter(2)
  ROOT s = f32[6,16] scatter(t, i, u), update_window_dims={2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=add
}`, legalize.IndexVectorsLast},
		"scatter without updates": {"HloModule s\n" + add + `ENTRY e {
  x = f32[3] parameter(0)
  i = s32[0] parameter(1)
  u = f32[0] parameter(2)
  ROOT s = f32[3] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}`, legalize.TrivialGathersScatters},
		"gather from a scalar": {`HloModule g
ENTRY e {
  x = f32[] parameter(0)
  i = s32[0] parameter(1)
  ROOT g = f32[] gather(x, i), offset_dims={}, collapsed_slice_dims={}, start_index_map={}, index_vector_dim=0, slice_sizes={}
}`, legalize.TrivialGathersScatters},
		"gather of empty index vectors, batched": {`HloModule g
ENTRY e {
  x = f32[5,6] parameter(0)
  i = s32[4,0] parameter(1)
  ROOT g = f32[4,2,3] gather(x, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={}, index_vector_dim=1, slice_sizes={2,3}
}`, legalize.TrivialGathersScatters},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) { evaltest.CheckExpanded(t, name, c.text, c.expand) })
	}
}
