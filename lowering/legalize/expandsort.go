package legalize

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// ExpandSorts rewrites every sort into a bitonic sorting network over the
// sort dimension: its length n padded to a power of two N, then
// log2(N)(log2(N)+1)/2 phases, each comparing every element with its
// partner at distance j (i XOR j) in every row at once and keeping the one
// its place in the network asks for. The comparator's body is applied
// elementwise to the pairs (its scalar ops over arrays), so any comparator
// XLA allows works: several operands sorted by the first, tie-breaks,
// total order. Two operands ride along: each element's original position
// and whether it is padding. Padding goes last, and elements the
// comparator leaves unordered keep their original order, so the result is
// the stable sort's, the evaluator's order (always stable), for
// is_stable=false too.
//
// Why this network: it needs only slices, concatenates, selects and the
// comparator, which every chip has; a partner is read through contiguous
// shifted copies (a DMA engine moves strided slices element by element);
// its phases are as many as the bitonic networks TPUs sort with (n log^2
// n comparisons). Short networks are unrolled, longer ones a loop over
// phases: code does not grow with N.
func ExpandSorts(m *hlo.Module) error { return ExpandSortsExcept(nil)(m) }

// SortKernelFits says whether the compiler sorts, in a kernel of its own,
// rows of n elements (rows of them) with operands of the element types
// elems ordered by the comparator cmp (lowering's SRAM sort kernel).
type SortKernelFits func(cmp *hlo.Computation, elems []string, rows, n int64) bool

// ExpandSortsExcept is ExpandSorts for the sorts along their last
// dimension that kernel does not take (nil: all).
func ExpandSortsExcept(kernel SortKernelFits) func(*hlo.Module) error {
	return func(m *hlo.Module) error { return expandSorts(m, kernel) }
}

func expandSorts(m *hlo.Module, kernel SortKernelFits) error {
	return rewriteEach(m, "sort", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if kernel != nil {
			if cmp, elems, rows, n, last := sortShape(m, in, ops); last && kernel(cmp, elems, rows, n) {
				x.Out = append(x.Out, in) // the compiler's sort kernel
				return nil
			}
		}
		name, _ := in.Attr("to_apply")
		cmp := m.Computation(strings.TrimPrefix(name, "%"))
		dimsAttr, _ := in.Attr("dimensions")
		dims, ok := hlo.IntList(dimsAttr)
		if cmp == nil || !ok || len(dims) != 1 || len(ops) == 0 {
			x.Out = append(x.Out, in) // malformed: left for the verifier and the lowering to name
			return nil
		}
		if cmp.Root != nil && cmp.Root.Shape != nil && cmp.Root.Shape.Elem != hlo.Pred {
			return x.Errorf("the comparator %s returns %s, not pred", cmp.Name, cmp.Root.Shape.Elem)
		}
		if !scalarBody(cmp, 2*len(ops)) {
			return x.Errorf("the comparator %s is not scalar elementwise ops of its %d parameters", cmp.Name, 2*len(ops))
		}
		d := int(dims[0])
		for _, o := range ops {
			if o.Shape.IsTuple || d < 0 || d >= len(o.Shape.Dims) || !hlo.EqualDims(o.Shape.Dims, ops[0].Shape.Dims) {
				return x.Errorf("operands of one shape and a sort dimension in range are needed")
			}
		}
		res := ops
		if n := ops[0].Shape.Dims[d]; n > 1 {
			var err error
			if res, err = x.bitonic(cmp, ops, d); err != nil {
				return err
			}
		}
		x.FinishAll(res)
		return nil
	})
}

// scalarBody reports whether body takes nparams scalars and computes
// one scalar (a sort's comparator, a map's function) with elementwise ops (bitcast-converts of one width among
// them) and scalar constants.
func scalarBody(body *hlo.Computation, nparams int) bool {
	if body.Root == nil || body.Root.Opcode == hlo.OpTuple {
		return false
	}
	params := 0
	for _, b := range body.Instructions {
		switch {
		case b.Shape == nil || b.Shape.IsTuple || len(b.Shape.Dims) != 0:
			return false
		case b.Opcode == hlo.OpParameter:
			if int(b.ParamNumber) >= nparams {
				return false
			}
			params++
		case b.Opcode == hlo.OpConstant, hlo.IsElementwise(b.Opcode), b.Opcode == hlo.OpBitcastConvert, b.Opcode == hlo.OpCopy:
		default:
			return false
		}
	}
	return params == nparams
}

