package partition

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// Axis is one prime factor of a named mesh axis: Shardy's sub-axis
// name:(Pre)Size, where Pre is the product of the factors of the same
// axis that are more major.
type Axis struct {
	Name string // the mesh axis it is part of ("x"; "a3" for an HLO tile assignment's)
	Pre  int
	Size int
}

func (a Axis) String() string {
	return fmt.Sprintf("%s:(%d)%d", a.Name, a.Pre, a.Size)
}

// Mesh is the devices laid out as a row-major array over Axes, the prime
// factors of the named axes in order (major first). Device d has
// coordinate (d / stride(k)) % Axes[k].Size along axis k. Splitting every
// axis into primes gives XLA's tile assignments (whose dims may group or
// split a mesh axis) and Shardy's sub-axes one vocabulary.
type Mesh struct {
	Axes  []Axis
	Names []string // the named axes, in order
	Sizes []int    // their sizes
}

// NewMesh builds the mesh of named axes of the given sizes.
func NewMesh(names []string, sizes []int) (*Mesh, error) {
	m := &Mesh{Names: names, Sizes: sizes}
	n := 1
	for i, name := range names {
		if sizes[i] < 1 {
			return nil, fmt.Errorf("mesh axis %q has size %d", name, sizes[i])
		}
		n *= sizes[i]
		if n > hlo.MaxDevices {
			return nil, fmt.Errorf("a mesh of %v is %d devices or more; at most %d are partitioned for", sizes, n, hlo.MaxDevices)
		}
		pre := 1
		for _, p := range primes(sizes[i]) {
			m.Axes = append(m.Axes, Axis{Name: name, Pre: pre, Size: p})
			pre *= p
		}
	}
	return m, nil
}

// primes is n's prime factors, ascending.
func primes(n int) []int {
	var out []int
	for p := 2; p*p <= n; p++ {
		for n%p == 0 {
			out = append(out, p)
			n /= p
		}
	}
	if n > 1 {
		out = append(out, n)
	}
	return out
}

// N is the number of devices.
func (m *Mesh) N() int {
	n := 1
	for _, a := range m.Axes {
		n *= a.Size
	}
	return n
}

// coord is device d's coordinate along axis k.
func (m *Mesh) coord(d, k int) int {
	stride := 1
	for j := len(m.Axes) - 1; j > k; j-- {
		stride *= m.Axes[j].Size
	}
	return d / stride % m.Axes[k].Size
}

// product is the number of devices along the axes.
func (m *Mesh) product(axes []int) int {
	n := 1
	for _, a := range axes {
		n *= m.Axes[a].Size
	}
	return n
}

// index is device d's position along the axes, axes[0] most major.
func (m *Mesh) index(d int, axes []int) int {
	i := 0
	for _, a := range axes {
		i = i*m.Axes[a].Size + m.coord(d, a)
	}
	return i
}

