package lowering_test

import "testing"

// TestNormalizedGatherScatterOnChips: gathers and scatters with batching
// dims, and with offset or window dims that are not trailing
// (legalize.NormalizeGathers, legalize.NormalizeScatters), give the evaluator's
// results.
func TestNormalizedGatherScatterOnChips(t *testing.T) {
	const add = `add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
`
	cases := []struct{ name, src string }{
		{"gather with batching dims", `ENTRY e {
  x = f32[4,10,3] parameter(0)
  i = s32[4,5,1] parameter(1)
  ROOT g = f32[4,5,3] gather(x, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,3}
}`},
		{"gather with batching dims and an implicit index vector", `ENTRY e {
  x = f32[4,10] parameter(0)
  i = s32[4,7] parameter(1)
  ROOT g = f32[4,7] gather(x, i), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}
}`},
		{"gather with leading offset dims", `ENTRY e {
  x = f32[10,6] parameter(0)
  i = s32[5,1] parameter(1)
  ROOT g = f32[6,5] gather(x, i), offset_dims={0}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
}`},
		{"scatter with batching dims", add + `ENTRY e {
  x = f32[4,10] parameter(0)
  i = s32[4,5,1] parameter(1)
  u = f32[4,5] parameter(2)
  ROOT s = f32[4,10] scatter(x, i, u), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=add
}`},
		{"variadic scatter, assignment", `assign2 {
  a0 = s32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = f32[] parameter(3)
  ROOT t = (s32[], f32[]) tuple(b0, b1)
}
ENTRY e {
  x = s32[6,3] parameter(0)
  y = f32[6,3] parameter(1)
  i = s32[4,1] parameter(2)
  u = s32[4,3] parameter(3)
  v = f32[4,3] parameter(4)
  ROOT s = (s32[6,3], f32[6,3]) scatter(x, y, i, u, v), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign2
}`},
		{"variadic scatter, a sum and a maximum", `combine {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  s = f32[] add(a0, b0)
  m = s32[] maximum(b1, a1)
  ROOT t = (f32[], s32[]) tuple(s, m)
}
ENTRY e {
  x = f32[8] parameter(0)
  y = s32[8] parameter(1)
  i = s32[20,1] parameter(2)
  u = f32[20] parameter(3)
  v = s32[20] parameter(4)
  ROOT s = (f32[8], s32[8]) scatter(x, y, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
}`},
		{"scatter with leading window dims", add + `ENTRY e {
  x = f32[10,6] parameter(0)
  i = s32[5,1] parameter(1)
  u = f32[6,5] parameter(2)
  ROOT s = f32[10,6] scatter(x, i, u), update_window_dims={0}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}`},
	}
	for _, c := range cases {
		for _, chip := range chips {
			t.Run(c.name+"/"+chip, func(t *testing.T) { runChecked(t, chip, c.src) })
		}
	}
}
