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

// raggedDims are a ragged-dot's dimension numbers.
type raggedDims struct {
	lb, rb, lc, rc []int64
	lr             int64 // the lhs ragged dimension
	rg             int64 // the rhs group dimension, -1 when none
	mode           int
	groups         int64
	// ctx are the lhs dims group_sizes has a dimension for, in its order
	// (none when it is [g]).
	ctx []int64
}

func parseRagged(in *Instruction, lhs, rhs, sizes *Shape) (raggedDims, error) {
	var d raggedDims
	d.lb, _ = optList(in, "lhs_batch_dims")
	d.rb, _ = optList(in, "rhs_batch_dims")
	d.lc, _ = optList(in, "lhs_contracting_dims")
	d.rc, _ = optList(in, "rhs_contracting_dims")
	lr, _ := optList(in, "lhs_ragged_dims")
	rg, _ := optList(in, "rhs_group_dims")
	if len(lr) != 1 {
		return d, fmt.Errorf("needs one lhs_ragged_dims, not %d", len(lr))
	}
	if len(d.lb) != len(d.rb) || len(d.lc) != len(d.rc) {
		return d, fmt.Errorf("batch or contracting dimension lists of different lengths")
	}
	d.lr, d.rg = lr[0], -1
	if len(rg) > 1 {
		return d, fmt.Errorf("at most one rhs_group_dims")
	}
	if len(rg) == 1 {
		d.rg = rg[0]
	}
	inRange := func(ds []int64, s *Shape) bool {
		for _, x := range ds {
			if x < 0 || int(x) >= len(s.Dims) {
				return false
			}
		}
		return true
	}
	if !inRange(append(append([]int64{d.lr}, d.lb...), d.lc...), lhs) || !inRange(append(slices.Clone(d.rb), d.rc...), rhs) ||
		d.rg >= int64(len(rhs.Dims)) {
		return d, fmt.Errorf("a dimension number out of range")
	}
	switch {
	case slices.Contains(d.lc, d.lr):
		d.mode = 2
	case slices.Contains(d.lb, d.lr):
		d.mode = 3
	default:
		d.mode = 1
	}
	if (d.mode == 1) != (d.rg >= 0) {
		return d, fmt.Errorf("rhs_group_dims is needed when the ragged dimension is a free one, and only then (mode %d)", d.mode)
	}
	if sizes.IsTuple || len(sizes.Dims) == 0 || !isIntElem(sizes.Elem) {
		return d, fmt.Errorf("group_sizes %s is not an integer array [..., g]", sizes)
	}
	if len(sizes.Dims) > 1 {
		var ctx []int64
		switch d.mode {
		case 3:
			for _, b := range d.lb {
				if b == d.lr {
					break
				}
				ctx = append(ctx, b)
			}
		default:
			ctx = slices.Clone(d.lb)
			kind := freeDims(len(lhs.Dims), d.lb, d.lc) // mode 1
			if d.mode == 2 {
				kind = slices.Sorted(slices.Values(d.lc))
			}
			for _, x := range kind {
				if x < d.lr {
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
				return d, fmt.Errorf("group_sizes %s: want [g] (mode %d has no dims to give groups per position)", sizes, d.mode)
			}
			return d, fmt.Errorf("group_sizes %s: want [g] or %v (mode %d: groups per position of lhs dims %v)", sizes, want, d.mode, ctx)
		}
		d.ctx = ctx
	}
	d.groups = sizes.Dims[len(sizes.Dims)-1]
	if d.mode == 1 && rhs.Dims[d.rg] != d.groups {
		return d, fmt.Errorf("%d groups in group_sizes, %d in the rhs group dimension", d.groups, rhs.Dims[d.rg])
	}
	for i := range d.lb {
		if lhs.Dims[d.lb[i]] != rhs.Dims[d.rb[i]] {
			return d, fmt.Errorf("batch dimensions disagree")
		}
	}
	for i := range d.lc {
		if lhs.Dims[d.lc[i]] != rhs.Dims[d.rc[i]] {
			return d, fmt.Errorf("contracting dimensions disagree")
		}
	}
	return d, nil
}

// rhsFree are the rhs dimensions neither batch, contracting nor group.
func (d raggedDims) rhsFree(rank int) []int64 {
	var out []int64
	for i := range int64(rank) {
		if !slices.Contains(d.rb, i) && !slices.Contains(d.rc, i) && i != d.rg {
			out = append(out, i)
		}
	}
	return out
}

// outDims is the result shape: [g]+ in mode 2, then the batch dims, the
// lhs free dims and the rhs free dims, as a dot's.
func (d raggedDims) outDims(lhs, rhs *Shape) []int64 {
	var out []int64
	if d.mode == 2 {
		out = append(out, d.groups)
	}
	for _, b := range d.lb {
		out = append(out, lhs.Dims[b])
	}
	for _, f := range freeDims(len(lhs.Dims), d.lb, d.lc) {
		out = append(out, lhs.Dims[f])
	}
	for _, f := range d.rhsFree(len(rhs.Dims)) {
		out = append(out, rhs.Dims[f])
	}
	return out
}

// groupEnds are the positions along a ragged extent of n where each
// group ends (exclusive): cumulative sums of the sizes, negative sizes as
// 0, capped at n.
func groupEnds(sizes []float64, n int64) []int64 {
	ends := make([]int64, len(sizes))
	var at int64
	for i, s := range sizes {
		at = min(at+int64(max(min(s, float64(n)), 0)), n)
		ends[i] = at
	}
	return ends
}

func isIntElem(e string) bool {
	switch e {
	case "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64":
		return true
	}
	return false
}
