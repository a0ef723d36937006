package hlo

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func ListAttr(in *Instruction, key string) ([]int64, error) {
	v, ok := in.Attr(key)
	if !ok {
		return nil, fmt.Errorf("no %s attribute", key)
	}
	l, ok := IntList(v)
	if !ok {
		return nil, fmt.Errorf("%s=%s is not a list of integers", key, v)
	}
	return l, nil
}

func OptList(in *Instruction, key string) ([]int64, error) {
	if _, ok := in.Attr(key); !ok {
		return nil, nil
	}
	return ListAttr(in, key)
}

func IntAttr(in *Instruction, key string) (int64, error) {
	v, ok := in.Attr(key)
	if !ok {
		return 0, fmt.Errorf("no %s attribute", key)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%s is not an integer", key, v)
	}
	return n, nil
}

// ConvDims are the dimension numbers of a convolution, from dim_labels.
type ConvDims struct {
	LhsBatch, LhsFeature int   // lhs batch and feature dimensions
	LhsSpatial           []int // lhs spatial dimensions, in spatial order
	RhsIn, RhsOut        int   // rhs input and output feature dimensions
	RhsSpatial           []int // rhs spatial dimensions
	OutBatch, OutFeature int   // output batch and feature dimensions
	OutSpatial           []int // output spatial dimensions
}

func ParseDimLabels(v string) (ConvDims, error) {
	var d ConvDims
	parts := strings.Split(v, "->")
	io := strings.Split(parts[0], "_")
	if len(parts) != 2 || len(io) != 2 {
		return d, fmt.Errorf("bad dim_labels %q", v)
	}
	spatial := func(s string, letters string) (map[byte]int, []int, error) {
		pos := map[byte]int{}
		var sp []int
		for j := 0; j < len(s); j++ {
			c := s[j]
			switch {
			case c >= '0' && c <= '9':
				k := int(c - '0')
				for len(sp) <= k {
					sp = append(sp, -1)
				}
				sp[k] = j
			case strings.IndexByte(letters, c) >= 0:
				if _, dup := pos[c]; dup {
					return nil, nil, fmt.Errorf("bad dim_labels %q: %c twice", v, c)
				}
				pos[c] = j
			default:
				return nil, nil, fmt.Errorf("bad dim_labels %q", v)
			}
		}
		// Every letter once, every spatial dimension 0..n-1 once: the
		// labels name each dimension of a rank-(n+2) array.
		for j := 0; j < len(letters); j++ {
			if _, ok := pos[letters[j]]; !ok {
				return nil, nil, fmt.Errorf("bad dim_labels %q: %q has no %c", v, s, letters[j])
			}
		}
		for k, at := range sp {
			if at < 0 {
				return nil, nil, fmt.Errorf("bad dim_labels %q: %q has no spatial dimension %d", v, s, k)
			}
		}
		if len(sp)+2 != len(s) {
			return nil, nil, fmt.Errorf("bad dim_labels %q: %q names a dimension twice", v, s)
		}
		return pos, sp, nil
	}
	lp, ls, err := spatial(io[0], "bf")
	if err != nil {
		return d, err
	}
	rp, rs, err := spatial(io[1], "io")
	if err != nil {
		return d, err
	}
	op, os, err := spatial(parts[1], "bf")
	if err != nil {
		return d, err
	}
	d = ConvDims{LhsBatch: lp['b'], LhsFeature: lp['f'], LhsSpatial: ls, RhsIn: rp['i'], RhsOut: rp['o'], RhsSpatial: rs, OutBatch: op['b'], OutFeature: op['f'], OutSpatial: os}
	if len(ls) != len(rs) || len(ls) != len(os) {
		return d, fmt.Errorf("dim_labels %q: spatial dimension counts differ", v)
	}
	return d, nil
}

// Window is a parsed window attribute.
type Window struct {
	Size, Stride, PadLo, PadHi, LhsDil, RhsDil []int64
	RhsRev                                     []bool // kernel reversed in this dimension
}