// bitonicNet is one sort's network: the operands' padded shape, the sort
// dimension and the comparator, with k sorted operands followed by each
// element's original position and validity.
type bitonicNet struct {
	cmp    *hlo.Computation
	k      int
	d      int
	n, N   int64
	padded []int64
}

// unrolledBitonicLength: networks over at most this many positions are
// unrolled (at most 10 phases); longer ones are a loop over phases, so
// that code does not grow with the length.
const unrolledBitonicLength = 16

// bitonic sorts ops along d (see ExpandSorts).
func (x *rewriter) bitonic(cmp *hlo.Computation, ops []*hlo.Instruction, d int) ([]*hlo.Instruction, error) {
	shape := ops[0].Shape.Dims
	net := &bitonicNet{cmp: cmp, k: len(ops), d: d, n: shape[d], N: 1}
	for net.N < net.n {
		net.N *= 2
	}
	net.padded = append([]int64{}, shape...)
	net.padded[d] = net.N
	cur := make([]*hlo.Instruction, 0, len(ops)+2)
	for _, a := range ops {
		if net.N > net.n {
			spec := make([]string, len(shape))
			for i := range spec {
				spec[i] = "0_0"
			}
			spec[d] = fmt.Sprintf("0_%d", net.N-net.n)
			a = x.Emit("pad", a.Shape.Elem, net.padded, []*hlo.Instruction{a, x.Constant(a.Shape.Elem, "0")}, "padding", strings.Join(spec, "x"))
		}
		cur = append(cur, a)
	}
	// The original position and validity of every element, carried along.
	cur = append(cur, net.pos(x), net.cmpS(x, net.pos(x), net.splat(x, x.Constant("s32", strconv.FormatInt(net.n, 10))), "LT"))
	var err error
	if net.N <= unrolledBitonicLength {
		for size := int64(2); size <= net.N && err == nil; size *= 2 {
			for j := size / 2; j >= 1 && err == nil; j /= 2 {
				cur, err = net.phase(x, cur, x.Constant("s32", strconv.FormatInt(j, 10)), x.Constant("s32", strconv.FormatInt(size, 10)), j)
			}
		}
	} else {
		cur, err = net.loop(x, cur)
	}
	if err != nil {
		return nil, err
	}
	out := make([]*hlo.Instruction, net.k)
	for i := range out {
		out[i] = net.along(x, cur[i], 0, net.n)
	}
	return out, nil
}

func (net *bitonicNet) pos(x *rewriter) *hlo.Instruction {
	return x.Emit("iota", "s32", net.padded, nil, "iota_dimension", strconv.Itoa(net.d))
}

func (net *bitonicNet) splat(x *rewriter, s *hlo.Instruction) *hlo.Instruction {
	return x.Broadcast(s, net.padded, nil)
}

func (net *bitonicNet) cmpS(x *rewriter, a, b *hlo.Instruction, dir string) *hlo.Instruction {
	return x.Emit("compare", "pred", net.padded, []*hlo.Instruction{a, b}, "direction", dir, "type", "SIGNED")
}

// along is a's positions [lo, lo+count) of the sort dimension.
func (net *bitonicNet) along(x *rewriter, a *hlo.Instruction, lo, count int64) *hlo.Instruction {
	s := a.Shape.Dims
	st, cnt, str := make([]int64, len(s)), append([]int64{}, s...), make([]int64, len(s))
	for i := range str {
		str[i] = 1
	}
	st[net.d], cnt[net.d] = lo, count
	return x.Slice(a, st, cnt, str)
}

