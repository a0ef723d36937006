package expand_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// The expansion of rng-bit-generator gives the evaluator's bits and new
// state, for both algorithms and every output width (the counter starts
// just below 2^32, so its high word carries within the run).
func TestExpandRngBitGenerators(t *testing.T) {
	for _, alg := range []string{"rng_default", "rng_philox", "rng_three_fry"} {
		for _, out := range []string{"u32[5,7]", "u64[3]", "u8[9]", "s32[4,1]", "u16[2,3]", "s64[5]"} {
			for _, n := range []int64{2, 3} {
				t.Run(fmt.Sprintf("%s/%s/%d", alg, out, n), func(t *testing.T) {
					src := fmt.Sprintf(`ENTRY e {
  s = u64[%d] parameter(0)
  ROOT r = (u64[%d], %s) rng-bit-generator(s), algorithm=%s
}`, n, n, out, alg)
					state := eval.Array("u64", []int64{n}, math.Float64frombits(0x8012345600ABCDEF), math.Float64frombits(0xFFFFFFFE))
					if n == 3 {
						state.Data = append(state.Data, math.Float64frombits(77))
					}
					want := evaltest.Run(t, src, state)
					m, err := hlo.Parse("e.hlo", src)
					require.NoError(t, err)
					require.NoError(t, expand.ExpandRngBitGenerators(m))
					require.NoError(t, verify.Verify("e.hlo", m))
					require.NotContains(t, m.String(), "rng-bit-generator")
					got, err := (&eval.Evaluator{File: "e.hlo", M: m}).Run([]*eval.Value{state})
					require.NoError(t, err)
					for k, what := range []string{"state", "bits"} {
						w, g := want.Tuple[k], got.Tuple[k]
						require.Len(t, g.Data, len(w.Data))
						for i := range w.Data {
							require.Equal(t, scalar.Bits(w.Shape.Elem, w.Data[i]), scalar.Bits(g.Shape.Elem, g.Data[i]), "%s %d", what, i)
						}
					}
				})
			}
		}
	}
}