func ParseWindow(v string, n int) (Window, error) {
	w := Window{}
	ones := func() []int64 {
		o := make([]int64, n)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	w.Size, w.Stride, w.LhsDil, w.RhsDil = ones(), ones(), ones(), ones()
	w.PadLo, w.PadHi = make([]int64, n), make([]int64, n)
	body := strings.Trim(strings.TrimSpace(v), "{}")
	for _, f := range strings.Fields(body) {
		k, val, ok := strings.Cut(f, "=")
		if !ok {
			return w, fmt.Errorf("bad window item %q", f)
		}
		items := strings.Split(val, "x")
		if len(items) != n {
			return w, fmt.Errorf("window %s has %d dimensions, the convolution %d", k, len(items), n)
		}
		for i, it := range items {
			if k == "pad" {
				lo, hi, _ := strings.Cut(it, "_")
				a, e1 := strconv.ParseInt(lo, 10, 64)
				b, e2 := strconv.ParseInt(hi, 10, 64)
				if e1 != nil || e2 != nil {
					return w, fmt.Errorf("bad pad %q", it)
				}
				w.PadLo[i], w.PadHi[i] = a, b
				continue
			}
			x, err := strconv.ParseInt(it, 10, 64)
			if err != nil {
				return w, fmt.Errorf("bad window %s %q", k, it)
			}
			switch k {
			case "size":
				w.Size[i] = x
			case "stride":
				w.Stride[i] = x
			case "lhs_dilate":
				w.LhsDil[i] = x
			case "rhs_dilate":
				w.RhsDil[i] = x
			case "rhs_reversal":
				if w.RhsRev == nil {
					w.RhsRev = make([]bool, n)
				}
				w.RhsRev[i] = x != 0
			}
		}
	}
	return w, nil
}

func ParseFloatAttr(v string) (float64, error) {
	return strconv.ParseFloat(strings.Trim(v, `"`), 64)
}

// AttrOr is the value of in's attribute key, or def when in has none.
func AttrOr(in *Instruction, key, def string) string {
	if v, ok := in.Attr(key); ok {
		return v
	}
	return def
}

// IndexingDims marks the window dimensions among n result (gather) or
// update (scatter) dimensions, and lists the operand dimensions that are
// neither collapsed/inserted nor batching, in increasing order: the ones the
// window dimensions walk.
func IndexingDims(n int, windowDims []int64, rank int, collapsed, batching []int64) ([]bool, []int, error) {
	isWindow := make([]bool, n)
	for i, d := range windowDims {
		if d < 0 || int(d) >= n || i > 0 && d <= windowDims[i-1] {
			return nil, nil, fmt.Errorf("window dimensions %v are not increasing dimensions of a rank-%d result", windowDims, n)
		}
		isWindow[d] = true
	}
	skip := make([]bool, rank)
	for _, d := range append(append([]int64{}, collapsed...), batching...) {
		if d < 0 || int(d) >= rank || skip[d] {
			return nil, nil, fmt.Errorf("collapsed and batching dimensions %v %v are not distinct dimensions of the rank-%d operand", collapsed, batching, rank)
		}
		skip[d] = true
	}
	var window []int
	for d := range rank {
		if !skip[d] {
			window = append(window, d)
		}
	}
	if len(window) != len(windowDims) {
		return nil, nil, fmt.Errorf("%d window dimensions for %d operand dimensions left after collapsing", len(windowDims), len(window))
	}
	return isWindow, window, nil
}

// CheckIndexMap: the dimensions start indices address are distinct
// operand dimensions.
func CheckIndexMap(name string, m []int64, rank int) error {
	seen := make([]bool, rank)
	for _, d := range m {
		if d < 0 || int(d) >= rank || seen[d] {
			return fmt.Errorf("%s %v: not distinct dimensions of the rank-%d operand", name, m, rank)
		}
		seen[d] = true
	}
	return nil
}

// CheckBatching: the operand's and the indices' batching dimensions pair
// up with equal sizes.
func CheckBatching(opDims, opBatch, idxDims, idxBatch []int64) error {
	if len(opBatch) != len(idxBatch) {
		return fmt.Errorf("%d operand batching dimensions, %d index batching dimensions", len(opBatch), len(idxBatch))
	}
	for i := range opBatch {
		a, b := opBatch[i], idxBatch[i]
		if a < 0 || int(a) >= len(opDims) || b < 0 || int(b) >= len(idxDims) || opDims[a] != idxDims[b] {
			return fmt.Errorf("batching dimension %d of the operand and %d of the indices differ", a, b)
		}
	}
	return nil
}

func AttrIntOr(in *Instruction, key string, def int64) int64 {
	v, ok := in.Attr(key)
	if !ok {
		return def
	}
	x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return def
	}
	return x
}

