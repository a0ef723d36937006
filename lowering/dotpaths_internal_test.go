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

// The plan's pieces, each without simulating: parts, loop order, engine
// pools and pieces, and the semaphores of the buffer sets.
func TestDotPlanPieces(t *testing.T) {
	// Parts: 4 MXUs over 64 columns split the rows; over 512 they take
	// a column tile each.
	require.Equal(t, []dotPart{{0, 128, 0, 64}, {128, 128, 0, 64}, {256, 128, 0, 64}, {384, 128, 0, 64}}, dotParts(512, 0, 64, 128, 1, 4))
	require.Equal(t, []dotPart{{0, 512, 0, 128}, {0, 512, 128, 128}, {0, 512, 256, 128}, {0, 512, 384, 128}}, dotParts(512, 0, 512, 128, 4, 1))
	require.Equal(t, []dotPart{{0, 16, 0, 16}, {16, 4, 0, 16}}, dotParts(20, 0, 16, 128, 1, 2), "parts of whole multiples of 8 rows, the rest last")

	// Loop order: teach16's canonical 1024x512x1024 in 16-column groups
	// re-reads a 1 MiB-row panel 64 times; kept, it reads it once.
	require.True(t, residentTraffic(1024, 512, 1024, 16, 1024, 1024))
	require.False(t, residentTraffic(1024, 512, 512, 512, 1024, 1024), "one column group: nothing to save")
	require.False(t, residentTraffic(4096, 4096, 1024, 512, 1024, 64), "blocks so short the rhs re-reads cost more")

	// Engines: dma0 alone unless capped; pieces of 32 KiB at least, and
	// never for several MXUs (they share one piece's tokens); as many
	// pieces as splitRows makes (128 rows in 14 are 13 of 10).
	require.Equal(t, []int{0}, dmaPool(3, 1, 2), "three engines: the epilogue has two")
	require.Equal(t, []int{0, 3}, dmaPool(4, 1, 2))
	require.Equal(t, []int{0, 3, 4, 5}, dmaPool(6, 1, 2))
	require.Equal(t, int64(8), dmaPieces(1024, 256, 1, 14), "256 KiB in eight pieces")
	require.Equal(t, int64(13), dmaPieces(128, 64<<10, 1, 14), "128 rows: 13 pieces of 10 rows, not 14")
	require.Len(t, splitRows(128, dmaPieces(128, 64<<10, 1, 14)), 13)
	require.Equal(t, int64(1), dmaPieces(1024, 256, 2, 14))
	require.Equal(t, int64(1), dmaPieces(1024, 256, 1, 1))
	require.Equal(t, [][2]int64{{0, 3}, {3, 3}, {6, 1}}, splitRows(7, 3))

	// Semaphores: every set its own, none of the reserved ones, none twice.
	for _, tc := range []struct{ sets, nM int }{{3, 4}, {6, 1}, {3, 1}} {
		s, ok := allocDotSems(tc.sets, tc.nM)
		require.True(t, ok)
		seen := map[int]bool{}
		for st := range tc.sets {
			ids := append([]int{s.Panel(st), s.Staged(st)}, s.rhs[st]...)
			for _, id := range ids {
				require.False(t, seen[id], "s%d twice", id)
				require.NotContains(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 13, 14, 15, 30, 31}, id)
				seen[id] = true
			}
		}
	}
	_, ok := allocDotSems(6, 4)
	require.False(t, ok, "six sets of four MXUs need 36 semaphores")
}
