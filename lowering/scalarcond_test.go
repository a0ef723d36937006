package lowering_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScalarLoopCondition: a while loop whose condition is an integer
// expression of its state's scalars runs it on the sequencer, with no
// kernel for it (an s32 counter against a bound, a u32 one compared
// unsigned past 2^31, a pred and a select); one that reduces an array
// keeps its kernel. The values are the evaluator's, races watched.
func TestScalarLoopCondition(t *testing.T) {
	const loop = `HloModule m
cond {
  p = (%[1]s[], f32[8], %[1]s[]) parameter(0)
  i = %[1]s[] get-tuple-element(p), index=0
  n = %[1]s[] get-tuple-element(p), index=2
  %[2]s
}
body {
  p = (%[1]s[], f32[8], %[1]s[]) parameter(0)
  i = %[1]s[] get-tuple-element(p), index=0
  x = f32[8] get-tuple-element(p), index=1
  n = %[1]s[] get-tuple-element(p), index=2
  one = %[1]s[] constant(1)
  j = %[1]s[] add(i, one)
  y = f32[8] multiply(x, x)
  ROOT r = (%[1]s[], f32[8], %[1]s[]) tuple(j, y, n)
}
ENTRY e {
  x = f32[8] parameter(0)
  z = %[1]s[] constant(%[3]s)
  n = %[1]s[] constant(%[4]s)
  t = (%[1]s[], f32[8], %[1]s[]) tuple(z, x, n)
  ROOT w = (%[1]s[], f32[8], %[1]s[]) while(t), condition=cond, body=body
}`
	sum := `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], f32[8]) parameter(0)
  x = f32[8] get-tuple-element(p), index=1
  z = f32[] constant(0)
  s = f32[] reduce(x, z), dimensions={0}, to_apply=add
  k = f32[] constant(1000)
  ROOT lt = pred[] compare(s, k), direction=LT
}
body {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[8] get-tuple-element(p), index=1
  two = f32[] constant(2)
  tb = f32[8] broadcast(two), dimensions={}
  y = f32[8] add(x, tb)
  ROOT r = (s32[], f32[8]) tuple(i, y)
}
ENTRY e {
  x = f32[8] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[8]) tuple(z, x)
  ROOT w = (s32[], f32[8]) while(t), condition=cond, body=body
}`
	for _, tc := range []struct {
		name, src string
		scalar    bool
	}{
		{"s32 counter", fmtLoop(loop, "s32", "ROOT lt = pred[] compare(i, n), direction=LT", "0", "3"), true},
		{"u32 counter past 2^31", fmtLoop(loop, "u32", "ROOT lt = pred[] compare(i, n), direction=LT", "2147483646", "2147483649"), true},
		{"a select of compares", fmtLoop(loop, "s32", `m = s32[] constant(-1)
  neg = pred[] compare(n, m), direction=LE
  c1 = pred[] compare(i, n), direction=LT
  f = pred[] constant(false)
  ROOT s = pred[] select(neg, f, c1)`, "1", "4"), true},
		{"a reduction", sum, false},
	} {
		for _, chip := range chips {
			t.Run(tc.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, tc.src)
				cond := false
				for _, k := range x.Compiled.Kernels {
					cond = cond || strings.Contains(k.Name, "/cond/")
				}
				require.Equal(t, !tc.scalar, cond, "a kernel for the condition")
			})
		}
	}
}

func fmtLoop(loop, elem, cond, from, to string) string {
	return strings.NewReplacer("%[1]s", elem, "%[2]s", cond, "%[3]s", from, "%[4]s", to).Replace(loop)
}