// UnquotedKey finds a JSON object key written without quotes (XLA's tests
// write backend_config as proto text in braces, {conv_result_scale:1}).
var UnquotedKey = regexp.MustCompile(`([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:`)

// DotDims reads a dot's batch and contracting dimension lists.
func DotDims(in *Instruction) (lb, lc, rb, rc []int64, err error) {
	get := func(k string) []int64 {
		v, _ := in.Attr(k)
		if v == "" {
			return nil
		}
		l, ok := IntList(v)
		if !ok && err == nil {
			err = fmt.Errorf("bad %s %q", k, v)
		}
		return l
	}
	return get("lhs_batch_dims"), get("lhs_contracting_dims"), get("rhs_batch_dims"), get("rhs_contracting_dims"), err
}

// FreeDims are the dims of a rank-r operand that are neither batch nor
// contracting, in order.
func FreeDims(r int, batch, contr []int64) []int64 {
	var out []int64
	for d := range r {
		if !slices.Contains(batch, int64(d)) && !slices.Contains(contr, int64(d)) {
			out = append(out, int64(d))
		}
	}
	return out
}

// SliceDim is one dimension of a slice's slice={[start:limit:stride], ...}.
type SliceDim struct{ Start, Limit, Stride int64 }

// SliceDims reads in's slice attribute, one entry per range, stride 1
// where none is written. It reads what the verifier has checked (a number
// that does not parse reads as 0); the verifier's own checks name the
// range that is wrong.
func SliceDims(in *Instruction) []SliceDim {
	sv, _ := in.Attr("slice")
	ranges := strings.Split(strings.Trim(sv, "{}"), ",")
	out := make([]SliceDim, len(ranges))
	for i, r := range ranges {
		parts := strings.Split(strings.Trim(strings.TrimSpace(r), "[]"), ":")
		out[i].Start, _ = strconv.ParseInt(parts[0], 10, 64)
		if len(parts) > 1 {
			out[i].Limit, _ = strconv.ParseInt(parts[1], 10, 64)
		}
		out[i].Stride = 1
		if len(parts) == 3 {
			out[i].Stride, _ = strconv.ParseInt(parts[2], 10, 64)
		}
	}
	return out
}

// PadDim is one dimension of a pad's padding=lo_hi_interior x ... (each
// number may be negative but the interior).
type PadDim struct{ Lo, Hi, Interior int64 }

// PadDims reads in's padding attribute, one entry per dimension, interior
// 0 where none is written (a scalar's empty padding reads as one entry of
// zeros: callers that accept it check the rank). Like SliceDims it reads
// what the verifier has checked.
func PadDims(in *Instruction) []PadDim {
	pv, _ := in.Attr("padding")
	per := strings.Split(pv, "x")
	out := make([]PadDim, len(per))
	for i, p := range per {
		f := strings.Split(p, "_")
		n := []*int64{&out[i].Lo, &out[i].Hi, &out[i].Interior}
		for j := 0; j < len(f) && j < 3; j++ {
			*n[j], _ = strconv.ParseInt(f[j], 10, 64)
		}
	}
	return out
}
