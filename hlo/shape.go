package hlo

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Elems is the number of elements of an array shape (tuples: the sum).
// elemsWithin multiplies dims, reporting whether the product stays within
// limit; beyond it, the product is given as text (it may not fit 64 bits).
func elemsWithin(dims []int64, limit int64) (string, bool) {
	n := new(big.Int).SetInt64(1)
	for _, d := range dims {
		n.Mul(n, big.NewInt(max(d, 0)))
	}
	if n.IsInt64() && n.Int64() <= limit {
		return n.String(), true
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return fmt.Sprintf("%.4g", f), false
}

func (s *Shape) Elems() int64 {
	if s == nil {
		return 0
	}
	if s.IsTuple {
		var n int64
		for _, t := range s.Tuple {
			n += t.Elems()
		}
		return n
	}
	n := int64(1)
	for _, d := range s.Dims {
		n *= max(d, 0)
	}
	return n
}

// Bytes is the size of the shape's data (tuples: the sum of their elements).
func (s *Shape) Bytes() int64 {
	if s == nil {
		return 0
	}
	if s.IsTuple {
		var n int64
		for _, t := range s.Tuple {
			n += t.Bytes()
		}
		return n
	}
	return (s.Elems()*int64(ElemBits(s.Elem)) + 7) / 8
}

// IntList parses an attribute value "{1,2,3}" (or "{}").
func IntList(v string) ([]int64, bool) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "{") || !strings.HasSuffix(v, "}") {
		return nil, false
	}
	body := strings.TrimSpace(v[1 : len(v)-1])
	if body == "" {
		return []int64{}, true
	}
	var out []int64
	for _, f := range strings.Split(body, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// Strides returns row-major strides of dims.
func Strides(dims []int64) []int64 {
	st := make([]int64, len(dims))
	n := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		st[i] = n
		n *= dims[i]
	}
	return st
}

// Unflatten writes the multi-index of flat position i into idx.
func Unflatten(i int64, dims []int64, idx []int64) {
	for d := len(dims) - 1; d >= 0; d-- {
		if dims[d] > 0 {
			idx[d] = i % dims[d]
			i /= dims[d]
		}
	}
}

func Flat(idx, dims []int64) int64 {
	var j int64
	for d := range dims {
		j = j*dims[d] + idx[d]
	}
	return j
}

// SameShape reports whether a and b have the same element types and
// dimensions, tuples element by element, layouts aside.
func SameShape(a, b *Shape) bool {
	if a.IsTuple != b.IsTuple {
		return false
	}
	if a.IsTuple {
		if len(a.Tuple) != len(b.Tuple) {
			return false
		}
		for i := range a.Tuple {
			if !SameShape(a.Tuple[i], b.Tuple[i]) {
				return false
			}
		}
		return true
	}
	if a.Elem != b.Elem || len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] {
			return false
		}
	}
	return true
}

func Array(elem string, dims []int64) *Shape { return &Shape{Elem: elem, Dims: dims} }

func SameDims(a, b *Shape) bool {
	if len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] {
			return false
		}
	}
	return true
}

// Free returns dims without the listed indices, in order.
func Free(dims []int64, a, b []int64) []int64 {
	skip := map[int64]bool{}
	for _, x := range a {
		skip[x] = true
	}
	for _, x := range b {
		skip[x] = true
	}
	out := []int64{}
	for i, d := range dims {
		if !skip[int64(i)] {
			out = append(out, d)
		}
	}
	return out
}

func IntsText(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return "{" + strings.Join(s, ",") + "}"
}

func Iota64(lo, hi int) []int64 {
	var v []int64
	for i := lo; i < hi; i++ {
		v = append(v, int64(i))
	}
	return v
}

func Prod(v []int64) int64 {
	n := int64(1)
	for _, x := range v {
		n *= x
	}
	return n
}

func EqualDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Positions lists every index of a box of the given extents, row-major.
func Positions(ext []int64) [][]int64 {
	out := [][]int64{{}}
	for _, e := range ext {
		var next [][]int64
		for _, p := range out {
			for i := int64(0); i < e; i++ {
				next = append(next, append(append([]int64{}, p...), i))
			}
		}
		out = next
	}
	return out
}

func Ones(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}
