package expand_test

import (
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestCubSort: radix-sort calls sort each row stably, floats in their
// total order (-NaN < -inf < -0 < +0 < inf < NaN), ascending unless
// descending; values follow their keys; the scratch is zeros.
func TestCubSort(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name, src string
		want      [][]float64
	}{
		{"floats ascending", `HloModule s
ENTRY e {
  k = f32[2,5] constant({{3, -0, nan, 0, -inf}, {1, 1, -2, 7, 0}})
  v = s32[2,5] iota(), iota_dimension=1
  ROOT r = (f32[2,5], s32[2,5], u8[16]) custom-call(k, v), custom_call_target="__cub$DeviceRadixSort", backend_config="{\"descending\": false}"
}`, [][]float64{{math.Inf(-1), math.Copysign(0, -1), 0, 3, nan, -2, 0, 1, 1, 7}, {4, 1, 3, 0, 2, 2, 4, 0, 1, 3}, make([]float64, 16)}},
		{"ints descending, stable", `HloModule s
ENTRY e {
  k = s32[6] constant({5, -1, 5, 2, -1, 9})
  v = f32[6] constant({0, 1, 2, 3, 4, 5})
  ROOT r = (s32[6], f32[6], u8[0]) custom-call(k, v), custom_call_target="__cub$DeviceRadixSortUnassignedScratchSize", backend_config={descending: true}
}`, [][]float64{{9, 5, 5, 2, -1, -1}, {5, 0, 2, 3, 1, 4}, {}}},
		{"keys alone, no config", `HloModule s
ENTRY e {
  k = u8[4] constant({200, 3, 255, 0})
  ROOT r = (u8[4], u8[8]) custom-call(k), custom_call_target="__cub$DeviceRadixSort"
}`, [][]float64{{0, 3, 200, 255}, make([]float64, 8)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := hlo.Parse("s.hlo", c.src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("s.hlo", m))
			out, err := (&eval.Evaluator{File: "s.hlo", M: m}).Run(nil)
			require.NoError(t, err)
			require.Len(t, out.Tuple, len(c.want))
			for i, w := range c.want {
				got := out.Tuple[i].Data
				require.Len(t, got, len(w))
				for j := range w {
					if math.IsNaN(w[j]) {
						require.True(t, math.IsNaN(got[j]), "output %d element %d", i, j)
						continue
					}
					require.Equal(t, w[j], got[j], "output %d element %d", i, j)
					require.Equal(t, math.Signbit(w[j]), math.Signbit(got[j]), "output %d element %d sign", i, j)
				}
			}
		})
	}
}

// TestCubSortRefusals: malformed calls are positioned errors.
func TestCubSortRefusals(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{`(f32[4]) custom-call(k), custom_call_target="__cub$DeviceRadixSort"`, "returns them sorted and a scratch buffer"},
		{`(f32[4], u8[0]) custom-call(k), custom_call_target="__cub$DeviceRadixSort", backend_config="{descending: yes}"`, "backend_config is not SortOptions"},
		{`(s32[4], u8[0]) custom-call(k), custom_call_target="__cub$DeviceRadixSort"`, "a radix sort's operands are arrays of one shape"},
	} {
		m, err := hlo.Parse("s.hlo", "HloModule s\nENTRY e {\n  k = f32[4] parameter(0)\n  ROOT r = "+c.call+"\n}\n")
		require.NoError(t, err)
		err = expand.ExpandCubSorts(m)
		require.ErrorContains(t, err, "4:3: r: custom-call: ")
		require.ErrorContains(t, err, c.want)
	}
}
