package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
	"strings"
)

// ExpandGeneralReduces rewrites every reduce the vector unit has no
// reduction instruction for — several operands reduced together (argmax's
// value and index), or a reducer other than one add, maximum, minimum, and
// or or (a product, a comparator) — into elementwise applications of the
// reducer's body, as a tree: the operands are transposed so that the
// reduced dimensions come last and merged into one of n elements; each of
// ceil(log2 n) levels applies the body to the first half and the second
// half (an odd last element is set aside and folded in after the tree);
// the result is finally folded into the init values, which come first as
// in the evaluator. XLA leaves the order of a reduction unspecified; for
// an associative, commutative reducer (argmax and argmin with their
// index tie-break, integer products, max and min) every order gives the
// same bits, and float products differ from a sequential fold by rounding
// only. A reduce of no dimensions, whatever its reducer, becomes the body
// applied to each element and the init value. A reducer whose body is not
// elementwise (or has no body) is left as it is, for the lowering to name.
func ExpandGeneralReduces(m *hlo.Module) error {
	return rewriteEach(m, "reduce", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		name, _ := in.Attr("to_apply")
		body := m.Computation(strings.TrimPrefix(name, "%"))
		k := len(ops) / 2
		dimsAttr, _ := in.Attr("dimensions")
		dims, ok := hlo.IntList(dimsAttr)
		if !ok {
			return x.Errorf("bad dimensions %q", dimsAttr)
		}
		// A reduce of no dimensions folds each element into the init
		// value once: elementwise, whatever its reducer.
		if body == nil || k == 0 || len(ops) != 2*k || simpleReducer(body, k) && len(dims) > 0 || !elementwiseBody(body, 2*k, k) {
			x.Out = append(x.Out, in)
			return nil
		}
		res, err := x.treeReduce(body, ops[:k], ops[k:], dims)
		if err != nil {
			return err
		}
		x.FinishAll(res)
		return nil
	})
}

// simpleReducer reports whether body is one add, maximum, minimum, and or
// or of its two parameters: the reductions the vector unit has.
func simpleReducer(body *hlo.Computation, k int) bool {
	if k != 1 || len(body.Instructions) != 3 || body.Root == nil || len(body.Root.Operands) != 2 {
		return false
	}
	switch body.Root.Opcode {
	case hlo.OpAdd, hlo.OpMaximum, hlo.OpMinimum, hlo.OpAnd, hlo.OpOr:
		return true
	}
	return false
}

// elementwiseBody reports whether body takes nparams scalars and computes
// k scalar results with elementwise ops and scalar constants only.
func elementwiseBody(body *hlo.Computation, nparams, k int) bool {
	if body.Root == nil {
		return false
	}
	params := 0
	used := rewrite.LiveInstructions(body)
	for _, b := range body.Instructions {
		switch {
		case b.Opcode != hlo.OpParameter && !used[b]:
			continue // dead code (XLA's own test reducers hold some)
		case b.Shape == nil:
			return false
		case b.Opcode == hlo.OpParameter:
			if b.Shape.IsTuple || len(b.Shape.Dims) != 0 || int(b.ParamNumber) >= nparams {
				return false
			}
			params++
		case b.Opcode == hlo.OpConstant:
			if b.Shape.IsTuple || len(b.Shape.Dims) != 0 {
				return false
			}
		case b == body.Root && b.Opcode == hlo.OpTuple:
			if len(b.Operands) != k {
				return false
			}
		case !hlo.IsElementwise(b.Opcode) || b.Shape.IsTuple || len(b.Shape.Dims) != 0:
			return false
		}
	}
	if k > 1 && body.Root.Opcode != hlo.OpTuple {
		return false
	}
	return params == nparams
}

// treeReduce reduces inputs over dims with body (see ExpandGeneralReduces).
func (x *rewriter) treeReduce(body *hlo.Computation, inputs, inits []*hlo.Instruction, dims []int64) ([]*hlo.Instruction, error) {
	rank := len(inputs[0].Shape.Dims)
	reduced := map[int64]bool{}
	for _, d := range dims {
		if d < 0 || int(d) >= rank || reduced[d] {
			return nil, x.Errorf("bad reduce dimension %d", d)
		}
		reduced[d] = true
	}
	var perm, kept []int64
	n := int64(1)
	for d := 0; d < rank; d++ {
		if !reduced[int64(d)] {
			perm = append(perm, int64(d))
			kept = append(kept, inputs[0].Shape.Dims[d])
		}
	}
	for d := 0; d < rank; d++ {
		if reduced[int64(d)] {
			perm = append(perm, int64(d))
			n *= inputs[0].Shape.Dims[d]
		}
	}
	initsAt := func(shape []int64) []*hlo.Instruction {
		out := make([]*hlo.Instruction, len(inits))
		for i, v := range inits {
			out[i] = x.Broadcast(v, shape, nil)
		}
		return out
	}
	if n == 0 {
		return initsAt(kept), nil
	}
	cur := make([]*hlo.Instruction, len(inputs))
	work := append(append([]int64{}, kept...), n)
	for i, a := range inputs {
		cur[i] = x.Reshape(x.Transpose(a, perm), work)
	}
	// Slices [lo, lo+count) of the last dimension of every operand.
	part := func(vs []*hlo.Instruction, lo, count int64) []*hlo.Instruction {
		out := make([]*hlo.Instruction, len(vs))
		for i, v := range vs {
			d := v.Shape.Dims
			start, cnt, stride := make([]int64, len(d)), append([]int64{}, d...), make([]int64, len(d))
			for j := range stride {
				stride[j] = 1
			}
			start[len(d)-1], cnt[len(d)-1] = lo, count
			out[i] = x.Slice(v, start, cnt, stride)
		}
		return out
	}
	var odd [][]*hlo.Instruction
	for L := n; L > 1; L /= 2 {
		h := L / 2
		if L%2 == 1 {
			odd = append(odd, part(cur, 2*h, 1))
		}
		var err error
		if cur, err = x.Apply(body, append(part(cur, 0, h), part(cur, h, h)...)); err != nil {
			return nil, err
		}
	}
	for _, o := range odd {
		var err error
		if cur, err = x.Apply(body, append(cur, o...)); err != nil {
			return nil, err
		}
	}
	for i := range cur {
		cur[i] = x.Reshape(cur[i], kept)
	}
	return x.Apply(body, append(initsAt(kept), cur...))
}
