package hlo

import (
	"fmt"
	"slices"
)

// ragged-dot (jax.lax.ragged_dot_general, the grouped matmul of mixtures of
// experts) is a dot whose lhs has one ragged dimension cut into
// consecutive groups by group_sizes. Its three modes, by the kind of the
// ragged dimension R:
//
//  1. R is an lhs free dimension (m): each position along R is multiplied
//     by its group's slice of the rhs, whose rhs_group_dims dimension
//     holds the groups: [b,m,k] x [g,b,k,n] -> [b,m,n];
//  2. R is a contracting dimension (k): each group sums its own positions
//     of K, one result per group: [b,m,k] x [b,k,n] -> [g,b,m,n];
//  3. R is a batch dimension: [b,m,k] x [b,k,n] -> [b,m,n].
//
// Positions past the last group (group sizes summing to less than R's
// extent) take part in nothing: zero rows in modes 1 and 3, no term in
// mode 2. Negative sizes count as 0. group_sizes is [g], the same groups
// everywhere, or [b..., x..., g]: groups per batch (mode 1 and 2: every
// batch dim; mode 3: the batch dims before R) and per position of the lhs
// dims outer to R of its kind (mode 1: free dims, mode 2: contracting
// dims; x... in lhs order).

// RaggedDims are a ragged-dot's dimension numbers.
type RaggedDims struct {
	LhsBatch, RhsBatch, LhsContracting, RhsContracting []int64
	LhsRagged                                          int64 // the lhs ragged dimension
	RhsGroup                                           int64 // the rhs group dimension, -1 when none
	Mode                                               int
	Groups                                             int64
	// SizeDims are the lhs dims group_sizes has a dimension for, in its order
	// (none when it is [g]).
	SizeDims []int64
}

