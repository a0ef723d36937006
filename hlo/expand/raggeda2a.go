package expand

import (
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
)

// ragged-all-to-all(input, output, input_offsets, send_sizes,
// output_offsets, recv_sizes) sends, for each update i, the rows
// input[input_offsets[i] : +send_sizes[i]] (along dim 0, the other dims
// whole) to the i-th peer of its replica group (update i of k per peer
// when the offset arrays hold k per peer), which writes them at
// output[output_offsets[i] :]; the output operand supplies every row no
// update writes. On one device — replica groups of one — every update is
// to the device itself: ExpandRaggedAllToAll rewrites it so, the updates
// applied in order. Groups of several devices stay, for the lowering and
// the evaluator to name as multi-device.
func ExpandRaggedAllToAll(m *hlo.Module) error {
	return rewriteEach(m, "ragged-all-to-all", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if hlo.GroupSize(in) > 1 {
			x.Out = append(x.Out, in)
			return nil
		}
		if len(ops) != 6 {
			return x.Errorf("ragged-all-to-all takes input, output, input_offsets, send_sizes, output_offsets and recv_sizes (here %d operands)", len(ops))
		}
		input, out := ops[0], ops[1]
		id, od := input.Shape.Dims, out.Shape.Dims
		if len(id) == 0 || len(od) != len(id) || !hlo.EqualDims(id[1:], od[1:]) || in.Shape.IsTuple || !hlo.EqualDims(in.Shape.Dims, od) {
			return x.Errorf("input %s and output %s must be arrays that differ in dim 0 at most, the result the output's shape", input.Shape, out.Shape)
		}
		k := int64(-1)
		for _, o := range ops[2:] {
			if len(o.Shape.Dims) != 1 || !hlo.IsInteger(o.Shape.Elem) || k >= 0 && o.Shape.Dims[0] != k {
				return x.Errorf("the offsets and sizes must be integer vectors of one length (here %s)", o.Shape)
			}
			k = o.Shape.Dims[0]
		}
		rows := od[0]
		r := len(od)
		zero := x.Constant(input.Shape.Elem, "0")
		pads := "0_0"
		for range r - 1 {
			pads += "x0_0"
		}
		padded := x.Emit("pad", input.Shape.Elem, append([]int64{id[0] + 2*rows}, id[1:]...), []*hlo.Instruction{input, zero},
			"padding", strconv.FormatInt(rows, 10)+"_"+strconv.FormatInt(rows, 10)+pads[3:])
		row := x.Emit("iota", "s32", od, nil, "iota_dimension", "0")
		at := func(v *hlo.Instruction, i int64) *hlo.Instruction {
			e := x.Reshape(x.Slice(v, []int64{i}, []int64{1}, []int64{1}), nil)
			if e.Shape.Elem != hlo.S32 {
				e = x.Convert(e, "s32")
			}
			return e
		}
		for i := range k {
			io, size, oo := at(ops[2], i), at(ops[3], i), at(ops[4], i)
			start := x.Binary("subtract", x.Binary("add", x.Constant("s32", strconv.FormatInt(rows, 10)), io), oo)
			idx := []*hlo.Instruction{padded, start}
			for range r - 1 {
				idx = append(idx, x.Constant("s32", "0"))
			}
			win := x.Emit("dynamic-slice", input.Shape.Elem, od, idx, "dynamic_slice_sizes", hlo.IntsText(od))
			lo := x.Emit("compare", "pred", od, []*hlo.Instruction{row, x.Broadcast(oo, od, nil)}, "direction", "GE")
			hi := x.Emit("compare", "pred", od, []*hlo.Instruction{row, x.Broadcast(x.Binary("add", oo, size), od, nil)}, "direction", "LT")
			mask := x.Emit("and", "pred", od, []*hlo.Instruction{lo, hi})
			out = x.Emit("select", out.Shape.Elem, od, []*hlo.Instruction{mask, win, out})
		}
		x.Finish(out)
		return nil
	})
}