// shifted is a rotated by r positions along the sort dimension (result[i]
// = a[(i + r) mod N]): contiguous slices of a when the distance is known
// (static >= 0), else a dynamic slice of a twice over at the s32 scalar r.
func (net *bitonicNet) shifted(x *rewriter, a, r *hlo.Instruction, static int64) *hlo.Instruction {
	N := net.N
	if static >= 0 {
		static %= N
		if static == 0 {
			return a
		}
		return x.Concatenate([]*hlo.Instruction{net.along(x, a, static, N-static), net.along(x, a, 0, static)}, net.d)
	}
	twice := x.Concatenate([]*hlo.Instruction{a, a}, net.d)
	starts := make([]*hlo.Instruction, len(net.padded))
	zero := x.Constant("s32", "0")
	for i := range starts {
		starts[i] = zero
	}
	starts[net.d] = r
	return x.Emit("dynamic-slice", a.Shape.Elem, net.padded, append([]*hlo.Instruction{twice}, starts...),
		"dynamic_slice_sizes", hlo.IntsText(net.padded))
}

// before says, element by element, whether a's element goes before b's:
// valid ones first; then the comparator; those it leaves unordered by
// original position.
func (net *bitonicNet) before(x *rewriter, a, b []*hlo.Instruction) (*hlo.Instruction, error) {
	k := net.k
	ab := make([]*hlo.Instruction, 0, 2*k)
	ba := make([]*hlo.Instruction, 0, 2*k)
	for i := range k {
		ab = append(ab, a[i], b[i])
		ba = append(ba, b[i], a[i])
	}
	lt, err := x.Apply(net.cmp, ab)
	if err != nil {
		return nil, err
	}
	gt, err := x.Apply(net.cmp, ba)
	if err != nil {
		return nil, err
	}
	not := func(v *hlo.Instruction) *hlo.Instruction {
		return x.Emit("not", "pred", net.padded, []*hlo.Instruction{v})
	}
	and := func(v, w *hlo.Instruction) *hlo.Instruction { return x.Binary("and", v, w) }
	or := func(v, w *hlo.Instruction) *hlo.Instruction { return x.Binary("or", v, w) }
	idx, valid := k, k+1
	earlier := net.cmpS(x, a[idx], b[idx], "LT")
	byCmp := or(lt[0], and(not(gt[0]), earlier))
	va, vb := a[valid], b[valid]
	return or(or(and(va, not(vb)), and(and(va, vb), byCmp)), and(and(not(va), not(vb)), earlier)), nil
}

// phase is the network's step at distance j (s32 scalar; static, its value
// when known, else -1) within blocks of size (s32 scalar): every element is
// compared with its partner i XOR j.
func (net *bitonicNet) phase(x *rewriter, cur []*hlo.Instruction, j, size *hlo.Instruction, static int64) ([]*hlo.Instruction, error) {
	p := net.pos(x)
	zero := net.splat(x, x.Constant("s32", "0"))
	lower := net.cmpS(x, x.Binary("and", p, net.splat(x, j)), zero, "EQ")
	ascending := net.cmpS(x, x.Binary("and", p, net.splat(x, size)), zero, "EQ")
	// Partners: a[i+j] for the lower element of a pair (bit j of i
	// clear), a[i-j] for the upper, read from rotated copies.
	back := x.Binary("subtract", x.Constant("s32", strconv.FormatInt(net.N, 10)), j)
	backStatic := int64(-1)
	if static >= 0 {
		backStatic = net.N - static
	}
	partner := make([]*hlo.Instruction, len(cur))
	for i, a := range cur {
		up := net.shifted(x, a, j, static)
		down := net.shifted(x, a, back, backStatic)
		partner[i] = x.Emit("select", a.Shape.Elem, net.padded, []*hlo.Instruction{lower, up, down})
	}
	// The lower element of a pair keeps the earlier of the two where its
	// block sorts ascending, the later where it sorts descending, and
	// the upper one the other: an element takes its partner when "the
	// partner goes first" is what its place wants (lower == ascending)
	// or the opposite. The order is strict (no two elements tie), so
	// both elements of a pair agree.
	pf, err := net.before(x, partner, cur)
	if err != nil {
		return nil, err
	}
	take := x.Binary("xor", pf, x.Binary("xor", lower, ascending))
	out := make([]*hlo.Instruction, len(cur))
	for i, a := range cur {
		out[i] = x.Emit("select", a.Shape.Elem, net.padded, []*hlo.Instruction{take, partner[i], a})
	}
	return out, nil
}

