package lowering

import (
	"fmt"
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// A concatenate fused with the slices, reshapes and transposes of its
// operands (fusion.FuseOptions.ViewRoots: im2col's windows of one padded
// array, a transposed convolution's phases) is one copy kernel: each
// operand is a strided view of a fusion operand, DMAed straight into its
// place in the result. Unfused, every window was a kernel of its own
// copying it into an HBM temporary that the concatenate then copied again
// (conv_transpose_upsample: 32 such kernels of about 290 cycles).

// viewConcat lowers fusion in (body, root: a concatenate) as that kernel,
// or returns false with nothing emitted when an operand is not a view.
func (c *compiler) viewConcat(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) (bool, error) {
	if root == nil || root.Opcode != hlo.OpConcatenate || in.Shape.IsTuple || root.Shape == nil || root.Shape.IsTuple {
		return false, nil
	}
	d, _ := hlo.IntList(hlo.AttrOr(root, "dimensions", "{}"))
	if len(d) != 1 || d[0] < 0 || int(d[0]) >= len(root.Shape.Dims) {
		return false, nil
	}
	byName := map[string]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
	}
	views := make([]view, len(root.Operands))
	dims := make([][]int64, len(root.Operands))
	for i, o := range root.Operands {
		w, od, ok := c.operandView(in, byName[o.Name], byName)
		if !ok {
			return false, nil
		}
		views[i], dims[i] = w, od
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return true, err
	}
	c.bufs[in.Name] = out
	c.kernelHeader(in, "copy", 0, 2*in.Shape.Bytes())
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	ost := hlo.Strides(root.Shape.Dims)
	var at int64
	for i := range views {
		if prod(dims[i]) == 0 {
			continue
		}
		part := view{v: out, off: at * ost[d[0]], strides: ost}
		if err := c.emitCopy(in, emit, part, views[i], dims[i]); err != nil {
			return true, err
		}
		at += dims[i][d[0]]
	}
	emit("barrier")
	return true, nil
}

// operandView is the access pattern of body value x, and x's dims, when
// x only moves the elements of a fusion operand: reshapes and bitcasts of
// a row-major run (or ones that only add or drop dims of one), slices,
// transposes and reverses.
func (c *compiler) operandView(in, x *hlo.Instruction, byName map[string]*hlo.Instruction) (view, []int64, bool) {
	if x == nil || x.Shape == nil || x.Shape.IsTuple {
		return view{}, nil, false
	}
	if x.Opcode == hlo.OpParameter {
		if int(x.ParamNumber) >= len(in.Operands) {
			return view{}, nil, false
		}
		v := c.bufs[in.Operands[x.ParamNumber].Name]
		if v == nil || v.tuple != nil || v.empty || v.shape.Elem != x.Shape.Elem {
			return view{}, nil, false
		}
		return view{v: v, strides: hlo.Strides(v.shape.Dims)}, slices.Clone(v.shape.Dims), true
	}
	if !viewMoveOps[x.Opcode] || len(x.Operands) != 1 {
		return view{}, nil, false
	}
	w, dims, ok := c.operandView(in, byName[x.Operands[0].Name], byName)
	if !ok {
		return view{}, nil, false
	}
	switch x.Opcode {
	case hlo.OpSlice:
		ranges := hlo.SliceDims(x)
		if len(ranges) != len(dims) {
			return view{}, nil, false
		}
		st := slices.Clone(w.strides)
		for i, r := range ranges {
			w.off += r.Start * st[i]
			st[i] *= r.Stride
		}
		w.strides = st
	case hlo.OpTranspose:
		perm, ok := hlo.IntList(hlo.AttrOr(x, "dimensions", "{}"))
		if !ok || len(perm) != len(dims) {
			return view{}, nil, false
		}
		st := make([]int64, len(perm))
		for k, p := range perm {
			st[k] = w.strides[p]
		}
		w.strides = st
	case hlo.OpReverse:
		rd, _ := hlo.IntList(hlo.AttrOr(x, "dimensions", "{}"))
		st := slices.Clone(w.strides)
		for _, k := range rd {
			if k < 0 || int(k) >= len(st) {
				return view{}, nil, false
			}
			w.off += (dims[k] - 1) * st[k]
			st[k] = -st[k]
		}
		w.strides = st
	default: // reshape, bitcast
		st, ok := reshapeStrides(dims, w.strides, x.Shape.Dims)
		if !ok {
			return view{}, nil, false
		}
		w.strides = st
	}
	return w, slices.Clone(x.Shape.Dims), true
}

// viewMoveOps are the ops operandView follows.
var viewMoveOps = hlo.OpSet("slice reshape bitcast transpose reverse")

// reshapeStrides are the strides reading dims to of a view of dims from
// with strides st: a row-major run takes any reshape; otherwise only dims
// of one may come or go.
func reshapeStrides(from, st, to []int64) ([]int64, bool) {
	if prod(from) != prod(to) {
		return nil, false
	}
	if slices.Equal(st, hlo.Strides(from)) {
		return hlo.Strides(to), true
	}
	var keep []int64 // the strides of from's dims of more than one
	for i, n := range from {
		if n != 1 {
			keep = append(keep, st[i])
		}
	}
	out := make([]int64, len(to))
	k := 0
	for i, n := range to {
		if n == 1 {
			continue // any stride: a dim of one is never stepped
		}
		if k >= len(keep) {
			return nil, false
		}
		out[i] = keep[k]
		k++
	}
	var big []int64
	for _, n := range from {
		if n != 1 {
			big = append(big, n)
		}
	}
	var bigTo []int64
	for _, n := range to {
		if n != 1 {
			bigTo = append(bigTo, n)
		}
	}
	return out, k == len(keep) && slices.Equal(big, bigTo)
}
