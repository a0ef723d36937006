package expand_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestRaggedAllToAllOneDevice: on one device every update goes to the
// device itself: rows input[io : io+size] land at output[oo :], in order,
// the other rows keeping the output operand's values (hand-computed).
func TestRaggedAllToAllOneDevice(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []float64
	}{
		{"one update", `HloModule r
ENTRY e {
  input = f32[4] constant({1, 2, 3, 4})
  output = f32[4] constant({-1, -2, -3, -4})
  io = s32[1] constant({1})
  ss = s32[1] constant({2})
  oo = s32[1] constant({0})
  rs = s32[1] constant({2})
  ROOT r = f32[4] ragged-all-to-all(input, output, io, ss, oo, rs), replica_groups={{0},{1}}
}`, []float64{2, 3, -3, -4}},
		{"two updates, rows of 2, larger output", `HloModule r
ENTRY e {
  input = f32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  output = f32[5,2] constant({{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}})
  io = s64[2] constant({2, 0})
  ss = s64[2] constant({1, 2})
  oo = s64[2] constant({0, 3})
  rs = s64[2] constant({1, 2})
  ROOT r = f32[5,2] ragged-all-to-all(input, output, io, ss, oo, rs)
}`, []float64{5, 6, 0, 0, 0, 0, 1, 2, 3, 4}},
		{"empty update", `HloModule r, num_partitions=1
ENTRY e {
  input = s32[2] constant({7, 8})
  output = s32[2] constant({1, 1})
  z = s32[1] constant({0})
  ROOT r = s32[2] ragged-all-to-all(input, output, z, z, z, z), replica_groups={{0}}
}`, []float64{1, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := hlo.Parse("r.hlo", c.src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("r.hlo", m))
			out, err := (&eval.Evaluator{File: "r.hlo", M: m}).Run(nil)
			require.NoError(t, err)
			require.Equal(t, c.want, out.Data)
		})
	}
	// Groups of several devices are another device's business.
	m, err := hlo.Parse("r.hlo", `HloModule r
ENTRY e {
  input = f32[4] parameter(0)
  output = f32[4] parameter(1)
  o = s32[2] parameter(2)
  ROOT r = f32[4] ragged-all-to-all(input, output, o, o, o, o), replica_groups={{0,1}}
}`)
	require.NoError(t, err)
	args, err := eval.RandomArgs(m, 1)
	require.NoError(t, err)
	_, err = (&eval.Evaluator{File: "r.hlo", M: m}).Run(args)
	require.ErrorContains(t, err, "r.hlo:6:3: r: ragged-all-to-all: a collective across 2 devices cannot be evaluated on one host device")
}
