package eval

import (
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/stretchr/testify/require"
)

// wide makes an s64/u64 array from integers, carried as bits as the
// evaluator carries them.
func wide(elem string, dims []int64, xs ...uint64) *Value {
	v := Array(elem, dims)
	for _, x := range xs {
		v.Data = append(v.Data, math.Float64frombits(x))
	}
	return v
}

func wideInts(v *Value) []uint64 {
	out := make([]uint64, len(v.Data))
	for i, x := range v.Data {
		out[i] = scalar.Bits(v.Shape.Elem, x)
	}
	return out
}

// TestEvalWideOrder: s64 and u64 elements are carried as bits, so every
// fast path that orders elements must compare them as integers. Sorts
// ordered them by the float value of their bits (found by FuzzPipeline:
// the chips sorted u64 keys above 2^63 right and the evaluator wrong).
func TestEvalWideOrder(t *testing.T) {
	const neg1 = math.MaxUint64 // s64 -1
	cases := []struct {
		name, src string
		in        *Value
		want      []uint64
	}{
		{"sort u64 ascending", `
cmp {
  a = u64[] parameter(0)
  b = u64[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  p = u64[4] parameter(0)
  ROOT s = u64[4] sort(p), dimensions={0}, to_apply=cmp
}`, wide("u64", []int64{4}, 1<<63, 5, math.MaxUint64, 0x7FF0000000000001), []uint64{5, 0x7FF0000000000001, 1 << 63, math.MaxUint64}},
		{"sort s64 descending", `
cmp {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY e {
  p = s64[4] parameter(0)
  ROOT s = s64[4] sort(p), dimensions={0}, to_apply=cmp
}`, wide("s64", []int64{4}, neg1, 3, 1<<63, 0x7FF8000000000000), []uint64{0x7FF8000000000000, 3, neg1, 1 << 63}},
		{"topk u64", `
ENTRY e {
  p = u64[4] parameter(0)
  t = (u64[2], s32[2]) topk(p), k=2, largest=true
  ROOT v = u64[2] get-tuple-element(t), index=0
}`, wide("u64", []int64{4}, 7, 1<<63, 9, 1<<62), []uint64{1 << 63, 1 << 62}},
		{"select-and-scatter s64 picks the largest", `
ge {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
add {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT r = s64[] add(a, b)
}
ENTRY e {
  p = s64[4] parameter(0)
  src = s64[2] constant({10, 20})
  zero = s64[] constant(0)
  ROOT s = s64[4] select-and-scatter(p, src, zero), window={size=2 stride=2}, select=ge, scatter=add
}`, wide("s64", []int64{4}, neg1, 1, 0x7FF8000000000000, 2), []uint64{0, 10, 20, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, wideInts(evalText(t, c.src, c.in)))
		})
	}
}