// groups splits the devices into the groups that differ only along axes,
// each ordered by index(d, axes), the groups ordered by their first
// member: the replica groups of a collective over those axes.
func (m *Mesh) groups(axes []int) [][]int {
	byKey := map[int][]int{}
	var keys []int
	rest := m.rest(axes)
	for d := 0; d < m.N(); d++ {
		k := m.index(d, rest)
		g, ok := byKey[k]
		if !ok {
			keys = append(keys, k)
			g = make([]int, m.product(axes))
		}
		g[m.index(d, axes)] = d
		byKey[k] = g
	}
	out := make([][]int, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// rest is the axes not in axes, in mesh order.
func (m *Mesh) rest(axes []int) []int {
	var out []int
	for k := range m.Axes {
		if !slices.Contains(axes, k) {
			out = append(out, k)
		}
	}
	return out
}

// Sharding is how an array is spread over a mesh: Dims[i] lists the mesh
// axes dimension i is split over, most major first (none: the dimension
// is whole on every device); axes named by no dimension replicate the
// array. Partial lists axes over which each device holds an unreduced
// part, combined by the computation Reducer (a dot whose contracted
// dimension was split, before its all-reduce). Manual marks a value inside
// a shard_map body: the program computes on its shards as written.
type Sharding struct {
	Dims    [][]int
	Partial []int
	Reducer string
}

// Replicated is the sharding of a rank-r array that every device holds
// whole.
func Replicated(rank int) Sharding { return Sharding{Dims: make([][]int, rank)} }

// IsReplicated reports whether every device holds the whole array.
func (s Sharding) IsReplicated() bool {
	for _, d := range s.Dims {
		if len(d) > 0 {
			return false
		}
	}
	return len(s.Partial) == 0
}

// Clone copies s deeply.
func (s Sharding) Clone() Sharding {
	out := Sharding{Dims: make([][]int, len(s.Dims)), Partial: slices.Clone(s.Partial), Reducer: s.Reducer}
	for i, d := range s.Dims {
		out.Dims[i] = slices.Clone(d)
	}
	return out
}

// Equal compares two shardings.
func (s Sharding) Equal(t Sharding) bool {
	if len(s.Dims) != len(t.Dims) || !slices.Equal(s.Partial, t.Partial) || (len(s.Partial) > 0 && s.Reducer != t.Reducer) {
		return false
	}
	for i := range s.Dims {
		if !slices.Equal(s.Dims[i], t.Dims[i]) {
			return false
		}
	}
	return true
}

// used is every axis that s splits a dimension over or holds partial.
func (s Sharding) used() []int {
	var out []int
	for _, d := range s.Dims {
		out = append(out, d...)
	}
	return append(out, s.Partial...)
}

// Shards is the number of pieces dimension i is cut into.
func (m *Mesh) Shards(s Sharding, i int) int { return m.product(s.Dims[i]) }

// LocalDims is the shape of one device's shard of an array of dims; an
// uneven split is an error naming the dimension.
func (m *Mesh) LocalDims(s Sharding, dims []int64) ([]int64, error) {
	out := make([]int64, len(dims))
	for i, n := range dims {
		k := int64(m.product(s.Dims[i]))
		if n%k != 0 {
			return nil, fmt.Errorf("dimension %d of size %d does not split evenly over %d devices (uneven shardings are not partitioned yet)", i, n, k)
		}
		out[i] = n / k
	}
	return out, nil
}

// Format writes s as Shardy does, with each prime axis as a sub-axis
// where it is one: [{"x"}, {}], partial={"y"}.
func (m *Mesh) Format(s Sharding) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s.Dims {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{" + m.axesText(d) + "}")
	}
	b.WriteByte(']')
	if len(s.Partial) > 0 {
		b.WriteString(" partial={" + m.axesText(s.Partial) + "}")
	}
	return b.String()
}

// axesText names axes, merging consecutive factors of one named axis and
// writing a whole named axis by its name.
func (m *Mesh) axesText(axes []int) string {
	var parts []string
	for i := 0; i < len(axes); {
		a := m.Axes[axes[i]]
		size := a.Size
		j := i + 1
		for j < len(axes) && axes[j] == axes[j-1]+1 && m.Axes[axes[j]].Name == a.Name {
			size *= m.Axes[axes[j]].Size
			j++
		}
		whole := a.Pre == 1 && size == m.namedSize(a.Name)
		if whole {
			parts = append(parts, fmt.Sprintf("%q", a.Name))
		} else {
			parts = append(parts, fmt.Sprintf("%q:(%d)%d", a.Name, a.Pre, size))
		}
		i = j
	}
	return strings.Join(parts, ", ")
}

func (m *Mesh) namedSize(name string) int {
	for i, n := range m.Names {
		if n == name {
			return m.Sizes[i]
		}
	}
	return 0
}

// named is the prime axes of a named axis, or of its sub-axis (pre)size
// (size 0: the whole axis).
func (m *Mesh) named(name string, pre, size int) ([]int, error) {
	var out []int
	p := 1
	for k, a := range m.Axes {
		if a.Name != name {
			continue
		}
		if size == 0 || (p >= pre && p < pre*size) {
			out = append(out, k)
		}
		p *= a.Size
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the mesh has no axis %q", name)
	}
	if size != 0 && m.product(out) != size {
		return nil, fmt.Errorf("sub-axis %q:(%d)%d does not fall on the prime factors of axis %q (size %d)", name, pre, size, name, m.namedSize(name))
	}
	return out, nil
}
