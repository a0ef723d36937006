package partition

import (
	"fmt"
	"slices"
)

// stepKind is one move of a reshard plan.
type stepKind int

const (
	stepAllReduce     stepKind = iota // combine the partial axes: every device gets the sum
	stepReduceScatter                 // combine the partial axes, each device keeping its slice of Dim
	stepAllGather                     // put back together the pieces of Dim split over Axes
	stepSlice                         // keep this device's piece of each dimension: no communication
	stepAllToAll                      // move the split over Axes from dimension Dim to dimension To
)

func (k stepKind) String() string {
	return [...]string{"all-reduce", "reduce-scatter", "all-gather", "dynamic-slice", "all-to-all"}[k]
}

// step is one collective or local slice. Axes are the mesh axes the
// collective's groups span (ordered as the pieces are), or for a slice the
// axes each dimension is further cut over (Cut[i]).
type step struct {
	Kind    stepKind
	Dim     int
	To      int // an all-to-all's destination dimension
	Axes    []int
	Cut     [][]int
	Reducer string
}

// planReshard is the moves that take a value sharded as from to to (which
// has no partial axes): first the partial sum is combined (a
// reduce-scatter when to splits one dimension further over exactly the
// partial axes, an all-reduce otherwise), then each dimension split over
// axes to does not start with is gathered back as far as they agree,
// then every dimension is cut down to to's pieces locally.
func (m *Mesh) planReshard(from, to Sharding) ([]step, error) {
	if len(to.Partial) > 0 {
		return nil, fmt.Errorf("internal error: reshard to a partial sharding")
	}
	if len(from.Dims) != len(to.Dims) {
		return nil, fmt.Errorf("internal error: reshard of rank %d to rank %d", len(from.Dims), len(to.Dims))
	}
	cur := from.Clone()
	var steps []step
	if len(cur.Partial) > 0 {
		scattered := false
		for d := range cur.Dims {
			if hasPrefix(to.Dims[d], cur.Dims[d]) && sameSet(to.Dims[d][len(cur.Dims[d]):], cur.Partial) && otherDimsAgree(cur, to, d) {
				extra := slices.Clone(to.Dims[d][len(cur.Dims[d]):])
				steps = append(steps, step{Kind: stepReduceScatter, Dim: d, Axes: extra, Reducer: cur.Reducer})
				cur.Dims[d] = append(cur.Dims[d], extra...)
				scattered = true
				break
			}
		}
		if !scattered {
			steps = append(steps, step{Kind: stepAllReduce, Axes: slices.Clone(cur.Partial), Reducer: cur.Reducer})
		}
		cur.Partial, cur.Reducer = nil, ""
	}
	for d := range cur.Dims {
		if hasPrefix(to.Dims[d], cur.Dims[d]) {
			continue
		}
		keep := 0
		for keep < len(cur.Dims[d]) && keep < len(to.Dims[d]) && cur.Dims[d][keep] == to.Dims[d][keep] {
			keep++
		}
		steps = append(steps, step{Kind: stepAllGather, Dim: d, Axes: slices.Clone(cur.Dims[d][keep:])})
		cur.Dims[d] = cur.Dims[d][:keep]
	}
	cut := make([][]int, len(cur.Dims))
	for d := range cur.Dims {
		if len(to.Dims[d]) > len(cur.Dims[d]) {
			cut[d] = slices.Clone(to.Dims[d][len(cur.Dims[d]):])
		}
	}
	// A split that leaves one dimension for another is one all-to-all, not
	// an all-gather and a slice (a g-th of the bytes moved).
	for i, s := range steps {
		if s.Kind != stepAllGather {
			continue
		}
		for b := range cut {
			if b != s.Dim && len(cut[b]) > 0 && hasPrefix(cut[b], s.Axes) {
				steps[i] = step{Kind: stepAllToAll, Dim: s.Dim, To: b, Axes: s.Axes}
				cut[b] = cut[b][len(s.Axes):]
				break
			}
		}
	}
	any := false
	for d := range cut {
		any = any || len(cut[d]) > 0
	}
	if any {
		steps = append(steps, step{Kind: stepSlice, Cut: cut})
	}
	return steps, nil
}

// otherDimsAgree: a reduce-scatter into dimension d leaves the others as
// they are, so it is chosen only when to wants them so.
func otherDimsAgree(cur, to Sharding, d int) bool {
	for i := range cur.Dims {
		if i != d && !slices.Equal(cur.Dims[i], to.Dims[i]) {
			return false
		}
	}
	return true
}

func hasPrefix(s, prefix []int) bool {
	return len(s) >= len(prefix) && slices.Equal(s[:len(prefix)], prefix)
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// reshardCost is the bytes one device receives to move a value of dims
// (elements of elemBytes) from one sharding to another: a ring all-reduce
// moves twice its array, a reduce-scatter its array once, an all-gather
// its result; slices are free. (An estimate for choosing between
// shardings, as XLA's partitioner estimates; the simulation times the
// collectives themselves.)
func (m *Mesh) reshardCost(from, to Sharding, dims []int64, elemBytes int64) int64 {
	steps, err := m.planReshard(from, to)
	if err != nil {
		return 1 << 62
	}
	cur := from.Clone()
	var cost int64
	local := func() int64 {
		n := elemBytes
		for i, d := range dims {
			n *= d / int64(max(m.product(cur.Dims[i]), 1))
		}
		return n
	}
	for _, s := range steps {
		switch s.Kind {
		case stepAllReduce:
			cost += 2 * local()
			cur.Partial = nil
		case stepReduceScatter:
			cost += local()
			cur.Partial = nil
			cur.Dims[s.Dim] = append(cur.Dims[s.Dim], s.Axes...)
		case stepAllGather:
			cur.Dims[s.Dim] = cur.Dims[s.Dim][:len(cur.Dims[s.Dim])-len(s.Axes)]
			cost += local()
		case stepAllToAll:
			cost += local()
		}
	}
	return cost
}
