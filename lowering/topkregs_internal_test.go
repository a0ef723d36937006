package lowering

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The top-k kernel's plan picks the groups with the fewest vector-unit
// cycles (without simulating): whole rows for one round or for rows too
// short to fill the lanes, a tournament over groups for a few rounds,
// and always a sorting network of that size; a chunk fits the registers.
func TestTopKRegPlan(t *testing.T) {
	for _, tc := range []struct {
		rows, n, k, groups int64
	}{
		{64, 1000, 5, 4}, // top_k_scores: f32[64,1000], k=5
		{64, 1000, 1, 1},
		{16, 1001, 9, 2}, // 2 groups of 501 columns, the last padded
		{3, 127, 9, 1},   // 381 elements: every instruction one pass
		{32, 250, 12, 2},
		{8, 4096, 32, 4},
	} {
		p, ok := planTopKRegs(tc.rows, tc.n, tc.k, 131072, 1024)
		require.True(t, ok)
		require.Equal(t, tc.groups, p.groups, "%+v", tc)
		require.GreaterOrEqual(t, p.groups*p.w, tc.n)
		require.Less(t, (p.groups-1)*p.w, tc.n)
		require.Equal(t, sortingNetworks[p.groups], p.compare)
		require.GreaterOrEqual(t, p.rows, int64(1))
		for _, g := range []int64{1, 2, 4, 8} {
			if q, ok := fitTopKRegs(tc.rows, tc.n, tc.k, g, 131072); ok && g <= tc.n {
				var c int64
				for _, ch := range topKChunks(tc.rows, q.rows) {
					c += topKCost(ch[1], tc.n, tc.k, g, q.w, 1024)
				}
				require.LessOrEqual(t, p.cost, c, "G=%d is cheaper for %+v", g, tc)
			}
		}
	}
	_, ok := planTopKRegs(4, 1<<20, 5, 131072, 1024)
	require.False(t, ok, "a row larger than the register file")
}

// Every sorting network sorts: the 0-1 principle, all 2^G inputs.
func TestSortingNetworks(t *testing.T) {
	for g, net := range sortingNetworks {
		for bits := 0; bits < 1<<g; bits++ {
			v := make([]int, g)
			for i := range v {
				v[i] = bits >> i & 1
			}
			for _, c := range net {
				if v[c[0]] < v[c[1]] {
					v[c[0]], v[c[1]] = v[c[1]], v[c[0]]
				}
			}
			for i := 1; i < len(v); i++ {
				require.GreaterOrEqual(t, v[i-1], v[i], "network of %d on %b", g, bits)
			}
		}
	}
}
