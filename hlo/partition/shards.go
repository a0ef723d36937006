package partition

import "github.com/pulse-sim/pulse/hlo"

// Shard is the piece of a global array (row-major data of dims) that
// device holds under sharding s, and its dims. A partial sharding has no
// single piece per device and is not a valid argument.
func (m *Mesh) Shard(data []float64, dims []int64, s Sharding, device int) ([]float64, []int64, error) {
	local, err := m.LocalDims(s, dims)
	if err != nil {
		return nil, nil, err
	}
	start := make([]int64, len(dims))
	for i := range dims {
		start[i] = int64(m.index(device, s.Dims[i])) * local[i]
	}
	out := make([]float64, hlo.Prod(local))
	idx := make([]int64, len(dims))
	g := make([]int64, len(dims))
	for k := range out {
		hlo.Unflatten(int64(k), local, idx)
		for i := range idx {
			g[i] = start[i] + idx[i]
		}
		out[k] = data[hlo.Flat(g, dims)]
	}
	return out, local, nil
}

// Assemble puts the devices' shards (shards[d] is device d's, row-major)
// back into the global array of dims. Devices that hold the same piece
// (a replicated axis) must agree; the first one's is taken.
func (m *Mesh) Assemble(shards [][]float64, dims []int64, s Sharding) ([]float64, error) {
	local, err := m.LocalDims(s, dims)
	if err != nil {
		return nil, err
	}
	out := make([]float64, hlo.Prod(dims))
	idx := make([]int64, len(dims))
	g := make([]int64, len(dims))
	for d := len(shards) - 1; d >= 0; d-- {
		for k, x := range shards[d] {
			hlo.Unflatten(int64(k), local, idx)
			for i := range idx {
				g[i] = int64(m.index(d, s.Dims[i]))*local[i] + idx[i]
			}
			out[hlo.Flat(g, dims)] = x
		}
	}
	return out, nil
}
