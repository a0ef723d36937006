package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestViewConcat: a concatenate of windows sliced from arrays (im2col's
// taps, stacked along a new dim of one), of transposed and reversed
// operands, reads them as views: one copy kernel after the arrays'
// producers; an operand that is computed keeps a kernel of its own. The
// values are the evaluator's, races watched.
func TestViewConcat(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		kernels   int
	}{
		{"windows stacked", `HloModule m
ENTRY e {
  x = f32[6,10] parameter(0)
  a = f32[4,8] slice(x), slice={[0:4], [0:8]}
  b = f32[4,8] slice(x), slice={[1:5], [1:9]}
  c = f32[4,8] slice(x), slice={[2:6], [2:10:1]}
  ra = f32[1,4,8] reshape(a)
  rb = f32[1,4,8] reshape(b)
  rc = f32[1,4,8] reshape(c)
  ROOT k = f32[3,4,8] concatenate(ra, rb, rc), dimensions={0}
}`, 1},
		{"strided, transposed and reversed", `HloModule m
ENTRY e {
  x = bf16[8,12] parameter(0)
  y = bf16[12,4] parameter(1)
  a = bf16[4,12] slice(x), slice={[0:8:2], [0:12]}
  t = bf16[4,12] transpose(y), dimensions={1,0}
  r = bf16[4,12] reverse(t), dimensions={1}
  ROOT k = bf16[12,12] concatenate(a, t, r), dimensions={0}
}`, 1},
		{"a computed operand", `HloModule m
ENTRY e {
  x = s32[4,16] parameter(0)
  a = s32[4,8] slice(x), slice={[0:4], [0:8]}
  b = s32[4,8] slice(x), slice={[0:4], [8:16]}
  n = s32[4,8] negate(b)
  ROOT k = s32[4,16] concatenate(a, n), dimensions={1}
}`, 2},
	} {
		for _, chip := range []string{"teach16", "tpuv4core", "trn1nc", "tpuv4"} {
			t.Run(tc.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, tc.src)
				require.Len(t, x.Compiled.Kernels, tc.kernels)
			})
		}
	}
}
