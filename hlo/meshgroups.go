package hlo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// meshGroups reads the replica groups XLA prints as a mesh and the mesh
// axes each group spans (MeshAxesReplicaGroupList, as a partitioned JAX
// module carries them):
//
//	mesh['data'=2,'model'=4] {'model'}
//	mesh['x'=4,'y'=2], device_ids=([4,2]<=[2,4]T(1,0)) {'x'}
//	mesh['x'=8] {'x':(2)2}
//
// The devices, laid out as the mesh (row-major, or as device_ids says), are
// split so that each group holds the devices that differ only along the
// named axes: the mesh's dims reshaped so that each named sub-axis is a
// dim of its own ('x':(pre)size is the middle factor of x seen as
// [pre, size, rest], row-major, as Shardy writes sub-axes), the named dims
// moved last, the result cut into groups of their product. Quotes around names are optional; spaces were removed.
func meshGroups(v string) ([][]int, error) {
	bad := func(why string) error {
		return fmt.Errorf("replica_groups %s: %s (want mesh['axis'=size,...] {'axis',...})", v, why)
	}
	rest := strings.TrimPrefix(v, "mesh[")
	axesText, rest, ok := strings.Cut(rest, "]")
	if !ok {
		return nil, bad("no ] after the mesh's axes")
	}
	var names []string
	var sizes []int
	n := 1
	for _, a := range strings.Split(axesText, ",") {
		name, size, ok := strings.Cut(a, "=")
		k, err := strconv.Atoi(size)
		if !ok || err != nil || k < 1 || k > MaxDevices {
			return nil, bad(fmt.Sprintf("axis %q is not 'name'=size", a))
		}
		name = strings.Trim(name, "'\"")
		if name == "" || slices.Contains(names, name) {
			return nil, bad(fmt.Sprintf("axis name %q empty or repeated", name))
		}
		if n *= k; n > MaxDevices {
			return nil, bad("more devices than Pulse simulates")
		}
		names, sizes = append(names, name), append(sizes, k)
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	if after, ok := strings.CutPrefix(rest, ",device_ids=("); ok {
		// Up to the ) that closes it (an iota's T(perm) has its own).
		depth, end := 1, -1
		for i, r := range after {
			switch r {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, bad("device_ids=( without )")
		}
		dev, err := meshDeviceIDs(after[:end], n)
		if err != nil {
			return nil, bad(err.Error())
		}
		ids, rest = dev, after[end+1:]
	}
	if !strings.HasPrefix(rest, "{") || !strings.HasSuffix(rest, "}") {
		return nil, bad("no {axes} after the mesh")
	}
	// Each named axis, or sub-axis name:(pre)size, of a mesh dim.
	type ref struct{ pre, size int }
	refs := make([][]ref, len(names))
	per := 1
	for _, r := range strings.Split(strings.Trim(rest, "{}"), ",") {
		name, sub, hasSub := strings.Cut(r, ":")
		d := slices.Index(names, strings.Trim(name, "'\""))
		if d < 0 {
			return nil, bad(fmt.Sprintf("%q is not an axis of the mesh", r))
		}
		x := ref{1, sizes[d]}
		if hasSub {
			p, s, ok := strings.Cut(strings.TrimPrefix(sub, "("), ")")
			pre, e1 := strconv.Atoi(p)
			size, e2 := strconv.Atoi(s)
			if !ok || e1 != nil || e2 != nil || pre < 1 || size < 2 || sizes[d]%(pre*size) != 0 {
				return nil, bad(fmt.Sprintf("sub-axis %q is not name:(pre)size within the axis", r))
			}
			x = ref{pre, size}
		}
		for _, o := range refs[d] {
			if o.pre < x.pre*x.size && x.pre < o.pre*o.size {
				return nil, bad(fmt.Sprintf("%q overlaps another axis of the group", r))
			}
		}
		refs[d] = append(refs[d], x)
		per *= x.size
	}
	if per < 2 {
		return nil, bad("a group of one device")
	}
	// Reshape each named dim into its sub-axes (ascending pre, padded with
	// the sizes between them), noting which new dims the group spans.
	var dims []int64
	var grouped []int
	for d, size := range sizes {
		rs := refs[d]
		if len(rs) == 0 {
			dims = append(dims, int64(size))
			continue
		}
		order := make([]int, len(rs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return rs[a].pre - rs[b].pre })
		at := make([]int, len(rs))
		prefix := 1
		for _, i := range order {
			if rs[i].pre != prefix {
				dims = append(dims, int64(rs[i].pre/prefix))
				prefix = rs[i].pre
			}
			at[i] = len(dims)
			dims = append(dims, int64(rs[i].size))
			prefix *= rs[i].size
		}
		if prefix != size {
			dims = append(dims, int64(size/prefix))
		}
		grouped = append(grouped, at...)
	}
	// Ungrouped dims first, then the grouped ones in order.
	var perm []int
	for i := range dims {
		if !slices.Contains(grouped, i) {
			perm = append(perm, i)
		}
	}
	perm = append(perm, grouped...)
	flat := transposedOrder(dims, perm)
	for k, at := range flat {
		flat[k] = ids[at]
	}
	groups := make([][]int, n/per)
	for g := range groups {
		groups[g] = flat[g*per : (g+1)*per]
	}
	return groups, nil
}

// meshDeviceIDs reads a mesh's device_ids: an iota ([dims]<=[reshape] with
// an optional T(perm)) or the ids listed, n of them, a permutation of 0..n-1.
func meshDeviceIDs(list string, n int) ([]int, error) {
	if shape, iota, ok := strings.Cut(list, "<="); ok {
		g, err := iotaGroups("[1," + strconv.Itoa(n) + "]<=" + iota)
		if err != nil || !strings.HasPrefix(shape, "[") {
			return nil, fmt.Errorf("device_ids %s is not an iota of %d devices", list, n)
		}
		return g[0], nil
	}
	var ids []int
	seen := make([]bool, n)
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == '[' || r == ']' || r == '{' || r == '}' }) {
		x, err := strconv.Atoi(f)
		if err != nil || x < 0 || x >= n || seen[x] {
			return nil, fmt.Errorf("device_ids %s: %q is not one of the %d devices, once", list, f, n)
		}
		seen[x] = true
		ids = append(ids, x)
	}
	if len(ids) != n {
		return nil, fmt.Errorf("device_ids %s: %d ids for %d devices", list, len(ids), n)
	}
	return ids, nil
}
