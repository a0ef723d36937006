package partition

import (
	"fmt"
	"strconv"
	"strings"
)

// hloSharding is one array's sharding= attribute as HLO prints it, read
// against the module's mesh.
type hloSharding struct {
	Sharding
	Manual bool // {manual}: a shard_map body's value in the GSPMD form
}

// ParseHLOSharding reads sharding={...} for an array of rank dims:
//
//	{replicated}   {maximal device=0}   {manual}
//	{devices=[8,1]<=[8]}
//	{devices=[2,1,4]<=[2,4]T(1,0) last_tile_dim_replicate}
//	{devices=[2,2]0,1,2,3}
//
// A tile assignment is the devices iota(N) reshaped and transposed as
// written; each tile dimension takes the next prime axes of that order,
// which must be the mesh's (an explicit list must be 0, 1, 2, ...). A
// maximal sharding (one device holds the array) is read as replicated:
// the values are the same, only where they live differs.
func ParseHLOSharding(text string, rank int, m *Mesh) (hloSharding, error) {
	v := strings.TrimSpace(text)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "{"), "}")
	v = strings.TrimSpace(v)
	out := hloSharding{Sharding: Replicated(rank)}
	switch {
	case v == "replicated", strings.HasPrefix(v, "maximal"):
		return out, nil
	case v == "manual":
		out.Manual = true
		return out, nil
	case !strings.HasPrefix(v, "devices=["):
		return out, fmt.Errorf("sharding %s: want {replicated}, {manual} or {devices=[...]...}", text)
	}
	v = strings.TrimPrefix(v, "devices=[")
	tileText, rest, _ := strings.Cut(v, "]")
	var tiles []int
	for _, f := range strings.Split(tileText, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || t < 1 {
			return out, fmt.Errorf("sharding %s: tile dimension %q", text, f)
		}
		tiles = append(tiles, t)
	}
	rest = strings.TrimSpace(rest)
	assign, tail, _ := strings.Cut(rest, " ")
	reshape, perm, err := iotaAssignment(assign, tiles)
	if err != nil {
		return out, fmt.Errorf("sharding %s: %v", text, err)
	}
	extra := 0 // tile dims after the array's: replicated or manual subgroups
	if strings.Contains(tail, "last_tile_dim_replicate") {
		extra = 1
	}
	if _, kinds, ok := strings.Cut(tail, "last_tile_dims={"); ok {
		kinds, _, _ = strings.Cut(kinds, "}")
		for _, k := range strings.Split(kinds, ",") {
			extra++
			if strings.TrimSpace(k) == "manual" {
				out.Manual = true
			}
		}
	}
	if len(tiles) != rank+extra {
		return out, fmt.Errorf("sharding %s: %d tile dimensions for an array of rank %d", text, len(tiles), rank)
	}
	// The prime axes of each reshape dimension, which must be the mesh's.
	var axesOf [][]int
	next := 0
	for _, d := range reshape {
		var axes []int
		for _, p := range primes(d) {
			if next >= len(m.Axes) || m.Axes[next].Size != p {
				return out, fmt.Errorf("sharding %s: the device order does not fall on the mesh's axes %v", text, m.Sizes)
			}
			axes = append(axes, next)
			next++
		}
		axesOf = append(axesOf, axes)
	}
	if next != len(m.Axes) {
		return out, fmt.Errorf("sharding %s covers %d of the mesh's devices", text, prod(reshape))
	}
	var seq []int
	for _, k := range perm {
		seq = append(seq, axesOf[k]...)
	}
	for i, t := range tiles {
		var axes []int
		n := 1
		for n < t {
			if len(seq) == 0 {
				return out, fmt.Errorf("sharding %s: the tile dimensions do not fall on the mesh's axes", text)
			}
			n *= m.Axes[seq[0]].Size
			axes, seq = append(axes, seq[0]), seq[1:]
		}
		if n != t {
			return out, fmt.Errorf("sharding %s: tile dimension %d (%d) does not fall on the mesh's axes %v", text, i, t, m.Sizes)
		}
		if i < rank {
			out.Dims[i] = axes
		}
	}
	return out, nil
}

// iotaAssignment reads `<=[2,4]T(1,0)` (reshape dims and permutation) or
// an explicit device list, which must be 0, 1, 2, ... (read as <=[N]).
func iotaAssignment(s string, tiles []int) (reshape, perm []int, err error) {
	n := prod(tiles)
	if !strings.HasPrefix(s, "<=[") {
		for i, f := range strings.Split(s, ",") {
			if d, err := strconv.Atoi(strings.TrimSpace(f)); err != nil || d != i {
				return nil, nil, fmt.Errorf("an explicit device order other than 0, 1, 2, ... is not partitioned yet")
			}
		}
		return []int{n}, []int{0}, nil
	}
	dimsText, rest, _ := strings.Cut(strings.TrimPrefix(s, "<=["), "]")
	for _, f := range strings.Split(dimsText, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 1 {
			return nil, nil, fmt.Errorf("reshape dimension %q", f)
		}
		reshape = append(reshape, d)
	}
	if prod(reshape) != n {
		return nil, nil, fmt.Errorf("%d devices reshaped as %v", n, reshape)
	}
	if strings.HasPrefix(rest, "T(") {
		for _, f := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(rest, "T("), ")"), ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || k < 0 || k >= len(reshape) {
				return nil, nil, fmt.Errorf("permutation %s", rest)
			}
			perm = append(perm, k)
		}
		if len(perm) != len(reshape) {
			return nil, nil, fmt.Errorf("permutation %s", rest)
		}
	} else {
		for k := range reshape {
			perm = append(perm, k)
		}
	}
	return reshape, perm, nil
}

func prod(v []int) int {
	n := 1
	for _, x := range v {
		n *= x
	}
	return n
}

// splitTuple splits a tuple sharding {{a}, {b}} into its elements' texts.
func splitTuple(text string) []string {
	v := strings.TrimSpace(text)
	if !strings.HasPrefix(v, "{{") && v != "{}" {
		return nil
	}
	v = v[1 : len(v)-1]
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '{':
			if depth == 0 {
				start = i
			}
			depth++
		case '}':
			depth--
			if depth == 0 {
				out = append(out, v[start:i+1])
			}
		}
	}
	return out
}
