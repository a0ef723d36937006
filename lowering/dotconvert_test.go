package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDotOperandConverts: an f16 dot (which the chip multiplies as f32,
// as XLA's float normalization has it on a TPU) is one kernel that loads
// its f16 tiles and converts them on the vector unit on the way to the
// MXU, as XLA fuses the conversion into the dot's convolution fusion: no
// convert kernels, no f32 copies in HBM, the evaluator's values. A
// transposed rhs converts too; a transposed lhs falls back to kernels of
// its own for the conversions.
func TestDotOperandConverts(t *testing.T) {
	for _, c := range []struct {
		name, dims, out, epi string
		fused                bool
	}{
		{"x.W", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "f16[200,136]", "", true},
		{"x.W^T", "lhs_contracting_dims={1}, rhs_contracting_dims={1}", "f16[200,136]", "", true},
		{"bias fused", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "f32[200,136]", "bias", true},
		{"X^T.W: lhs converted by a kernel", "lhs_contracting_dims={0}, rhs_contracting_dims={0}", "f16[200,136]", "", false},
	} {
		for _, chip := range []string{"tpuv4core", "tpuv4"} {
			t.Run(fmt.Sprintf("%s/%s", chip, c.name), func(t *testing.T) {
				a, b := "f16[200,160]", "f16[160,136]"
				if strings.Contains(c.dims, "rhs_contracting_dims={1}") {
					b = "f16[136,160]"
				}
				if strings.Contains(c.dims, "lhs_contracting_dims={0}") {
					a = "f16[160,200]"
				}
				root := fmt.Sprintf("ROOT d = %s dot(a, b), %s", c.out, c.dims)
				params := ""
				if c.epi != "" {
					params = "\n  c = f32[200,136] parameter(2)"
					root = fmt.Sprintf("d = f32[200,136] dot(a, b), %s\n  ROOT r = f32[200,136] add(d, c)", c.dims)
				}
				src := fmt.Sprintf("HloModule m\nENTRY e {\n  a = %s parameter(0)\n  b = %s parameter(1)%s\n  %s\n}\n", a, b, params, root)
				comp := compileFor(t, chip, src)
				if c.fused {
					require.Len(t, comp.Kernels, 1, comp.Asm)
					require.Contains(t, comp.Asm, "vcvt    sram")
					require.Contains(t, comp.Asm, ":f16[")
				} else {
					require.Greater(t, len(comp.Kernels), 1)
				}
				runChecked(t, chip, src)
			})
		}
	}
}
