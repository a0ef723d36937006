package eval

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/stretchr/testify/require"
)

// TestEvalRaggedDot: the three modes against hand-computed results, with
// groups that stop short of the ragged extent, a negative size and sizes
// past it.
func TestEvalRaggedDot(t *testing.T) {
	seq := func(elem string, dims []int64, scale float64) *Value {
		v := Array(elem, dims)
		for i := range hlo.Prod(dims) {
			v.Data = append(v.Data, float64(i%7+1)*scale)
		}
		return v
	}
	sizes := func(xs ...float64) *Value { return Array("s32", []int64{int64(len(xs))}, xs...) }

	// Mode 1: lhs [5,2] rows cut into groups of 2 and 2 (row 4 past the
	// groups), rhs [2 groups, 2, 3].
	lhs := seq("f32", []int64{5, 2}, 1) // rows (1,2) (3,4) (5,6) (7,1) (2,3)
	rhs := seq("f32", []int64{2, 2, 3}, 1)
	// group 0 rhs [[1,2,3],[4,5,6]], group 1 [[7,1,2],[3,4,5]]
	mode1 := `ENTRY e {
  l = f32[5,2] parameter(0)
  r = f32[2,2,3] parameter(1)
  g = s32[2] parameter(2)
  ROOT d = f32[5,3] ragged-dot(l, r, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}`
	got := evalText(t, mode1, lhs, rhs, sizes(2, 2))
	require.Equal(t, []float64{
		1*1 + 2*4, 1*2 + 2*5, 1*3 + 2*6, // row 0, group 0
		3*1 + 4*4, 3*2 + 4*5, 3*3 + 4*6, // row 1, group 0
		5*7 + 6*3, 5*1 + 6*4, 5*2 + 6*5, // row 2, group 1
		7*7 + 1*3, 7*1 + 1*4, 7*2 + 1*5, // row 3, group 1
		0, 0, 0, // row 4: past the last group
	}, got.Data)
	// A negative size counts as 0; sizes past the extent stop at it.
	got = evalText(t, mode1, lhs, rhs, sizes(-3, 9))
	require.Equal(t, []float64{1*7 + 2*3, 1*1 + 2*4, 1*2 + 2*5}, got.Data[:3]) // row 0 in group 1
	require.Equal(t, []float64{2*7 + 3*3, 2*1 + 3*4, 2*2 + 3*5}, got.Data[12:])

	// Mode 2: the ragged dimension contracts; one result per group.
	// lhs [2,4] (k = 4 cut 1 + 3), rhs [4,1] = 1..4.
	l2 := seq("f32", []int64{2, 4}, 1) // (1,2,3,4) (5,6,7,1)
	r2 := seq("f32", []int64{4, 1}, 1) // 1,2,3,4
	got = evalText(t, `ENTRY e {
  l = f32[2,4] parameter(0)
  r = f32[4,1] parameter(1)
  g = s64[2] parameter(2)
  ROOT d = f32[2,2,1] ragged-dot(l, r, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
}`, l2, r2, wide("s64", []int64{2}, 1, 3))
	require.Equal(t, []float64{
		1 * 1, 5 * 1, // group 0: k = 0
		2*2 + 3*3 + 4*4, 6*2 + 7*3 + 1*4, // group 1: k = 1..3
	}, got.Data)

	// Mode 3: the ragged dimension is a batch dimension; batches past the
	// groups are zero.
	l3 := seq("f32", []int64{3, 1, 2}, 1) // (1,2) (3,4) (5,6)
	r3 := seq("f32", []int64{3, 2, 1}, 1) // (1,2) (3,4) (5,6)
	got = evalText(t, `ENTRY e {
  l = f32[3,1,2] parameter(0)
  r = f32[3,2,1] parameter(1)
  g = s32[1] parameter(2)
  ROOT d = f32[3,1,1] ragged-dot(l, r, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
}`, l3, r3, sizes(2))
	require.Equal(t, []float64{1*1 + 2*2, 3*3 + 4*4, 0}, got.Data)

	// Groups per batch (group_sizes [b, g]): batch 0 cuts its rows 1 + 2,
	// batch 1 gives all three to group 0.
	got = evalText(t, `ENTRY e {
  l = f32[2,3,1] parameter(0)
  r = f32[2,2,1,1] parameter(1)
  g = s32[2,2] parameter(2)
  ROOT d = f32[2,3,1] ragged-dot(l, r, g), lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}
}`, Array("f32", []int64{2, 3, 1}, 1, 2, 3, 4, 5, 6), Array("f32", []int64{2, 2, 1, 1}, 10, 20, 100, 200), Array("s32", []int64{2, 2}, 1, 2, 3, 0))
	require.Equal(t, []float64{1 * 10, 2 * 100, 3 * 100, 4 * 20, 5 * 20, 6 * 20}, got.Data)
}

func TestRaggedDotRefusals(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{`ENTRY e {
  l = f32[4,2] parameter(0)
  r = f32[2,2,3] parameter(1)
  g = s32[2,2] parameter(2)
  ROOT d = f32[4,3] ragged-dot(l, r, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}`, "want [g] (mode 1 has no dims to give groups per position)"},
		{`ENTRY e {
  l = f32[4,2] parameter(0)
  r = f32[2,3] parameter(1)
  g = s32[2] parameter(2)
  ROOT d = f32[4,3] ragged-dot(l, r, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={0}
}`, "rhs_group_dims is needed"},
	} {
		m, err := hlo.Parse("r.hlo", c.src)
		require.NoError(t, err)
		args, err := RandomArgs(m, 1)
		require.NoError(t, err)
		_, err = (&Evaluator{File: "r.hlo", M: m}).Run(args)
		require.ErrorContains(t, err, c.msg)
	}
}