// loop runs the network's phases as a while loop over the tuple (size, j,
// operands..., positions, validity): from size 2, j 1; after each phase j
// halves, or at 1 size doubles and j starts at half of it; it ends when
// size passes N.
func (net *bitonicNet) loop(x *rewriter, ops []*hlo.Instruction) ([]*hlo.Instruction, error) {
	state := &hlo.Shape{IsTuple: true, Tuple: []*hlo.Shape{{Elem: "s32"}, {Elem: "s32"}}}
	for _, o := range ops {
		state.Tuple = append(state.Tuple, &hlo.Shape{Elem: o.Shape.Elem, Dims: append([]int64{}, o.Shape.Dims...)})
	}
	base := x.At.Name + ".sort"
	for i := 0; x.M.Computation(base+".body") != nil; i++ {
		base = fmt.Sprintf("%s.sort%d", x.At.Name, i)
	}
	sub := func() *rewriter { return &rewriter{&rewrite.Rewriter{M: x.M, At: x.At, Taken: map[string]bool{}}} }
	param := func(b *rewriter) *hlo.Instruction {
		p := b.Emit("parameter", "", nil, nil)
		p.Shape = state
		return p
	}
	gte := func(b *rewriter, t *hlo.Instruction, i int) *hlo.Instruction {
		s := state.Tuple[i]
		return b.Emit("get-tuple-element", s.Elem, s.Dims, []*hlo.Instruction{t}, "index", strconv.Itoa(i))
	}
	// The condition: size <= N.
	c := sub()
	cp := param(c)
	c.Emit("compare", "pred", nil, []*hlo.Instruction{gte(c, cp, 0), c.Constant("s32", strconv.FormatInt(net.N, 10))}, "direction", "LE")
	// The body: one phase, then the next (size, j).
	b := sub()
	bp := param(b)
	size, j := gte(b, bp, 0), gte(b, bp, 1)
	cur := make([]*hlo.Instruction, len(ops))
	for i := range ops {
		cur[i] = gte(b, bp, i+2)
	}
	cur, err := net.phase(b, cur, j, size, -1)
	if err != nil {
		return nil, err
	}
	one, two := b.Constant("s32", "1"), b.Constant("s32", "2")
	last := b.Emit("compare", "pred", nil, []*hlo.Instruction{j, one}, "direction", "EQ")
	nextSize := b.Emit("select", "s32", nil, []*hlo.Instruction{last, b.Binary("multiply", size, two), size})
	nextJ := b.Emit("select", "s32", nil, []*hlo.Instruction{last, size, b.Binary("divide", j, two)})
	t := b.Emit("tuple", "", nil, append([]*hlo.Instruction{nextSize, nextJ}, cur...))
	t.Shape = state
	c.Out[len(c.Out)-1].IsRoot = true
	t.IsRoot = true
	cond := &hlo.Computation{Pos: x.At.Pos, Name: base + ".cond", Instructions: c.Out, Root: c.Out[len(c.Out)-1]}
	body := &hlo.Computation{Pos: x.At.Pos, Name: base + ".body", Instructions: b.Out, Root: t}
	x.M.Computations = append([]*hlo.Computation{cond, body}, x.M.Computations...)
	init := x.Emit("tuple", "", nil, append([]*hlo.Instruction{x.Constant("s32", "2"), x.Constant("s32", "1")}, ops...))
	init.Shape = state
	w := x.Emit("while", "", nil, []*hlo.Instruction{init}, "condition", "%"+cond.Name, "body", "%"+body.Name)
	w.Shape = state
	out := make([]*hlo.Instruction, len(ops))
	for i := range ops {
		out[i] = gte(x, w, i+2)
	}
	return out, nil
}

// ExpandTopKs rewrites every topk of a few elements of long rows into
// rounds of selection (selectTopK, topkselect.go), and every other into
// what XLA's TopkDecomposer makes of it: a sort of the values with an iota of their positions along the last
// dimension, descending (largest=true) or ascending, floats in total
// order, then the first k of each. ExpandSorts then makes the sort a
// network; ties keep the lower index first, as the evaluator's topk.
func ExpandTopKs(m *hlo.Module) error { return ExpandTopKsExcept(nil)(m) }

