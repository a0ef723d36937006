package lowering_test

import (
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// TestRaggedDotsOnChips: the grouped matmuls of mixtures of experts
// (expand.ExpandRaggedDots), the three modes, bf16 and f32, on both chips
// against the evaluator, with group sizes that leave rows out, skip a
// group and overrun the extent.
func TestRaggedDotsOnChips(t *testing.T) {
	cases := []struct {
		name, src string
		sizes     []float64
	}{
		{"mode 1, MoE experts, bf16 to f32", `HloModule m
ENTRY e {
  x = bf16[40,24] parameter(0)
  w = bf16[4,24,16] parameter(1)
  g = s32[4] parameter(2)
  ROOT d = f32[40,16] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}`, []float64{10, 0, 17, 9}},
		{"mode 1 with a batch dim", `HloModule m
ENTRY e {
  x = f32[2,19,8] parameter(0)
  w = f32[2,3,8,5] parameter(1)
  g = s32[3] parameter(2)
  ROOT d = f32[2,19,5] ragged-dot(x, w, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={1}
}`, []float64{4, 30, 2}},
		{"mode 1, groups per batch", `HloModule m
ENTRY e {
  x = f32[2,13,8] parameter(0)
  w = f32[3,2,8,5] parameter(1)
  g = s32[2,3] parameter(2)
  ROOT d = f32[2,13,5] ragged-dot(x, w, g), lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}
}`, []float64{4, 0, 6, 13, 2, 1}},
		{"mode 2, ragged contraction", `HloModule m
ENTRY e {
  x = f32[6,20] parameter(0)
  w = f32[20,7] parameter(1)
  g = s32[3] parameter(2)
  ROOT d = f32[3,6,7] ragged-dot(x, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
}`, []float64{5, -2, 11}},
		{"mode 3, ragged batch", `HloModule m
ENTRY e {
  x = f32[5,3,4] parameter(0)
  w = f32[5,4,6] parameter(1)
  g = s32[2] parameter(2)
  ROOT d = f32[5,3,6] ragged-dot(x, w, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
}`, []float64{1, 2}},
	}
	for _, c := range cases {
		for _, chip := range chips {
			t.Run(c.name+"/"+chip, func(t *testing.T) {
				m, err := hlo.Parse("r.hlo", c.src)
				require.NoError(t, err)
				require.NoError(t, verify.Verify("r.hlo", m))
				args, err := eval.RandomArgs(m, 2)
				require.NoError(t, err)
				args[2].Data = c.sizes
				cfg, err := config.Load(chip, nil)
				require.NoError(t, err)
				client := &runtime.Client{Chip: cfg}
				x, err := client.Compile("r.hlo", m)
				require.NoError(t, err)
				r, err := client.Execute(x, args, runtime.ExecOptions{})
				require.NoError(t, err)
				rep, err := check.Check(&eval.Evaluator{File: "r.hlo", M: m}, args, r.Outputs)
				require.NoError(t, err)
				for i, o := range rep.Outputs {
					require.True(t, o.Pass(), "output %d: %d elements differ, first [%d] got %v want %v", i, o.Diff.Mismatches, o.Diff.First, o.Diff.FirstGot, o.Diff.FirstWant)
				}
			})
		}
	}
}
