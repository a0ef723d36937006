package expand

import (
	"encoding/json"
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
	"strings"
)

// XLA's GPU backend rewrites sorts along the last dimension whose
// comparator is one compare of the keys into a CUB radix sort
// (SortRewriter): custom-call(keys[, values]) returning (keys, [values,]
// u8[n] scratch), backend_config SortOptions {descending}. A radix sort is
// stable and orders floats by their bits: -NaN < -inf < ... < -0 < +0 <
// ... < inf < NaN, the total order. ExpandCubSorts rewrites each call into
// the stable sort that means (a TOTALORDER compare for floats); the scratch
// is zeros.

// cubSortTargets are the radix-sort custom-call targets (the second before
// the scratch size is assigned).
var cubSortTargets = map[string]bool{"__cub$DeviceRadixSort": true, "__cub$DeviceRadixSortUnassignedScratchSize": true}

// IsCubSort reports whether in is a CUB radix-sort custom call.
func IsCubSort(in *hlo.Instruction) bool {
	if in.Opcode != hlo.OpCustomCall {
		return false
	}
	t, _ := in.Attr("custom_call_target")
	return cubSortTargets[strings.Trim(t, `"`)]
}

// cubDescending reads SortOptions' descending (false when not given, as
// the proto's default).
func cubDescending(in *hlo.Instruction) (bool, error) {
	raw, ok := in.Attr("backend_config")
	if !ok {
		return false, nil
	}
	if strings.HasPrefix(raw, `"`) {
		var err error
		if raw, err = strconv.Unquote(raw); err != nil {
			return false, fmt.Errorf("backend_config: %v", err)
		}
	}
	var opts struct {
		Descending *bool `json:"descending"`
	}
	if err := json.Unmarshal([]byte(hlo.UnquotedKey.ReplaceAllString(raw, `$1"$2":`)), &opts); err != nil {
		return false, fmt.Errorf("backend_config is not SortOptions ({\"descending\": bool}): %v", err)
	}
	return opts.Descending != nil && *opts.Descending, nil
}

// ExpandCubSorts replaces each CUB radix-sort call by a stable sort of its
// operands along their last dimension, keyed on the first.
func ExpandCubSorts(m *hlo.Module) error {
	return rewriteEach(m, "custom-call", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if !IsCubSort(in) {
			x.Out = append(x.Out, in) // another custom call: unchanged
			return nil
		}
		desc, err := cubDescending(in)
		if err != nil {
			return x.Errorf("%v", err)
		}
		s := in.Shape
		if len(ops) < 1 || len(ops) > 2 || !s.IsTuple || len(s.Tuple) != len(ops)+1 {
			return x.Errorf("a radix sort takes keys and optionally values and returns them sorted and a scratch buffer")
		}
		keys := ops[0].Shape
		for i, o := range ops {
			if o.Shape.IsTuple || len(o.Shape.Dims) == 0 || !hlo.EqualDims(o.Shape.Dims, keys.Dims) || !hlo.SameShape(s.Tuple[i], o.Shape) {
				return x.Errorf("operand %d %s: a radix sort's operands are arrays of one shape, returned as they are", i, o.Shape)
			}
		}
		if keys.Elem == hlo.Pred || strings.HasPrefix(keys.Elem, "c") {
			return x.Errorf("a radix sort of %s keys is not supported", keys.Elem)
		}
		dir := "LT"
		if desc {
			dir = "GT"
		}
		typ := "SIGNED"
		switch {
		case hlo.IsFloat(keys.Elem):
			typ = "TOTALORDER"
		case hlo.IsUnsigned(keys.Elem):
			typ = "UNSIGNED"
		}
		name := in.Name + ".radix_cmp"
		for i := 0; m.Computation(name) != nil; i++ {
			name = fmt.Sprintf("%s.radix_cmp%d", in.Name, i)
		}
		var ps []*hlo.Instruction
		for i, o := range ops {
			for j, side := range []string{"a", "b"} {
				ps = append(ps, &hlo.Instruction{Pos: in.Pos, Name: fmt.Sprintf("%s.%s%d", name, side, i),
					Shape: &hlo.Shape{Elem: o.Shape.Elem}, Opcode: "parameter", ParamNumber: int64(2*i + j)})
			}
		}
		root := &hlo.Instruction{Pos: in.Pos, Name: name + ".c", Shape: &hlo.Shape{Elem: "pred"}, Opcode: "compare", IsRoot: true,
			Operands: []*hlo.Operand{{Pos: in.Pos, Name: ps[0].Name}, {Pos: in.Pos, Name: ps[1].Name}},
			Attrs:    []hlo.Attr{{Pos: in.Pos, Key: "direction", Value: dir}, {Pos: in.Pos, Key: "type", Value: typ}}}
		m.Computations = append([]*hlo.Computation{{Pos: in.Pos, Name: name, Instructions: append(ps, root), Root: root}}, m.Computations...)
		last := hlo.IntsText([]int64{int64(len(keys.Dims) - 1)})
		var sorted []*hlo.Instruction
		if len(ops) == 1 {
			sorted = []*hlo.Instruction{x.Emit("sort", keys.Elem, keys.Dims, ops, "dimensions", last, "is_stable", "true", "to_apply", "%"+name)}
		} else {
			t := x.Emit("sort", "", nil, ops, "dimensions", last, "is_stable", "true", "to_apply", "%"+name)
			t.Shape = &hlo.Shape{IsTuple: true, Tuple: []*hlo.Shape{{Elem: keys.Elem, Dims: keys.Dims}, {Elem: ops[1].Shape.Elem, Dims: keys.Dims}}}
			for i, o := range ops {
				sorted = append(sorted, x.Emit("get-tuple-element", o.Shape.Elem, keys.Dims, []*hlo.Instruction{t}, "index", strconv.Itoa(i)))
			}
		}
		ws := s.Tuple[len(ops)]
		z := x.Broadcast(x.Constant(ws.Elem, "0"), ws.Dims, nil)
		x.Emit("tuple", "", nil, append(sorted, z)).Shape = s
		return nil
	})
}
