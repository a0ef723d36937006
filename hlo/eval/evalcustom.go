package eval

import (
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/expand"
	"slices"
)

func (e *Evaluator) neuronActivation(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) != 1 || ops[0].Shape.IsTuple || !hlo.SameShape(ops[0].Shape, in.Shape) {
		return nil, e.Fail(in, "an activation custom call takes one array of the result's shape")
	}
	f := expand.NeuronActivations[expand.NeuronActivation(in)]
	out := &Value{Shape: in.Shape, Data: make([]float64, len(ops[0].Data))}
	for i, x := range ops[0].Data {
		out.Data[i] = hlo.Round(in.Shape.Elem, f(x))
	}
	return out, nil
}

func (e *Evaluator) dynamicGte(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) != 2 {
		return nil, e.Fail(in, "DynamicGte takes a tuple and an index")
	}
	if err := expand.DynamicGteCheck(in, ops[0].Shape, ops[1].Shape); err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	i := int(intAt(ops[1], 0))
	i = max(0, min(i, len(ops[0].Tuple)-1))
	return ops[0].Tuple[i], nil
}

// gemm evaluates a cuBLAS gemm call: alpha * dot(lhs, rhs) + beta * c,
// rounded to the result's type once, as the expanded form rounds each op.
func (e *Evaluator) gemm(in *hlo.Instruction, ops []*Value) (*Value, error) {
	d, alpha, beta, err := expand.GemmAsDot(in)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	if len(ops) < 2 || beta != 0 && len(ops) < 3 {
		return nil, e.Fail(in, "a gemm call needs lhs and rhs (and c when beta is not 0)")
	}
	v, err := e.dot(d, ops[:2])
	if err != nil {
		return nil, err
	}
	if alpha == 1 && beta == 0 {
		return withWorkspace(in.Shape, v), nil
	}
	out := &Value{Shape: v.Shape, Data: make([]float64, len(v.Data))}
	for i, x := range v.Data {
		y := x
		if alpha != 1 {
			y = hlo.Round(d.Shape.Elem, alpha*x)
		}
		if beta != 0 {
			c := ops[2].Data[i]
			if beta != 1 {
				c = hlo.Round(d.Shape.Elem, beta*c)
			}
			y = hlo.Round(d.Shape.Elem, y+c)
		}
		out.Data[i] = y
	}
	return withWorkspace(in.Shape, out), nil
}

// withWorkspace is a gemm call's value: the product, or the product and
// a zero workspace when the call returns both.
func withWorkspace(s *hlo.Shape, v *Value) *Value {
	if !s.IsTuple {
		return v
	}
	return &Value{Shape: s, Tuple: []*Value{v, ZerosOf(s.Tuple[1])}}
}

// raggedDot evaluates ragged-dot by its definition, element by element:
// each output element sums the products its group lets in, in float64,
// rounded once to the result type as dot is.
func (e *Evaluator) raggedDot(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) != 3 {
		return nil, e.Fail(in, "takes lhs, rhs and group_sizes")
	}
	l, r := numbers(ops[0]), numbers(ops[1])
	d, err := hlo.ParseRagged(in, l.Shape, r.Shape, ops[2].Shape)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	if want := d.OutDims(l.Shape, r.Shape); !slices.Equal(want, in.Shape.Dims) {
		return nil, e.Fail(in, "the result is %v, the instruction says %s", want, in.Shape)
	}
	sizes := numbers(ops[2]).Data
	// The groups' ends for each position of the context dims.
	var ends [][]int64
	for c := int64(0); c < int64(len(sizes)); c += d.Groups {
		ends = append(ends, hlo.GroupEnds(sizes[c:c+d.Groups], l.Shape.Dims[d.LhsRagged]))
	}
	ctxDims := make([]int64, len(d.SizeDims))
	for i, c := range d.SizeDims {
		ctxDims[i] = l.Shape.Dims[c]
	}
	ctxAt := make([]int64, len(d.SizeDims))
	li := make([]int64, len(l.Shape.Dims)) // the lhs index of the term
	group := func(pos int64) int64 {       // -1 past the last group
		for i, c := range d.SizeDims {
			ctxAt[i] = li[c]
		}
		for j, end := range ends[hlo.Flat(ctxAt, ctxDims)] {
			if pos < end {
				return int64(j)
			}
		}
		return -1
	}
	lf := hlo.FreeDims(len(l.Shape.Dims), d.LhsBatch, d.LhsContracting)
	rf := d.RhsFree(len(r.Shape.Dims))
	ls, rs := hlo.Strides(l.Shape.Dims), hlo.Strides(r.Shape.Dims)
	cdims := make([]int64, len(d.LhsContracting))
	for i, c := range d.LhsContracting {
		cdims[i] = l.Shape.Dims[c]
	}
	nc := hlo.Prod(cdims)
	out := NewArray(in.Shape)
	idx := make([]int64, len(in.Shape.Dims))
	ci := make([]int64, len(cdims))
	for o := range out.Data {
		hlo.Unflatten(int64(o), in.Shape.Dims, idx)
		k := 0
		g := int64(-1)
		if d.Mode == 2 {
			g, k = idx[0], 1
		}
		var lbase, rbase int64
		for i := range d.LhsBatch {
			li[d.LhsBatch[i]] = idx[k]
			lbase += idx[k] * ls[d.LhsBatch[i]]
			rbase += idx[k] * rs[d.RhsBatch[i]]
			k++
		}
		for _, f := range lf {
			li[f] = idx[k]
			lbase += idx[k] * ls[f]
			k++
		}
		for _, f := range rf {
			rbase += idx[k] * rs[f]
			k++
		}
		switch d.Mode {
		case 1, 3:
			j := group(li[d.LhsRagged])
			if j < 0 {
				continue // past the last group: zero
			}
			if d.Mode == 1 {
				rbase += j * rs[d.RhsGroup]
			}
		}
		var sum float64
		for c := range nc {
			hlo.Unflatten(c, cdims, ci)
			lo, ro := lbase, rbase
			for i := range d.LhsContracting {
				li[d.LhsContracting[i]] = ci[i]
				lo += ci[i] * ls[d.LhsContracting[i]]
				ro += ci[i] * rs[d.RhsContracting[i]]
			}
			other := d.Mode == 2 && group(li[d.LhsRagged]) != g
			if !other { // another group's terms are not this result's
				sum += l.Data[lo] * r.Data[ro]
			}
		}
		out.Data[o] = hlo.Round(in.Shape.Elem, sum)
	}
	return out, nil
}