// TopKKernelFits says whether the compiler selects the top k of rows of n
// elements of type elem in a kernel of its own (lowering's SRAM top-k
// kernel).
type TopKKernelFits func(elem string, rows, n, k int64) bool

// ExpandTopKsExcept is ExpandTopKs for the topks that kernel does not take
// (nil: all); it is asked only about those a selection suits (selectTopK).
func ExpandTopKsExcept(kernel TopKKernelFits) func(*hlo.Module) error {
	return func(m *hlo.Module) error { return expandTopKs(m, kernel) }
}

func expandTopKs(m *hlo.Module, kernel TopKKernelFits) error {
	return rewriteEach(m, "topk", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		k, err := hlo.IntAttr(in, "k")
		v := ops[0]
		r := len(v.Shape.Dims)
		if err != nil || r == 0 || k < 0 || k > v.Shape.Dims[r-1] || !in.Shape.IsTuple || len(in.Shape.Tuple) != 2 {
			return x.Errorf("needs k (at most the last dimension) and a (values, indices) result")
		}
		dir := "GT"
		if l, ok := in.Attr("largest"); ok && l != "true" {
			dir = "LT"
		}
		elem := v.Shape.Elem
		n := v.Shape.Dims[r-1]
		if kernel != nil && k >= 1 && selectTopK(k, n, elem) && kernel(elem, v.Shape.Elems()/n, n, k) {
			x.Out = append(x.Out, in) // the compiler's top-k kernel
			return nil
		}
		if selectTopK(k, v.Shape.Dims[r-1], elem) {
			x.FinishAll(x.selectionTopK(v, k, dir == "GT"))
			return nil
		}
		typ := "SIGNED"
		switch {
		case hlo.IsFloat(elem):
			typ = "TOTALORDER"
		case hlo.IsUnsigned(elem) || elem == hlo.Pred:
			typ = "UNSIGNED"
		}
		name := in.Name + ".topk_cmp"
		for i := 0; m.Computation(name) != nil; i++ {
			name = fmt.Sprintf("%s.topk_cmp%d", in.Name, i)
		}
		s := &hlo.Shape{Elem: elem}
		ps := []*hlo.Instruction{
			{Pos: in.Pos, Name: name + ".a", Shape: s, Opcode: "parameter"},
			{Pos: in.Pos, Name: name + ".b", Shape: s, Opcode: "parameter", ParamNumber: 1},
			{Pos: in.Pos, Name: name + ".i", Shape: &hlo.Shape{Elem: "s32"}, Opcode: "parameter", ParamNumber: 2},
			{Pos: in.Pos, Name: name + ".j", Shape: &hlo.Shape{Elem: "s32"}, Opcode: "parameter", ParamNumber: 3},
		}
		root := &hlo.Instruction{Pos: in.Pos, Name: name + ".c", Shape: &hlo.Shape{Elem: "pred"}, Opcode: "compare", IsRoot: true,
			Operands: []*hlo.Operand{{Pos: in.Pos, Name: ps[0].Name}, {Pos: in.Pos, Name: ps[1].Name}},
			Attrs:    []hlo.Attr{{Pos: in.Pos, Key: "direction", Value: dir}, {Pos: in.Pos, Key: "type", Value: typ}}}
		m.Computations = append([]*hlo.Computation{{Pos: in.Pos, Name: name, Instructions: append(ps, root), Root: root}}, m.Computations...)
		iota := x.Emit("iota", "s32", v.Shape.Dims, nil, "iota_dimension", strconv.Itoa(r-1))
		t := x.Emit("sort", "", nil, []*hlo.Instruction{v, iota}, "dimensions", hlo.IntsText([]int64{int64(r - 1)}), "is_stable", "true", "to_apply", "%"+name)
		t.Shape = &hlo.Shape{IsTuple: true, Tuple: []*hlo.Shape{{Elem: elem, Dims: v.Shape.Dims}, {Elem: "s32", Dims: v.Shape.Dims}}}
		var outs []*hlo.Instruction
		for i, e := range []string{elem, "s32"} {
			g := x.Emit("get-tuple-element", e, v.Shape.Dims, []*hlo.Instruction{t}, "index", strconv.Itoa(i))
			st, cnt, str := make([]int64, r), append([]int64{}, v.Shape.Dims...), make([]int64, r)
			for d := range str {
				str[d] = 1
			}
			cnt[r-1] = k
			outs = append(outs, x.Slice(g, st, cnt, str))
		}
		x.FinishAll(outs)
		return nil
	})
}

