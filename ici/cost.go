// Package ici is the interconnect between simulated chips: the fabric
// that carries a multi-device program's collectives (runtime builds it)
// and the model of how long each takes.
package ici

import (
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/sim"
)

// The cost of a collective.
//
// Collectives run as the ring algorithms of NCCL and XLA's TPU runtime:
// the group's devices form a ring; each step every device sends a block
// to the next and receives one from the previous, and a step costs the
// link latency plus the block's bytes over the bandwidth. A bidirectional
// ring splits every block over two ports (one when the chip has one), so
// a device moves W = link_gbps x min(links, 2) bytes per ns. With g
// devices, B the bytes a device contributes and R those it receives:
//
//	all-reduce          2(g-1) steps of B/g   (reduce-scatter, then all-gather)
//	reduce-scatter      (g-1) steps of B/g
//	all-gather          (g-1) steps of R/g
//	all-to-all          (g-1) steps of B/g    (ragged: B the input's bytes)
//	collective-permute  1 step of B over one port
//	collective-broadcast (g-1) latencies + B/W (pipelined along the ring)
//
// This is the cost without a topology, and of a group that is not a
// sub-torus of one (topology.go). What it leaves out: the routes of such
// a group and their sharing of links between groups, the devices' own
// HBM traffic and vector work for the reduction (a link is 10-50x slower
// than HBM), and any overlap of a collective with the device's compute
// (the program waits for it).

// RingCost is the time a collective of kind (its base opcode) takes on a
// ring of g devices, each contributing in bytes and receiving out.
func RingCost(c config.ICI, kind string, g int, in, out int64) sim.Time {
	if g <= 1 {
		return 0
	}
	ports := float64(min(c.Links, 2))
	w := c.LinkGBps * ports // bytes per ns
	lat := c.LatencyNS
	steps := func(n int, block float64) float64 { return float64(n) * (lat + block/w) }
	var ns float64
	switch kind {
	case "all-reduce":
		ns = steps(2*(g-1), float64(in)/float64(g))
	case "all-gather":
		ns = steps(g-1, float64(out)/float64(g))
	case "collective-permute":
		ns = lat + float64(in)/c.LinkGBps
	case "collective-broadcast":
		ns = float64(g-1)*lat + float64(in)/w
	default: // reduce-scatter, all-to-all, ragged-all-to-all
		ns = steps(g-1, float64(in)/float64(g))
	}
	return sim.Time(ns*1000 + 0.5)
}
