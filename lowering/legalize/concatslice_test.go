package legalize_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// FoldConcatSlices: a slice that takes one operand of a concatenate along
// its dimension reads that operand (a window of it in the other dims; the
// operand itself when it takes all of it, its readers then reading the
// operand); a slice across two operands or strided along the dimension
// stays; a concatenate nothing reads goes. Values unchanged.
func TestFoldConcatSlices(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		concat     bool // a concatenate is left
		slices     int  // slices left
	}{
		{"complex parts", `
  a = f32[16,129] parameter(0)
  b = f32[16,129] parameter(1)
  ra = f32[16,129,1] reshape(a)
  rb = f32[16,129,1] reshape(b)
  c = f32[16,129,2] concatenate(ra, rb), dimensions={2}
  s0 = f32[16,129,1] slice(c), slice={[0:16], [0:129], [0:1]}
  s1 = f32[16,129,1] slice(c), slice={[0:16], [0:129], [1:2]}
  ROOT o = f32[16,129,1] subtract(s0, s1)`, false, 0},
		{"a window of one part", `
  a = f32[8,3] parameter(0)
  b = f32[8,5] parameter(1)
  c = f32[8,8] concatenate(a, b), dimensions={1}
  ROOT s = f32[4,5] slice(c), slice={[2:6], [3:8]}`, false, 1},
		{"across two parts", `
  a = f32[8,3] parameter(0)
  b = f32[8,5] parameter(1)
  c = f32[8,8] concatenate(a, b), dimensions={1}
  ROOT s = f32[8,4] slice(c), slice={[0:8], [2:6]}`, true, 1},
		{"strided along the dimension", `
  a = f32[8,4] parameter(0)
  b = f32[8,4] parameter(1)
  c = f32[8,8] concatenate(a, b), dimensions={1}
  ROOT s = f32[8,2] slice(c), slice={[0:8], [4:8:2]}`, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := runPass(t, tc.body, legalize.FoldConcatSlices)
			text := p.x.String()
			require.Equal(t, tc.concat, strings.Contains(text, "concatenate("), text)
			require.Equal(t, tc.slices, strings.Count(text, " slice("), text)
			p.sameValues(t)
		})
	}
}