// sortShape reads a sort: its comparator, its operands' element types, its
// rows and their length along the sort dimension, and whether that
// dimension is the last.
func sortShape(m *hlo.Module, in *hlo.Instruction, ops []*hlo.Instruction) (cmp *hlo.Computation, elems []string, rows, n int64, last bool) {
	name, _ := in.Attr("to_apply")
	cmp = m.Computation(strings.TrimPrefix(name, "%"))
	dims, ok := hlo.IntList(hlo.AttrOr(in, "dimensions", "{}"))
	if cmp == nil || !ok || len(dims) != 1 || len(ops) == 0 || ops[0].Shape.IsTuple {
		return nil, nil, 0, 0, false
	}
	d := int(dims[0])
	D := ops[0].Shape.Dims
	if d < 0 || d >= len(D) {
		return nil, nil, 0, 0, false
	}
	for _, o := range ops {
		if o.Shape.IsTuple || !hlo.EqualDims(o.Shape.Dims, D) {
			return nil, nil, 0, 0, false
		}
		elems = append(elems, o.Shape.Elem)
	}
	n = D[d]
	rows = 1
	for i, x := range D {
		if i != d {
			rows *= x
		}
	}
	return cmp, elems, rows, n, d == len(D)-1
}

// SortDimsLast moves the sort dimension of the sorts kernel would take
// last: each operand transposed so that it is, the sort along it (the same
// comparator), each result transposed back; the transposes are copies the
// compiler runs at their roof, the sort then one kernel instead of a
// network of them.
func SortDimsLast(kernel SortKernelFits) func(*hlo.Module) error {
	return func(m *hlo.Module) error {
		return rewriteEach(m, "sort", func(x *rewriter, ops []*hlo.Instruction) error {
			in := x.At
			cmp, elems, rows, n, last := sortShape(m, in, ops)
			if cmp == nil || last || !kernel(cmp, elems, rows, n) {
				x.Out = append(x.Out, in)
				return nil
			}
			dims, _ := hlo.IntList(hlo.AttrOr(in, "dimensions", "{}"))
			d, r := dims[0], int64(len(ops[0].Shape.Dims))
			var perm []int64
			for i := range r {
				if i != d {
					perm = append(perm, i)
				}
			}
			perm = append(perm, d)
			inv := make([]int64, r)
			for i, p := range perm {
				inv[p] = int64(i)
			}
			moved := make([]*hlo.Instruction, len(ops))
			for i, o := range ops {
				moved[i] = x.Transpose(o, perm)
			}
			tdims := moved[0].Shape.Dims
			attrs := []string{"dimensions", hlo.IntsText([]int64{r - 1}), "to_apply", hlo.AttrOr(in, "to_apply", "")}
			if st, ok := in.Attr("is_stable"); ok {
				attrs = append(attrs, "is_stable", st)
			}
			if len(ops) == 1 {
				s := x.Emit("sort", elems[0], tdims, moved, attrs...)
				x.Finish(x.Transpose(s, inv))
				return nil
			}
			s := x.Emit("sort", "", nil, moved, attrs...)
			tuple := &hlo.Shape{IsTuple: true}
			for _, e := range elems {
				tuple.Tuple = append(tuple.Tuple, &hlo.Shape{Elem: e, Dims: tdims})
			}
			s.Shape = tuple
			var outs []*hlo.Instruction
			for i, e := range elems {
				g := x.Emit("get-tuple-element", e, tdims, []*hlo.Instruction{s}, "index", strconv.Itoa(i))
				outs = append(outs, x.Transpose(g, inv))
			}
			x.FinishAll(outs)
			return nil
		})
	}
}
