package hlo

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMeshReplicaGroups: the mesh form of replica groups that partitioned
// JAX modules carry, against the groups XLA's MeshAxesReplicaGroupList
// gives (devices that differ only along the named axes).
func TestMeshReplicaGroups(t *testing.T) {
	for _, c := range []struct {
		v    string
		want [][]int
	}{
		{"mesh['x'=8] {'x'}", [][]int{{0, 1, 2, 3, 4, 5, 6, 7}}},
		{"mesh['axis_0'=4,'axis_1'=1] {'axis_0'}", [][]int{{0, 1, 2, 3}}},
		{"mesh['axis_0'=1,'axis_1'=1,'axis_2'=4] {'axis_2'}", [][]int{{0, 1, 2, 3}}},
		{"mesh['a'=2,'b'=4] {'b'}", [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}},
		{"mesh['a'=2,'b'=4] {'a'}", [][]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
		{"mesh['a'=2,'b'=4] {'a','b'}", [][]int{{0, 1, 2, 3, 4, 5, 6, 7}}},
		{"mesh[a=2,b=4] {b}", [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}},
		// A sub-axis: x = 8 seen as [2,2,2], the middle one (stride 2).
		{"mesh['x'=8] {'x':(2)2}", [][]int{{0, 2}, {1, 3}, {4, 6}, {5, 7}}},
		{"mesh['x'=8] {'x':(1)2,'x':(4)2}", [][]int{{0, 1, 4, 5}, {2, 3, 6, 7}}},
		// Devices laid out as device_ids says: [[0,2],[1,3]].
		{"mesh['x'=2,'y'=2], device_ids=([2,2]<=[2,2]T(1,0)) {'y'}", [][]int{{0, 2}, {1, 3}}},
		{"mesh['x'=2,'y'=2], device_ids=(3,2,1,0) {'x'}", [][]int{{3, 1}, {2, 0}}},
	} {
		got, err := ParseReplicaGroups(c.v)
		require.NoError(t, err, c.v)
		require.Equal(t, c.want, got, c.v)
	}
	for _, bad := range []string{
		"mesh['x'=8] {'y'}",       // not an axis
		"mesh['x'=8]",             // no groups
		"mesh['x'=8,'x'=2] {'x'}", // repeated name
		"mesh['x'=0] {'x'}",       // empty axis
		"mesh['x'=8] {'x':(3)2}",  // a sub-axis that does not divide
		"mesh['x'=8] {'x','x'}",   // overlapping
		"mesh['x'=1] {'x'}",       // groups of one device
		"mesh['x'=4], device_ids=(0,1,1,2) {'x'}",
		"mesh['x'=4], device_ids=(0,1 {'x'}",
	} {
		_, err := ParseReplicaGroups(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "replica_groups")
	}
}
