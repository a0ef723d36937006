package memory

import "github.com/pulse-sim/pulse/isa"

// Tile is one side of a transfer: a layout at a byte address.
type Tile struct {
	Base   int64
	Layout *isa.Layout
}

// Runs walks the contiguous byte runs of a tile in its element order,
// merging trailing dimensions that are contiguous, without allocating.
type Runs struct {
	base     int64
	outer    int                // number of outer (non-merged) dimensions
	shape    [isa.MaxRank]int64 // outer dimensions
	stride   [isa.MaxRank]int64 // outer strides, bytes
	idx      [isa.MaxRank]int64
	runBytes int64
	done     bool
}

// NewRuns starts walking a tile's runs.
func NewRuns(t Tile) Runs {
	l := t.Layout
	sz := int64(l.DType.Size())
	r := Runs{base: t.Base}
	rank := int(l.Rank)
	// Merge trailing dimensions while they are contiguous.
	run := sz
	d := rank - 1
	if l.Strides[d] == 1 {
		run = int64(l.Shape[d]) * sz
		d--
		for d >= 0 && int64(l.Strides[d])*sz == run {
			run *= int64(l.Shape[d])
			d--
		}
	} else {
		d = rank - 1 // every element is its own run
	}
	r.runBytes = run
	r.outer = d + 1
	if l.Strides[rank-1] != 1 {
		r.outer = rank
	}
	for i := 0; i < r.outer; i++ {
		r.shape[i] = int64(l.Shape[i])
		r.stride[i] = int64(l.Strides[i]) * sz
	}
	return r
}

// Next returns the next run's address and length.
func (r *Runs) Next() (int64, int64, bool) {
	if r.done {
		return 0, 0, false
	}
	addr := r.base
	for i := 0; i < r.outer; i++ {
		addr += r.idx[i] * r.stride[i]
	}
	// Advance the outer index, last dimension fastest.
	i := r.outer - 1
	for ; i >= 0; i-- {
		r.idx[i]++
		if r.idx[i] < r.shape[i] {
			break
		}
		r.idx[i] = 0
	}
	if i < 0 {
		r.done = true
	}
	return addr, r.runBytes, true
}
