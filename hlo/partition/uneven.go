package partition

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
)

// Uneven splits.
//
// A dimension the devices of its axes do not divide (a vocabulary of
// 50,257 over 8 devices) is padded by XLA's partitioner to the next
// multiple, every op that could see the padding masking it. Pulse keeps
// such a dimension split over the longest run of its axes that divides it
// (a dimension of 10 over 8 devices is split over 2 and replicated over
// the other 4) and whole when none does: the values are the same, the
// partition departs from XLA's there, and the result lists each such
// dimension (Result.Uneven) so that a user sees where.

// fitEven returns s with each dimension's axes cut to the longest prefix
// whose devices divide the dimension, and the dimensions it cut.
func (m *Mesh) fitEven(s Sharding, dims []int64) (Sharding, []int) {
	if len(s.Dims) != len(dims) {
		return s, nil
	}
	var cut []int
	out := s
	for i, axes := range s.Dims {
		k := len(axes)
		for k > 0 && dims[i]%int64(m.product(axes[:k])) != 0 {
			k--
		}
		if k == len(axes) {
			continue
		}
		if cut == nil {
			out = s.Clone()
		}
		out.Dims[i] = out.Dims[i][:k]
		cut = append(cut, i)
	}
	return out, cut
}

// evenFor is fitEven for a sharding read from in for an array of shape,
// noting each cut dimension once in Result.Uneven.
func (p *partitioner) evenFor(in *hlo.Instruction, shape *hlo.Shape, s Sharding) Sharding {
	if shape == nil || shape.IsTuple {
		return s
	}
	fit, cut := p.mesh.fitEven(s, shape.Dims)
	for _, d := range cut {
		key := fmt.Sprintf("%s/%s/%d", in.Name, shape, d)
		if p.unevenSeen[key] {
			continue
		}
		if p.unevenSeen == nil {
			p.unevenSeen = map[string]bool{}
		}
		p.unevenSeen[key] = true
		p.res.Uneven = append(p.res.Uneven, Fallback{Pos: in.Pos, Name: in.Name, Opcode: in.Opcode,
			Why: fmt.Sprintf("dimension %d of size %d does not split evenly over %d devices: split over %d (XLA pads it to split over all)",
				d, shape.Dims[d], p.mesh.product(s.Dims[d]), p.mesh.product(fit.Dims[d]))})
	}
	return fit
}
