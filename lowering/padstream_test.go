package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPadStream: a pad of 256 KiB or more streams its result in tiles
// (padstream.go): values as the evaluator's with no race, and its HBM
// traffic its operand read once and its result written once, where
// filling the result first wrote the interior twice.
func TestPadStream(t *testing.T) {
	cases := []struct {
		name, x, out, padding string
		elem                  int64
	}{
		{"nchw 3x3 border", "f32[4,16,64,64]", "f32[4,16,66,66]", "0_0x0_0x1_1x1_1", 4},
		{"asymmetric, one dim", "f32[8,24,40,40]", "f32[8,24,43,40]", "0_0x0_0x1_2x0_0", 4},
		{"leading dim too (a flattened grid)", "f32[6,32,32,64]", "f32[7,34,34,64]", "0_1x1_1x1_1x0_0", 4},
		{"bf16 rows", "bf16[512,300]", "bf16[512,310]", "0_0x3_7", 2},
	}
	for _, c := range cases {
		for _, chip := range chips {
			t.Run(c.name+"/"+chip, func(t *testing.T) {
				elem := strings.SplitN(c.x, "[", 2)[0]
				src := fmt.Sprintf("HloModule m\n\nENTRY e {\n  x = %s parameter(0)\n  z = %s[] constant(0)\n  ROOT p = %s pad(x, z), padding=%s\n}\n", c.x, elem, c.out, c.padding)
				x, r := compileRunChecked(t, chip, nil, src)
				if chip == "teach16" && c.name == "leading dim too (a flattened grid)" {
					// Its rows (34x34x64 floats) are more than a sixth of
					// teach16's SRAM: filled and copied.
					require.NotContains(t, x.Compiled.Asm, "_pad:")
					return
				}
				require.Contains(t, x.Compiled.Asm, "_pad:", "the pad streams its tiles")
				in, out := elems(t, c.x)*c.elem, elems(t, c.out)*c.elem
				require.Equal(t, in, r.Report.HBM.BytesRead, "the operand read once")
				require.Equal(t, out, r.Report.HBM.BytesWritten, "the result written once")
			})
		}
	}
}

// elems counts the elements of a shape written as "t[d0,d1,...]".
func elems(t *testing.T, shape string) int64 {
	dims := strings.TrimSuffix(strings.SplitN(shape, "[", 2)[1], "]")
	n := int64(1)
	for _, d := range strings.Split(dims, ",") {
		n *= int64(atoi(t, d))
	}
	return n
}
