package ici

import (
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/stretchr/testify/require"
)

// TestTorusCollectivesMatchClosedForms: on a torus, a collective over a
// whole sub-torus costs the closed form of the multi-dimensional
// algorithm (topology.go), written out here term by term for the slices
// of issue 46 — 256 devices as a 16x16 (2-D) and a 4x8x8 (3-D) torus —
// and for one dimension of them (a TP group along x); groups that are
// not sub-tori, and runs without a topology, cost the ring.
func TestTorusCollectivesMatchClosedForms(t *testing.T) {
	const lat, w = 1000.0, 50.0 // ns a step; GB/s a port, each way (tpuv4core)
	cfg := config.ICI{Links: 6, LinkGBps: w, LatencyNS: lat, Topology: "16x16"}
	all := make([]int, 256)
	for i := range all {
		all[i] = i
	}
	const B = 4 << 20 // bytes a device contributes
	// ring of n, bidirectional: n-1 steps of b/n over two ports.
	ring := func(n int, b float64) float64 { return float64(n-1) * (lat + b/float64(n)/(2*w)) }
	ns := func(t float64) int64 { return int64(t*1000 + 0.5) }

	// 16x16: two halves, each scatters over x then y (or y then x).
	rs2 := ring(16, B/2) + ring(16, B/2/16)
	require.Equal(t, ns(2*rs2), int64(Cost(cfg, "all-reduce", all, 256, B, B)))
	require.Equal(t, ns(rs2), int64(Cost(cfg, "reduce-scatter", all, 256, B, B/256)))
	require.Equal(t, ns(rs2), int64(Cost(cfg, "all-gather", all, 256, B/256, B)), "an all-gather mirrors the reduce-scatter of its output")

	// 4x8x8: three thirds in rotated orders (4,8,8), (8,8,4), (8,4,8);
	// each phase lasts as long as its slowest third.
	cfg.Topology = "4x8x8"
	third := float64(B) / 3
	p0 := max(ring(4, third), ring(8, third))
	p1 := max(ring(8, third/4), ring(8, third/8), ring(4, third/8))
	p2 := max(ring(8, third/4/8), ring(4, third/8/8), ring(8, third/8/4))
	require.Equal(t, ns(2*(p0+p1+p2)), int64(Cost(cfg, "all-reduce", all, 256, B, B)))

	// A TP group along x of the 4x8x8 slice: one dimension, one ring of 4.
	require.Equal(t, ns(2*ring(4, B)), int64(Cost(cfg, "all-reduce", []int{64, 65, 66, 67}, 256, B, B)))
	// Along y (devices 4 apart): a ring of 8.
	require.Equal(t, ns(2*ring(8, B)), int64(Cost(cfg, "all-reduce", []int{1, 5, 9, 13, 17, 21, 25, 29}, 256, B, B)))
	// Not a sub-torus (half a row): the ring of its members.
	require.Equal(t, RingCost(cfg, "all-reduce", 2, B, B), Cost(cfg, "all-reduce", []int{0, 1}, 256, B, B))
	// No topology, or another device count: the ring of the group.
	cfg.Topology = ""
	require.Equal(t, RingCost(cfg, "all-reduce", 256, B, B), Cost(cfg, "all-reduce", all, 256, B, B))
	cfg.Topology = "16x16"
	require.Equal(t, RingCost(cfg, "all-gather", 256, B/256, B), Cost(cfg, "all-gather", all, 512, B/256, B))
	// Kinds without a torus algorithm here: the ring.
	require.Equal(t, RingCost(cfg, "all-to-all", 256, B, B), Cost(cfg, "all-to-all", all, 256, B, B))
}

func TestSpanned(t *testing.T) {
	dims := []int{4, 8, 8}
	span, ok := spanned(dims, []int{0, 1, 2, 3})
	require.True(t, ok)
	require.Equal(t, []int{0}, span)
	_, ok = spanned(dims, []int{0, 1, 2, 4}) // not a whole row
	require.False(t, ok)
	col := []int{}
	for z := range 8 {
		col = append(col, 3+4*8*z) // x=3, y=0, z varies
	}
	span, ok = spanned(dims, col)
	require.True(t, ok)
	require.Equal(t, []int{2}, span)
	_, ok = spanned(dims, []int{0, 0, 1, 2})
	require.False(t, ok, "a repeated member")
	require.Equal(t, []int{3, 7, 1}, coords(dims, 3+4*7+32))
}
