package eval

import (
	"cmp"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"slices"
	"sort"
)

// sortOp is XLA's sort: every operand is permuted along one dimension by the
// order the comparator defines on the operands' elements at each position.
// The comparator takes 2n scalars (lhs and rhs of each operand in turn) and
// says whether lhs goes first. A comparator that is one compare of the first
// operand's pair is run directly; any other is evaluated per comparison.
func (e *Evaluator) sortOp(in *hlo.Instruction, ops []*Value) (*Value, error) {
	c, err := e.Callee(in, "to_apply")
	if err != nil {
		return nil, err
	}
	dims, err := hlo.ListAttr(in, "dimensions")
	if err != nil || len(dims) != 1 || len(ops) == 0 {
		return nil, e.Fail(in, "needs operands and one sort dimension")
	}
	shape := ops[0].Shape.Dims
	d := dims[0]
	if d < 0 || int(d) >= len(shape) {
		return nil, e.Fail(in, "sort dimension %d out of range", d)
	}
	for _, o := range ops[1:] {
		if !slices.Equal(o.Shape.Dims, shape) {
			return nil, e.Fail(in, "operands differ in shape")
		}
	}
	n := len(ops)
	length := shape[d]
	st := hlo.Strides(shape)
	outer := ops[0].Shape.Elems() / max(length, 1)
	outs := make([][]float64, n)
	for k := range outs {
		outs[k] = make([]float64, len(ops[k].Data))
	}
	less, err := e.comparator(in, c, ops)
	if err != nil {
		return nil, err
	}
	// Positions along the sort dimension; the other dimensions enumerate
	// the rows.
	rowDims := slices.Clone(shape)
	rowDims[d] = 1
	ri := make([]int64, len(shape))
	perm := make([]int64, length)
	var cerr error
	for r := int64(0); r < outer; r++ {
		hlo.Unflatten(r, rowDims, ri)
		base := hlo.Flat(ri, shape)
		for i := range perm {
			perm[i] = int64(i)
		}
		cmp := func(i, j int) bool {
			ok, err := less(base+perm[i]*st[d], base+perm[j]*st[d])
			if err != nil && cerr == nil {
				cerr = err
			}
			return ok
		}
		// Always stable: a valid order for is_stable=false too, and the
		// same on every run and every implementation.
		sort.SliceStable(perm, cmp)
		if cerr != nil {
			return nil, cerr
		}
		for i, p := range perm {
			for k := range outs {
				outs[k][base+int64(i)*st[d]] = ops[k].Data[base+p*st[d]]
			}
		}
	}
	if n == 1 && !in.Shape.IsTuple {
		return &Value{Shape: in.Shape, Data: outs[0]}, nil
	}
	t := &Value{Shape: in.Shape}
	for k := range outs {
		t.Tuple = append(t.Tuple, &Value{Shape: in.Shape.Tuple[k], Data: outs[k]})
	}
	return t, nil
}

// comparator returns "element i goes before element j" for sort.
func (e *Evaluator) comparator(in *hlo.Instruction, c *hlo.Computation, ops []*Value) (func(i, j int64) (bool, error), error) {
	// Fast path: ROOT compare(parameter(0), parameter(1)), direction=LT|GT.
	if r := c.Root; r != nil && r.Opcode == hlo.OpCompare && len(c.Instructions) == 2*len(ops)+1 {
		byName := map[string]*hlo.Instruction{}
		for _, x := range c.Instructions {
			byName[x.Name] = x
		}
		a, b := byName[r.Operands[0].Name], byName[r.Operands[1].Name]
		dir, _ := r.Attr("direction")
		typ, _ := r.Attr("type")
		if a != nil && b != nil && a.Opcode == hlo.OpParameter && b.Opcode == hlo.OpParameter &&
			a.ParamNumber == 0 && b.ParamNumber == 1 && (dir == "LT" || dir == "GT") {
			x := ops[0].Data
			elem := ops[0].Shape.Elem
			total := typ == "TOTALORDER" && hlo.IsFloat(elem)
			gt := dir == "GT"
			// s64 and u64 are carried as bits (evalbits.go): compared
			// as float64 they order by their bit patterns' float values.
			wide := elem == hlo.S64 || elem == hlo.U64
			return func(i, j int64) (bool, error) {
				p, q := x[i], x[j]
				switch {
				case total:
					p, q = scalar.TotalOrderCmp(p, q), 0
				case wide:
					c := cmpWide(elem, p, q)
					p, q = float64(c), 0
				}
				if gt {
					return p > q, nil
				}
				return p < q, nil
			}, nil
		}
	}
	args := make([]*Value, 2*len(ops))
	return func(i, j int64) (bool, error) {
		for k, o := range ops {
			args[2*k] = Scalar(o.Shape.Elem, o.Data[i])
			args[2*k+1] = Scalar(o.Shape.Elem, o.Data[j])
		}
		v, err := e.Call(c, args)
		if err != nil {
			return false, err
		}
		return v.Data[0] != 0, nil
	}, nil
}

// topkOp is XLA's topk: along the last dimension, the k largest values
// (largest=true, the default) or smallest, in that order, with their
// indices; floats in total order (NaN beyond infinity), ties by the lower
// index, as XLA's TopkDecomposer sorts.
func (e *Evaluator) topkOp(in *hlo.Instruction, ops []*Value) (*Value, error) {
	k, err := hlo.IntAttr(in, "k")
	x := ops[0]
	r := len(x.Shape.Dims)
	if err != nil || r == 0 || k < 0 || k > x.Shape.Dims[r-1] || !in.Shape.IsTuple || len(in.Shape.Tuple) != 2 {
		return nil, e.Fail(in, "needs k (at most the last dimension) and a (values, indices) result")
	}
	largest := true
	if v, ok := in.Attr("largest"); ok {
		largest = v == "true"
	}
	n := x.Shape.Dims[r-1]
	want := append(slices.Clone(x.Shape.Dims[:r-1]), k)
	for _, t := range in.Shape.Tuple {
		if t.IsTuple || !slices.Equal(t.Dims, want) {
			return nil, e.Fail(in, "the result %s should be two arrays of dims %v", in.Shape, want)
		}
	}
	rows := x.Shape.Elems() / max(n, 1)
	vals := NewArray(in.Shape.Tuple[0])
	idx := NewArray(in.Shape.Tuple[1])
	elem := x.Shape.Elem
	less := func(a, b float64) bool {
		switch {
		case hlo.IsFloat(elem):
			return scalar.TotalOrderCmp(a, b) < 0
		case elem == hlo.S64 || elem == hlo.U64:
			return cmpWide(elem, a, b) < 0
		}
		return a < b
	}
	perm := make([]int64, n)
	for row := range rows {
		data := x.Data[row*n : (row+1)*n]
		for i := range perm {
			perm[i] = int64(i)
		}
		sort.SliceStable(perm, func(i, j int) bool {
			a, b := data[perm[i]], data[perm[j]]
			if largest {
				return less(b, a)
			}
			return less(a, b)
		})
		for i := range k {
			vals.Data[row*k+i] = data[perm[i]]
			idx.Data[row*k+i] = float64(perm[i])
		}
	}
	return &Value{Shape: in.Shape, Tuple: []*Value{vals, idx}}, nil
}

// cmpWide orders two s64 or u64 elements carried as bits: -1, 0 or 1.
func cmpWide(elem string, a, b float64) int {
	if elem == hlo.S64 {
		return cmp.Compare(int64(scalar.Bits(elem, a)), int64(scalar.Bits(elem, b)))
	}
	return cmp.Compare(scalar.Bits(elem, a), scalar.Bits(elem, b))
}
