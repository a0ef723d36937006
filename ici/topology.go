package ici

import (
	"slices"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/sim"
)

// A slice's topology: a torus of the devices (ici.topology, "16x16" or
// "4x4x4"), wraparound on every dimension, each device with a port to
// each neighbour along each dimension (two a dimension). Device d sits at
// coordinates with the first dimension fastest, d = x + X*(y + Y*z), the
// order in which jax.devices() lists a TPU slice's chips by their coords.
//
// A collective whose group is a whole sub-torus — its members vary along
// some dimensions, cover each of them entirely and agree on the others
// (TP along x, DP along y, every device of the slice) — runs as XLA's
// multi-dimensional algorithms on a TPU torus do: the data is cut into one
// part per spanned dimension, and part p reduce-scatters along its
// dimensions in rotated order (p, p+1, ...), so that in each phase every
// part uses a different dimension's links; an all-reduce then
// all-gathers back the same way. Along one dimension of n devices the
// phase is a bidirectional ring: n-1 steps, each moving a block split
// over the dimension's two ports (one port when n is 2). Groups along
// the same dimension in different rows use different links, so such
// collectives do not contend; a group that is not a sub-torus is timed as
// a ring of its members (RingCost), its routes' sharing of links not
// modelled.

// torus is the topology of cfg, nil when it has none or its devices are
// not n.
func torus(cfg config.ICI, n int) []int {
	dims, err := config.ParseTopology(cfg.Topology)
	if err != nil || len(dims) == 0 || config.TopologySize(dims) != n {
		return nil
	}
	return dims
}

// coords are device d's coordinates in the torus dims, first fastest.
func coords(dims []int, d int) []int {
	c := make([]int, len(dims))
	for i, n := range dims {
		c[i] = d % n
		d /= n
	}
	return c
}

// spanned returns the dimensions (in order) along which members form a
// whole sub-torus, or false when they do not.
func spanned(dims, members []int) ([]int, bool) {
	if len(members) < 2 {
		return nil, false
	}
	first := coords(dims, members[0])
	var span []int
	size := 1
	for i := range dims {
		for _, m := range members[1:] {
			if coords(dims, m)[i] != first[i] {
				span = append(span, i)
				size *= dims[i]
				break
			}
		}
	}
	if size != len(members) {
		return nil, false
	}
	// Every combination of the spanned coordinates appears once (the
	// count matches, so distinct is enough).
	seen := map[int]bool{}
	for _, m := range members {
		c := coords(dims, m)
		key := 0
		for _, i := range span {
			key = key*dims[i] + c[i]
		}
		for i := range dims {
			if !slices.Contains(span, i) && c[i] != first[i] {
				return nil, false
			}
		}
		if seen[key] {
			return nil, false
		}
		seen[key] = true
	}
	return span, true
}

// torusCost is the time of a reduce-scatter (half: only that), all-reduce
// or all-gather of b bytes a device (an all-gather's: its output) over the
// sub-torus of sizes ns, per the algorithm above, in ns.
func torusCost(cfg config.ICI, kind string, ns []int, b float64) float64 {
	d := len(ns)
	part := b / float64(d)
	// phase j of part p runs along dimension (p+j) mod d on a block of
	// part / (the sizes it has already scattered over).
	rs := 0.0
	for j := range d {
		worst := 0.0
		for p := range d {
			done := 1.0
			for k := range j {
				done *= float64(ns[(p+k)%d])
			}
			n := ns[(p+j)%d]
			worst = max(worst, ringPhase(cfg, n, part/done))
		}
		rs += worst
	}
	if kind == "all-reduce" {
		return 2 * rs
	}
	return rs
}

// ringPhase is a bidirectional ring's reduce-scatter (or all-gather) of a
// block of b bytes along a dimension of n devices: n-1 steps of b/n, each
// split over the dimension's ports.
func ringPhase(cfg config.ICI, n int, b float64) float64 {
	if n <= 1 {
		return 0
	}
	ports := 2.0
	if n == 2 {
		ports = 1
	}
	return float64(n-1) * (cfg.LatencyNS + b/float64(n)/(cfg.LinkGBps*ports))
}

// Cost is the time a collective of kind (its base opcode) takes on the
// group members (device ids), each contributing in bytes and receiving
// out: on the torus of the devices' topology when the group is a
// sub-torus of it and the collective an all-reduce, reduce-scatter or
// all-gather, else as a ring (RingCost). n is the run's device count.
func Cost(c config.ICI, kind string, members []int, n int, in, out int64) sim.Time {
	if dims := torus(c, n); dims != nil {
		if span, ok := spanned(dims, members); ok {
			ns := make([]int, len(span))
			for i, s := range span {
				ns[i] = dims[s]
			}
			var t float64
			switch kind {
			case "all-reduce", "reduce-scatter":
				t = torusCost(c, kind, ns, float64(in))
			case "all-gather":
				t = torusCost(c, kind, ns, float64(out))
			default:
				return RingCost(c, kind, len(members), in, out)
			}
			return sim.Time(t*1000 + 0.5)
		}
	}
	return RingCost(c, kind, len(members), in, out)
}
