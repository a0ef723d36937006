package lowering

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlanVPUDot: which dots run on the vector unit, over which merged
// dims of the matrix operand, and how the vector and the result walk
// them.
func TestPlanVPUDot(t *testing.T) {
	cases := []struct {
		name           string
		ls, rs         []int64
		lb, rb, lc, rc []int64
		ok             bool
		want           vpuDotPlan
	}{
		{name: "q.K^T: K's minor dim contracted, batch in the middle",
			ls: []int64{4, 32}, rs: []int64{64, 4, 32}, lb: []int64{0}, rb: []int64{1}, lc: []int64{1}, rc: []int64{2}, ok: true,
			want: vpuDotPlan{vecSide: 0, dims: []int64{64, 4, 32}, k: 2, vecStrides: []int64{0, 32, 1}, outStrides: []int64{1, 64, 0}}},
		{name: "p.V: the leading dim contracted",
			ls: []int64{4, 64}, rs: []int64{64, 4, 32}, lb: []int64{0}, rb: []int64{1}, lc: []int64{1}, rc: []int64{0}, ok: true,
			want: vpuDotPlan{vecSide: 0, dims: []int64{64, 4, 32}, k: 0, vecStrides: []int64{1, 64, 0}, outStrides: []int64{0, 32, 1}}},
		{name: "matrix times vector: dims of 1 dropped, free dims merged",
			ls: []int64{2, 1, 3, 8}, rs: []int64{8}, lc: []int64{3}, rc: []int64{0}, ok: true,
			want: vpuDotPlan{vecSide: 1, dims: []int64{6, 8}, k: 1, vecStrides: []int64{0, 1}, outStrides: []int64{1, 0}}},
		{name: "two contracted dims merge when the vector walks them alike",
			ls: []int64{3, 5}, rs: []int64{3, 5, 7}, lc: []int64{0, 1}, rc: []int64{0, 1}, ok: true,
			want: vpuDotPlan{vecSide: 0, dims: []int64{15, 7}, k: 0, vecStrides: []int64{1, 0}, outStrides: []int64{0, 1}}},
		{name: "contracted dims in the vector's other order do not",
			ls: []int64{5, 3}, rs: []int64{3, 5, 7}, lc: []int64{1, 0}, rc: []int64{0, 1}, ok: false},
		{name: "contracted dims apart",
			ls: []int64{3, 7}, rs: []int64{3, 4, 7}, lc: []int64{0, 1}, rc: []int64{0, 2}, ok: false},
		{name: "a decode query [B,H,1,D]: its dim of 1 is no free dim",
			ls: []int64{2, 4, 1, 32}, rs: []int64{2, 4, 64, 32}, lb: []int64{0, 1}, rb: []int64{0, 1}, lc: []int64{3}, rc: []int64{3}, ok: true,
			want: vpuDotPlan{vecSide: 0, dims: []int64{8, 64, 32}, k: 2, vecStrides: []int64{32, 0, 1}, outStrides: []int64{64, 1, 0}}},
		{name: "no vector operand",
			ls: []int64{16, 32}, rs: []int64{32, 16}, lc: []int64{1}, rc: []int64{0}, ok: false},
		{name: "too many products",
			ls: []int64{1024}, rs: []int64{1024, 512}, lc: []int64{0}, rc: []int64{0}, ok: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := planVPUDot(tc.ls, tc.rs, tc.lb, tc.rb, tc.lc, tc.rc)
			require.Equal(t, tc.ok, ok)
			if ok {
				require.Equal(t, tc.want, p)
			}
		})
	}
	require.Equal(t, [][2]int64{{64, 32}, {32, 16}, {16, 8}, {8, 4}, {4, 2}, {2, 1}}, vpuDotPlan{dims: []int64{64, 4, 32}, k: 0}.levels())
	require.Equal(t, [][2]int64{{37, 18}, {19, 9}, {10, 5}, {5, 2}, {3, 1}, {2, 1}}, vpuDotPlan{dims: []int64{37, 4}, k: 0}.levels())
	require.Nil(t, vpuDotPlan{dims: []int64{4, 37}, k: 1}.levels(), "innermost: one vrsum")
}
