package expand

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strings"
)

// DynamicGte is the custom call XLA's TPU while-loop unroller leaves when
// it unstacks an array into a tuple of slices: DynamicGte(t, i) is element
// i of tuple t, whose elements all have one shape. The evaluator picks
// the element (the index clamped into range, as dynamic-slice clamps), and
// ExpandDynamicGte rewrites the call into the dynamic-slice of the
// elements stacked along a new leading dimension, which computes the same.

// IsDynamicGte reports whether in is a DynamicGte custom call.
func IsDynamicGte(in *hlo.Instruction) bool {
	if in.Opcode != hlo.OpCustomCall {
		return false
	}
	t, _ := in.Attr("custom_call_target")
	return strings.Trim(t, `"`) == "DynamicGte"
}

// DynamicGteCheck checks a DynamicGte's operands: a tuple of arrays of the
// result's shape and a scalar integer index.
func DynamicGteCheck(in *hlo.Instruction, tuple, index *hlo.Shape) error {
	if tuple == nil || !tuple.IsTuple || len(tuple.Tuple) == 0 {
		return fmt.Errorf("DynamicGte's first operand must be a non-empty tuple")
	}
	for i, s := range tuple.Tuple {
		if s.IsTuple || !hlo.EqualDims(s.Dims, in.Shape.Dims) || s.Elem != in.Shape.Elem {
			return fmt.Errorf("DynamicGte: tuple element %d is %s, not the result's %s", i, s, in.Shape)
		}
	}
	if index == nil || len(index.Dims) != 0 || !strings.HasPrefix(index.Elem, "s") && !strings.HasPrefix(index.Elem, "u") {
		return fmt.Errorf("DynamicGte's index must be an integer scalar")
	}
	return nil
}

// ExpandDynamicGte rewrites every DynamicGte custom call (see above).
func ExpandDynamicGte(m *hlo.Module) error {
	return rewriteEach(m, "custom-call", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if !IsDynamicGte(in) {
			x.Out = append(x.Out, in)
			return nil
		}
		if len(ops) != 2 {
			return x.Errorf("DynamicGte takes a tuple and an index")
		}
		if err := DynamicGteCheck(in, ops[0].Shape, ops[1].Shape); err != nil {
			return x.Errorf("%v", err)
		}
		s := in.Shape
		one := append([]int64{1}, s.Dims...)
		var parts []*hlo.Instruction
		for i := range ops[0].Shape.Tuple {
			g := x.Emit("get-tuple-element", s.Elem, s.Dims, ops[:1], "index", fmt.Sprint(i))
			parts = append(parts, x.Reshape(g, one))
		}
		stacked := x.Concatenate(parts, 0)
		starts := []*hlo.Instruction{ops[1]}
		zero := x.Constant(ops[1].Shape.Elem, "0")
		for range s.Dims {
			starts = append(starts, zero)
		}
		sl := x.Emit("dynamic-slice", s.Elem, one, append([]*hlo.Instruction{stacked}, starts...), "dynamic_slice_sizes", hlo.IntsText(one))
		x.Reshape(sl, s.Dims)
		return nil
	})
}
