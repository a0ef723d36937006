package eval

import (
	"fmt"
	"math"
)

// BitDiff describes the first element where a and b differ in their bits,
// tuples element by element (any two NaNs are equal: payloads are not
// values); "" when they are the same bits. Transforms that must not change
// a value (fusion, expansions exact by construction, a device split) are
// checked with it.
func BitDiff(a, b *Value) string {
	if len(a.Tuple) != len(b.Tuple) {
		return fmt.Sprintf("a tuple of %d, against %d", len(a.Tuple), len(b.Tuple))
	}
	for i := range a.Tuple {
		if d := BitDiff(a.Tuple[i], b.Tuple[i]); d != "" {
			return fmt.Sprintf("{%d}: %s", i, d)
		}
	}
	if len(a.Data) != len(b.Data) {
		return fmt.Sprintf("%d elements, against %d", len(a.Data), len(b.Data))
	}
	for i, x := range a.Data {
		y := b.Data[i]
		if math.Float64bits(x) != math.Float64bits(y) && !(math.IsNaN(x) && math.IsNaN(y)) {
			return fmt.Sprintf("element %d: %v, against %v", i, x, y)
		}
	}
	return ""
}

// OutfeedLeaves lists the arrays of outfeed records, record by record,
// each depth first: Check compares them after the outputs.
func OutfeedLeaves(recs []*Value) []*Value {
	var out []*Value
	for _, r := range recs {
		out = append(out, Leaves(r)...)
	}
	return out
}

// Leaves lists a value's arrays, depth first: the array itself, or the
// arrays of a tuple's elements in order, nested tuples flattened. Outputs
// are numbered in this order.
func Leaves(v *Value) []*Value {
	if v.Tuple == nil && (v.Shape == nil || !v.Shape.IsTuple) {
		return []*Value{v}
	}
	var out []*Value
	for _, t := range v.Tuple {
		out = append(out, Leaves(t)...)
	}
	return out
}
