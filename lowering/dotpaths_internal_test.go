package lowering

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"

	"github.com/stretchr/testify/require"
)

// The operand paths follow the operands' contiguous dims, with no
// simulation: an operand is read in its own rows, and the MXU (rhs) or the
// XLU (lhs) transposes what the dot needs the other way.
func TestChooseOperandPaths(t *testing.T) {
	view := func(nRow, nCol, sRow, sCol int64) dotView {
		return dotView{nRow: nRow, nCol: nCol, sRow: sRow, sCol: sCol}
	}
	for _, tc := range []struct {
		name string
		l, r dotView
		want operandPaths
	}{
		{"[M,K] x [K,N]", view(64, 32, 32, 1), view(32, 48, 48, 1), operandPaths{}},
		{"x . W^T: rhs [N,K]", view(64, 32, 32, 1), view(32, 48, 1, 32), operandPaths{rhsT: true}},
		{"X^T . dY: lhs [K,M]", view(64, 32, 1, 64), view(32, 48, 48, 1), operandPaths{lhsT: true}},
		{"both transposed", view(64, 32, 1, 64), view(32, 48, 1, 32), operandPaths{lhsT: true, rhsT: true}},
		{"Q K^T, heads interleaved: rows strided, K contiguous", view(40, 24, 3*24, 1), view(24, 36, 1, 3*24), operandPaths{rhsT: true}},
		{"GEMV: one row", view(1, 32, 0, 1), view(32, 48, 1, 32), operandPaths{rhsT: true}},
		{"one column: nothing to transpose", view(64, 32, 32, 1), view(32, 1, 1, 0), operandPaths{}},
		{"K = 1: an outer product", view(64, 1, 1, 0), view(1, 48, 0, 1), operandPaths{}},
		{"M = 1 lhs [K,1]", view(1, 32, 0, 1), view(32, 48, 48, 1), operandPaths{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, chooseOperandPaths(tc.l, tc.r))
		})
	}
}

// An f32 dot's bf16 passes follow its algorithm, else the more precise of
// its operands' precisions, as XLA's TPU backend makes them.
func TestDotPasses(t *testing.T) {
	for _, tc := range []struct {
		attrs string
		want  int
	}{
		{"", 1},
		{", operand_precision={default,default}", 1},
		{", operand_precision={HIGH,HIGH}", 3},
		{", operand_precision={highest,high}", 6},
		{", operand_precision={high,default}", 3},
		{", algorithm=dot_bf16_bf16_f32_x6", 6},
		{", algorithm=dot_bf16_bf16_f32_x3", 3},
		{", algorithm=dot_bf16_bf16_f32", 1},
		{", algorithm=dot_f32_f32_f32", 0},
	} {
		src := "HloModule m\nENTRY e {\n  a = f32[4,4] parameter(0)\n  ROOT d = f32[4,4] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}" + tc.attrs + "\n}\n"
		m, err := hlo.Parse("p.hlo", src)
		require.NoError(t, err, tc.attrs)
		require.Equal(t, tc.want, dotPasses(m.Entry.Root), tc.attrs)
	}
}
