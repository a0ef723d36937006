package lowering_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestColumnReductionChunks: a column reduction (a sum over the rows of
// [rows, k], k kept) whose kept elements no chunk width divides (BERT's
// vocabulary of 30,522 = 2 x 3 x 5,087; GPT-2's 50,257 is prime) streams
// in its own order, the last chunk overlapping the one before it, rather
// than through a transposed view an element a burst: values as the
// evaluator's, with no race, whether the result is an entry output or
// read by a later kernel, on a small SRAM and a large one.
func TestColumnReductionChunks(t *testing.T) {
	for _, k := range []int64{1021, 30522, 50257} {
		src := fmt.Sprintf(`HloModule colsum
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[24,%[1]d] parameter(0)
  v = f32[24] parameter(1)
  vb = f32[24,%[1]d] broadcast(v), dimensions={0}
  p = f32[24,%[1]d] multiply(x, vb)
  z = f32[] constant(0)
  s = f32[%[1]d] reduce(p, z), dimensions={0}, to_apply=add
  ROOT n = f32[%[1]d] negate(s)
}
`, k)
		for _, chip := range []string{"teach16", "tpuv4core"} {
			t.Run(fmt.Sprintf("%d/%s", k, chip), func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, src)
				require.NotContains(t, x.Compiled.Asm, fmt.Sprintf("{1,%d}", k), "no transposed view of the input")
			})
		}
	}
}