func ParseRagged(in *Instruction, lhs, rhs, sizes *Shape) (RaggedDims, error) {
	var d RaggedDims
	d.LhsBatch, _ = OptList(in, "lhs_batch_dims")
	d.RhsBatch, _ = OptList(in, "rhs_batch_dims")
	d.LhsContracting, _ = OptList(in, "lhs_contracting_dims")
	d.RhsContracting, _ = OptList(in, "rhs_contracting_dims")
	lr, _ := OptList(in, "lhs_ragged_dims")
	rg, _ := OptList(in, "rhs_group_dims")
	if len(lr) != 1 {
		return d, fmt.Errorf("needs one lhs_ragged_dims, not %d", len(lr))
	}
	if len(d.LhsBatch) != len(d.RhsBatch) || len(d.LhsContracting) != len(d.RhsContracting) {
		return d, fmt.Errorf("batch or contracting dimension lists of different lengths")
	}
	d.LhsRagged, d.RhsGroup = lr[0], -1
	if len(rg) > 1 {
		return d, fmt.Errorf("at most one rhs_group_dims")
	}
	if len(rg) == 1 {
		d.RhsGroup = rg[0]
	}
	inRange := func(ds []int64, s *Shape) bool {
		for _, x := range ds {
			if x < 0 || int(x) >= len(s.Dims) {
				return false
			}
		}
		return true
	}
	if !inRange(append(append([]int64{d.LhsRagged}, d.LhsBatch...), d.LhsContracting...), lhs) || !inRange(append(slices.Clone(d.RhsBatch), d.RhsContracting...), rhs) ||
		d.RhsGroup >= int64(len(rhs.Dims)) {
		return d, fmt.Errorf("a dimension number out of range")
	}
	switch {
	case slices.Contains(d.LhsContracting, d.LhsRagged):
		d.Mode = 2
	case slices.Contains(d.LhsBatch, d.LhsRagged):
		d.Mode = 3
	default:
		d.Mode = 1
	}
	if (d.Mode == 1) != (d.RhsGroup >= 0) {
		return d, fmt.Errorf("rhs_group_dims is needed when the ragged dimension is a free one, and only then (mode %d)", d.Mode)
	}
	if sizes.IsTuple || len(sizes.Dims) == 0 || !isIntElem(sizes.Elem) {
		return d, fmt.Errorf("group_sizes %s is not an integer array [..., g]", sizes)
	}
	if len(sizes.Dims) > 1 {
		var ctx []int64
		switch d.Mode {
		case 3:
			for _, b := range d.LhsBatch {
				if b == d.LhsRagged {
					break
				}
				ctx = append(ctx, b)
			}
		default:
			ctx = slices.Clone(d.LhsBatch)
			kind := FreeDims(len(lhs.Dims), d.LhsBatch, d.LhsContracting) // mode 1
			if d.Mode == 2 {
				kind = slices.Sorted(slices.Values(d.LhsContracting))
			}
			for _, x := range kind {
				if x < d.LhsRagged {
					ctx = append(ctx, x)
				}
			}
		}
		want := make([]int64, 0, len(ctx)+1)
		for _, c := range ctx {
			want = append(want, lhs.Dims[c])
		}
		want = append(want, sizes.Dims[len(sizes.Dims)-1])
		if !slices.Equal(want, sizes.Dims) {
			if len(ctx) == 0 {
				return d, fmt.Errorf("group_sizes %s: want [g] (mode %d has no dims to give groups per position)", sizes, d.Mode)
			}
			return d, fmt.Errorf("group_sizes %s: want [g] or %v (mode %d: groups per position of lhs dims %v)", sizes, want, d.Mode, ctx)
		}
		d.SizeDims = ctx
	}
	d.Groups = sizes.Dims[len(sizes.Dims)-1]
	if d.Mode == 1 && rhs.Dims[d.RhsGroup] != d.Groups {
		return d, fmt.Errorf("%d groups in group_sizes, %d in the rhs group dimension", d.Groups, rhs.Dims[d.RhsGroup])
	}
	for i := range d.LhsBatch {
		if lhs.Dims[d.LhsBatch[i]] != rhs.Dims[d.RhsBatch[i]] {
			return d, fmt.Errorf("batch dimensions disagree")
		}
	}
	for i := range d.LhsContracting {
		if lhs.Dims[d.LhsContracting[i]] != rhs.Dims[d.RhsContracting[i]] {
			return d, fmt.Errorf("contracting dimensions disagree")
		}
	}
	return d, nil
}

// RhsFree are the rhs dimensions neither batch, contracting nor group.
func (d RaggedDims) RhsFree(rank int) []int64 {
	var out []int64
	for i := range int64(rank) {
		if !slices.Contains(d.RhsBatch, i) && !slices.Contains(d.RhsContracting, i) && i != d.RhsGroup {
			out = append(out, i)
		}
	}
	return out
}

// OutDims is the result shape: [g]+ in mode 2, then the batch dims, the
// lhs free dims and the rhs free dims, as a dot's.
func (d RaggedDims) OutDims(lhs, rhs *Shape) []int64 {
	var out []int64
	if d.Mode == 2 {
		out = append(out, d.Groups)
	}
	for _, b := range d.LhsBatch {
		out = append(out, lhs.Dims[b])
	}
	for _, f := range FreeDims(len(lhs.Dims), d.LhsBatch, d.LhsContracting) {
		out = append(out, lhs.Dims[f])
	}
	for _, f := range d.RhsFree(len(rhs.Dims)) {
		out = append(out, rhs.Dims[f])
	}
	return out
}

// GroupEnds are the positions along a ragged extent of n where each
// group ends (exclusive): cumulative sums of the sizes, negative sizes as
// 0, capped at n.
func GroupEnds(sizes []float64, n int64) []int64 {
	ends := make([]int64, len(sizes))
	var at int64
	for i, s := range sizes {
		at = min(at+int64(max(min(s, float64(n)), 0)), n)
		ends[i] = at
	}
	return ends
}

// isIntElem: group sizes are integers of 8 bits or more.
func isIntElem(e string) bool { return IsInteger(e) && ElemBits(e) >= 8 }
