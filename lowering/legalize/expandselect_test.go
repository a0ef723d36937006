package legalize_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// TestExpandSelectAndScatters: random select-and-scatters (ranks 1-3,
// windows overlapping or not, padded or not, max or min selectors, add,
// max or multiply scatters, float and integer types, inputs full of ties)
// expand into ops that give the evaluator's bits.
func TestExpandSelectAndScatters(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for i := range 300 {
		elem := []string{"f32", "f32", "s32", "bf16", "u8"}[r.IntN(5)]
		sel := []string{"GE", "LE", "GT", "LT"}[r.IntN(4)]
		scat := []string{"add", "add", "maximum", "multiply"}[r.IntN(4)]
		n := 1 + r.IntN(3)
		var D, S []int64
		var size, stride, pad []string
		for range n {
			d := int64(1 + r.IntN(7))
			k, st, lo, hi := int64(1+r.IntN(3)), int64(1+r.IntN(3)), int64(r.IntN(3)), int64(r.IntN(3))
			if k > d+lo+hi {
				k = d + lo + hi
			}
			D = append(D, d)
			S = append(S, (d+lo+hi-k)/st+1)
			size = append(size, fmt.Sprint(k))
			stride = append(stride, fmt.Sprint(st))
			pad = append(pad, fmt.Sprintf("%d_%d", lo, hi))
		}
		dims := func(v []int64) string {
			s := make([]string, len(v))
			for i, x := range v {
				s[i] = fmt.Sprint(x)
			}
			return strings.Join(s, ",")
		}
		text := fmt.Sprintf(`HloModule m
sel {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=%[2]s
}
scat {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT r = %[1]s[] %[3]s(a, b)
}
ENTRY e {
  x = %[1]s[%[4]s] parameter(0)
  s = %[1]s[%[5]s] parameter(1)
  i = %[1]s[] constant(1)
  ROOT o = %[1]s[%[4]s] select-and-scatter(x, s, i), window={size=%[6]s stride=%[7]s pad=%[8]s}, select=sel, scatter=scat
}`, elem, sel, scat, dims(D), dims(S), strings.Join(size, "x"), strings.Join(stride, "x"), strings.Join(pad, "x"))
		name := fmt.Sprintf("case %d", i)
		m, err := hlo.Parse(name, text)
		require.NoError(t, err, text)
		require.NoError(t, verify.Verify(name, m), text)
		// Few distinct values: windows hold ties, which the first
		// position must win as in the evaluator.
		x := eval.Array(elem, D)
		for range hlo.Prod(D) {
			x.Data = append(x.Data, float64(r.IntN(4)))
		}
		// f32 sources round when summed: the order they are combined
		// in shows in the bits.
		s := eval.Array(elem, S)
		for range hlo.Prod(S) {
			v := float64(1 + r.IntN(3))
			if elem == "f32" {
				v = float64(float32(v + r.Float64()))
			}
			s.Data = append(s.Data, v)
		}
		evaltest.RequireExpandsToSameBits(t, name+"\n"+text, m, []*eval.Value{x, s}, legalize.ExpandSelectAndScatters, "select-and-scatter")
	}
}

func TestExpandSelectAndScatterRefusals(t *testing.T) {
	m, err := hlo.Parse("m.hlo", `HloModule m
sel {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  s = f32[2] parameter(1)
  z = f32[] constant(0)
  ROOT o = f32[4] select-and-scatter(x, s, z), window={size=2 stride=2}, select=sel, scatter=add
}`)
	require.NoError(t, err)
	err = legalize.ExpandSelectAndScatters(m)
	require.ErrorContains(t, err, "the select computation sel does not return pred")
}
