package verify

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"sort"
	"strconv"
	"strings"
)

// Verify checks a parsed module: every operand names an instruction defined
// earlier in its computation, every called computation exists, parameters
// are numbered densely, and every instruction's shape agrees with the shape
// inferred from its operands for the ops Pulse knows (dimensions and element
// types; layouts are not compared). An instruction whose shape the text left
// out gets the inferred one. Errors are positioned, like parse errors.
func Verify(filename string, m *hlo.Module) error {
	v := &verifier{file: filename, m: m}
	// Callees first, so that a caller's inference sees their root shapes;
	// a computation that calls itself, directly or not, is an error (and
	// would recurse forever in the evaluator).
	for _, c := range v.calleesFirst() {
		v.computation(c)
	}
	if len(v.errs) == 0 {
		return nil
	}
	sort.SliceStable(v.errs, func(i, j int) bool {
		a, b := v.errs[i].Pos, v.errs[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	if len(v.errs) > hlo.MaxErrors {
		v.errs = append(v.errs[:hlo.MaxErrors-1], &hlo.Error{File: filename, Pos: v.errs[hlo.MaxErrors-1].Pos, Msg: "too many errors"})
	}
	return v.errs
}

type verifier struct {
	file string
	m    *hlo.Module
	errs hlo.ErrorList
}

func (v *verifier) errorf(pos hlo.Pos, format string, a ...any) {
	v.errs = append(v.errs, &hlo.Error{File: v.file, Pos: pos, Msg: fmt.Sprintf(format, a...)})
}

// callAttrs name computations.
var callAttrs = []string{"to_apply", "calls", "condition", "body", "select", "scatter", "true_computation", "false_computation"}

// calleesFirst orders the computations so that every callee precedes its
// callers (otherwise keeping the module's order), reporting call cycles.
func (v *verifier) calleesFirst() []*hlo.Computation {
	return v.m.CalleesFirst(func(c *hlo.Computation, at *hlo.Instruction) {
		v.errorf(at.Pos, "%s: computation %s calls itself (computations form a cycle)", at.Name, c.Name)
	})
}

func (v *verifier) computation(c *hlo.Computation) {
	defined := map[string]*hlo.Instruction{}
	params := map[int64]bool{}
	for _, in := range c.Instructions {
		ops := make([]*hlo.Shape, len(in.Operands))
		ok := true
		for i, o := range in.Operands {
			d := defined[o.Name]
			if d == nil {
				v.errorf(o.Pos, "%s: operand %s is not defined before it in computation %s", in.Name, o.Name, c.Name)
				ok = false
				continue
			}
			ops[i] = d.Shape
			if o.Shape != nil && d.Shape != nil && !hlo.SameShape(o.Shape, d.Shape) {
				v.errorf(o.Pos, "%s: operand %s is written as %s but defined as %s", in.Name, o.Name, o.Shape, d.Shape)
			}
		}
		for _, k := range callAttrs {
			if name, has := in.Attr(k); has && !strings.HasPrefix(name, "{") {
				if v.m.Computation(strings.TrimPrefix(name, "%")) == nil {
					v.errorf(in.Pos, "%s: %s=%s names no computation of the module", in.Name, k, name)
				}
			}
		}
		if in.Opcode == hlo.OpParameter {
			if params[in.ParamNumber] {
				v.errorf(in.Pos, "%s: parameter number %d used twice in computation %s", in.Name, in.ParamNumber, c.Name)
			}
			params[in.ParamNumber] = true
		}
		defined[in.Name] = in
		if !hlo.KnownOpcode(in.Opcode) {
			v.errorf(in.Pos, "%s: unknown opcode %q", in.Name, in.Opcode)
			continue
		}
		if in.Opcode == hlo.OpConstant && in.Shape != nil {
			if err := hlo.CheckLiteral(in.Literal, in.Shape); err != nil {
				v.errorf(in.Pos, "%s: constant: %v", in.Name, err)
				continue
			}
		}
		if err := checkArity(in); err != nil {
			v.errorf(in.Pos, "%s: %s %v", in.Name, in.Opcode, err)
			continue
		}
		if err := v.checkAppliedComputations(in); err != nil {
			v.errorf(in.Pos, "%s: %s: %v", in.Name, in.Opcode, err)
			continue
		}
		if !ok {
			continue
		}
		want, err := v.infer(in, ops)
		switch {
		case err != nil:
			v.errorf(in.Pos, "%s: %s: %v", in.Name, in.Opcode, err)
		case want == nil:
		case in.Shape == nil:
			in.Shape = want
		case !hlo.SameShape(in.Shape, want):
			v.errorf(in.Pos, "%s: %s produces %s, but the instruction says %s", in.Name, in.Opcode, want, in.Shape)
		}
		if in.Shape == nil {
			v.errorf(in.Pos, "%s: the result shape of %s must be written out", in.Name, in.Opcode)
		}
	}
	for i := int64(0); i < int64(len(params)); i++ {
		if !params[i] {
			v.errorf(c.Pos, "computation %s has %d parameters but no parameter(%d)", c.Name, len(params), i)
			break
		}
	}
}

func (v *verifier) calleeRoot(in *hlo.Instruction, attr string) *hlo.Shape {
	name, ok := in.Attr(attr)
	if !ok || strings.HasPrefix(name, "{") {
		return nil
	}
	c := v.m.Computation(strings.TrimPrefix(name, "%"))
	if c == nil || c.Root == nil {
		return nil
	}
	return c.Root.Shape
}

// calleeParams checks that a call's or fusion's operands have its
// computation's parameter shapes (layouts aside).
func (v *verifier) calleeParams(in *hlo.Instruction, attr string, ops []*hlo.Shape) error {
	name, ok := in.Attr(attr)
	if !ok {
		return nil
	}
	c := v.m.Computation(strings.TrimPrefix(name, "%"))
	if c == nil {
		return nil
	}
	for _, p := range c.Instructions {
		if p.Opcode != hlo.OpParameter || p.Shape == nil || p.ParamNumber < 0 || int(p.ParamNumber) >= len(ops) || ops[p.ParamNumber] == nil {
			continue
		}
		if !hlo.SameShape(ops[p.ParamNumber], p.Shape) {
			return fmt.Errorf("operand %d is %s, and %s's parameter %d is %s", p.ParamNumber, ops[p.ParamNumber], c.Name, p.ParamNumber, p.Shape)
		}
	}
	return nil
}

func need(ops []*hlo.Shape, n int) error {
	if len(ops) != n {
		return fmt.Errorf("takes %d operands, has %d", n, len(ops))
	}
	for i, s := range ops {
		if s == nil {
			return fmt.Errorf("operand %d has no known shape", i)
		}
	}
	return nil
}

// infer returns the shape an instruction must have, nil when Pulse does not
// infer it, or an error when the operands are inconsistent.
func (v *verifier) infer(in *hlo.Instruction, ops []*hlo.Shape) (*hlo.Shape, error) {
	op := in.Opcode
	out := in.Shape
	if base, part, ok := hlo.ShortAsync(op); ok && part == "start" {
		// The op it wraps is checked as that op (the evaluator runs it).
		inner, ok := hlo.ShortAsyncInner(in, base)
		if !ok {
			return nil, fmt.Errorf("returns ((operands), result, context...), not %s", in.Shape)
		}
		want, err := v.infer(inner, ops)
		if err == nil && want != nil && !hlo.SameShape(want, inner.Shape) {
			err = fmt.Errorf("its %s produces %s, but the result says %s", base, want, inner.Shape)
		}
		return nil, err
	}
	switch {
	case op == hlo.OpCompare:
		if err := need(ops, 2); err != nil {
			return nil, err
		}
		if !hlo.SameShape(ops[0], ops[1]) {
			return nil, fmt.Errorf("operand shapes differ: %s and %s", ops[0], ops[1])
		}
		return hlo.Array("pred", ops[0].Dims), nil
	case op == hlo.OpConvert || op == hlo.OpBitcastConvert && out != nil && hlo.ElemBits(out.Elem) == hlo.ElemBits(ops0(ops).Elem):
		if err := need(ops, 1); err != nil {
			return nil, err
		}
		if out == nil {
			return nil, nil
		}
		return hlo.Array(out.Elem, ops[0].Dims), nil
	case op == hlo.OpSelect:
		if err := need(ops, 3); err != nil {
			return nil, err
		}
		if ops[1].IsTuple {
			return ops[1], nil
		}
		if !hlo.SameDims(ops[1], ops[2]) {
			return nil, fmt.Errorf("on_true %s and on_false %s differ", ops[1], ops[2])
		}
		return hlo.Array(ops[1].Elem, ops[1].Dims), nil
	case op == hlo.OpClamp:
		if err := need(ops, 3); err != nil {
			return nil, err
		}
		return hlo.Array(ops[1].Elem, ops[1].Dims), nil
	case hlo.IsElementwise(op):
		if len(ops) == 0 || ops[0] == nil {
			return nil, nil
		}
		for i, s := range ops {
			if s == nil || s.IsTuple {
				return nil, nil
			}
			if !hlo.SameDims(s, ops[0]) {
				return nil, fmt.Errorf("operand %d is %s, operand 0 is %s (HLO does not broadcast implicitly)", i, s, ops[0])
			}
		}
		elem := ops[0].Elem
		switch {
		case op == hlo.OpIsFinite:
			elem = "pred"
		case (op == hlo.OpAbs || op == hlo.OpReal || op == hlo.OpImag) && hlo.IsComplex(elem):
			elem = hlo.ComplexPart(elem) // a complex value's magnitude or part
		case op == hlo.OpComplex && !hlo.IsComplex(elem):
			elem = map[string]string{"f32": "c64", "f64": "c128"}[elem]
		}
		return hlo.Array(elem, ops[0].Dims), nil
	}
	switch op {
	case hlo.OpTuple:
		for _, s := range ops {
			if s == nil {
				return nil, nil
			}
		}
		return &hlo.Shape{IsTuple: true, Tuple: append([]*hlo.Shape{}, ops...)}, nil
	case hlo.OpGetTupleElement:
		if err := need(ops, 1); err != nil {
			return nil, err
		}
		idx, err := hlo.IntAttr(in, "index")
		if err != nil {
			return nil, err
		}
		if !ops[0].IsTuple || idx < 0 || int(idx) >= len(ops[0].Tuple) {
			return nil, fmt.Errorf("index %d out of range of %s", idx, ops[0])
		}
		return ops[0].Tuple[idx], nil
	case hlo.OpBroadcast:
		if err := need(ops, 1); err != nil {
			return nil, err
		}
		dims, err := hlo.OptList(in, "dimensions") // absent: a scalar operand
		if err != nil || out == nil {
			return nil, err
		}
		if dims == nil {
			dims = []int64{}
		}
		if len(dims) != len(ops[0].Dims) {
			return nil, fmt.Errorf("dimensions has %d entries for an operand of rank %d", len(dims), len(ops[0].Dims))
		}
		for i, d := range dims {
			// XLA also accepts a size-1 operand dimension (a degenerate broadcast).
			if d < 0 || int(d) >= len(out.Dims) || out.Dims[d] != ops[0].Dims[i] && ops[0].Dims[i] != 1 {
				return nil, fmt.Errorf("operand dimension %d (size %d) does not map to output dimension %d of %s", i, ops[0].Dims[i], d, out)
			}
		}
		return hlo.Array(ops[0].Elem, out.Dims), nil
	case hlo.OpReshape:
		if err := need(ops, 1); err != nil || out == nil {
			return nil, err
		}
		if ops[0].Elems() != out.Elems() {
			return nil, fmt.Errorf("reshape of %s (%d elements) to %s (%d elements)", ops[0], ops[0].Elems(), out, out.Elems())
		}
		return hlo.Array(ops[0].Elem, out.Dims), nil
	case hlo.OpTranspose:
		if err := need(ops, 1); err != nil {
			return nil, err
		}
		perm, err := hlo.ListAttr(in, "dimensions")
		if err != nil {
			return nil, err
		}
		if len(perm) != len(ops[0].Dims) {
			return nil, fmt.Errorf("permutation %v for rank %d", perm, len(ops[0].Dims))
		}
		d := make([]int64, len(perm))
		seen := make([]bool, len(perm))
		for i, p := range perm {
			if p < 0 || int(p) >= len(ops[0].Dims) || seen[p] {
				return nil, fmt.Errorf("dimensions %v are not a permutation of 0..%d", perm, len(perm)-1)
			}
			seen[p] = true
			d[i] = ops[0].Dims[p]
		}
		return hlo.Array(ops[0].Elem, d), nil
	case hlo.OpDot, hlo.OpScaledDot:
		if in.Opcode == hlo.OpScaledDot {
			// lhs, rhs and their scales: the product's shape is the dot's.
			if len(ops) != 4 {
				return nil, fmt.Errorf("takes lhs, rhs and their two scales, has %d operands", len(ops))
			}
			ops = ops[:2]
		}
		if err := need(ops, 2); err != nil || out == nil {
			return nil, err
		}
		lb, _ := hlo.OptList(in, "lhs_batch_dims")
		rb, _ := hlo.OptList(in, "rhs_batch_dims")
		lc, _ := hlo.OptList(in, "lhs_contracting_dims")
		rc, _ := hlo.OptList(in, "rhs_contracting_dims")
		if len(lb) != len(rb) || len(lc) != len(rc) {
			return nil, fmt.Errorf("batch or contracting dimension counts differ between lhs and rhs")
		}
		l, r := ops[0].Dims, ops[1].Dims
		var d []int64
		for i := range lb {
			if !in2(lb[i], l) || !in2(rb[i], r) || l[lb[i]] != r[rb[i]] {
				return nil, fmt.Errorf("batch dimensions %v of %s and %v of %s do not match", lb, ops[0], rb, ops[1])
			}
			d = append(d, l[lb[i]])
		}
		for i := range lc {
			if !in2(lc[i], l) || !in2(rc[i], r) || l[lc[i]] != r[rc[i]] {
				return nil, fmt.Errorf("contracting dimensions %v of %s and %v of %s do not match", lc, ops[0], rc, ops[1])
			}
		}
		d = append(d, hlo.Free(l, lb, lc)...)
		d = append(d, hlo.Free(r, rb, rc)...)
		return hlo.Array(out.Elem, d), nil
	case hlo.OpReduce:
		if len(ops)%2 != 0 || len(ops) == 0 || ops[0] == nil {
			return nil, nil
		}
		dims, err := hlo.ListAttr(in, "dimensions")
		if err != nil {
			return nil, err
		}
		n := len(ops) / 2
		var res []*hlo.Shape
		for i := 0; i < n; i++ {
			if ops[i] == nil || ops[n+i] == nil {
				return nil, nil
			}
			if ops[n+i].IsTuple || len(ops[n+i].Dims) != 0 {
				return nil, fmt.Errorf("init value %d is %s, not a scalar", i, ops[n+i])
			}
			res = append(res, hlo.Array(ops[n+i].Elem, hlo.Free(ops[i].Dims, dims, nil)))
		}
		if n == 1 {
			return res[0], nil
		}
		return &hlo.Shape{IsTuple: true, Tuple: res}, nil
	case hlo.OpSlice:
		if err := need(ops, 1); err != nil {
			return nil, err
		}
		sv, ok := in.Attr("slice")
		if !ok {
			return nil, fmt.Errorf("no slice attribute")
		}
		ranges := strings.Split(strings.Trim(sv, "{}"), ",")
		if len(ranges) != len(ops[0].Dims) {
			return nil, fmt.Errorf("slice %s for rank %d", sv, len(ops[0].Dims))
		}
		d := make([]int64, len(ranges))
		for i, r := range ranges {
			parts := strings.Split(strings.Trim(strings.TrimSpace(r), "[]"), ":")
			if len(parts) < 2 {
				return nil, fmt.Errorf("bad slice range %q", r)
			}
			lo, e1 := strconv.ParseInt(parts[0], 10, 64)
			hi, e2 := strconv.ParseInt(parts[1], 10, 64)
			st := int64(1)
			if len(parts) == 3 {
				st, _ = strconv.ParseInt(parts[2], 10, 64)
			}
			if e1 != nil || e2 != nil || st < 1 || lo < 0 || hi < lo || hi > ops[0].Dims[i] {
				return nil, fmt.Errorf("slice range %q out of dimension %d (size %d)", r, i, ops[0].Dims[i])
			}
			d[i] = (hi - lo + st - 1) / st
		}
		return hlo.Array(ops[0].Elem, d), nil
	case hlo.OpConcatenate:
		if len(ops) == 0 || ops[0] == nil {
			return nil, nil
		}
		dims, err := hlo.ListAttr(in, "dimensions")
		if err != nil || len(dims) != 1 || !in2(dims[0], ops[0].Dims) {
			return nil, fmt.Errorf("needs one dimension in range")
		}
		d := append([]int64{}, ops[0].Dims...)
		for _, s := range ops[1:] {
			if s == nil || len(s.Dims) != len(d) {
				return nil, fmt.Errorf("operand ranks differ")
			}
			for k := range d {
				if int64(k) != dims[0] && s.Dims[k] != d[k] {
					return nil, fmt.Errorf("operands %s and %s differ outside dimension %d", ops[0], s, dims[0])
				}
			}
			d[dims[0]] += s.Dims[dims[0]]
		}
		return hlo.Array(ops[0].Elem, d), nil
	case hlo.OpPad:
		if err := need(ops, 2); err != nil {
			return nil, err
		}
		pv, ok := in.Attr("padding")
		if !ok {
			return nil, fmt.Errorf("no padding attribute")
		}
		per := hlo.PadDims(in)
		if len(ops[0].Dims) == 0 && pv == "" {
			per = nil // a scalar's padding config is empty
		}
		if len(per) != len(ops[0].Dims) {
			return nil, fmt.Errorf("padding %s for rank %d", pv, len(ops[0].Dims))
		}
		d := make([]int64, len(per))
		for i, p := range per {
			s := ops[0].Dims[i]
			d[i] = p.Lo + p.Hi + s + max(s-1, 0)*p.Interior
		}
		return hlo.Array(ops[0].Elem, d), nil
	case hlo.OpReverse, hlo.OpCopy, hlo.OpSort, hlo.OpDynamicUpdateSlice, hlo.OpOptBarrier, hlo.OpCbrt:
		if len(ops) == 0 || ops[0] == nil || op == hlo.OpSort && len(ops) > 1 {
			return nil, nil
		}
		if op == hlo.OpReverse {
			dims, err := hlo.ListAttr(in, "dimensions")
			if err != nil {
				return nil, err
			}
			for _, d := range dims {
				if d < 0 || int(d) >= len(ops[0].Dims) {
					return nil, fmt.Errorf("dimensions %v for an operand of rank %d", dims, len(ops[0].Dims))
				}
			}
		}
		return ops[0], nil
	case hlo.OpDynamicSlice:
		if len(ops) == 0 || ops[0] == nil {
			return nil, nil
		}
		sizes, err := hlo.ListAttr(in, "dynamic_slice_sizes")
		if err != nil {
			return nil, err
		}
		if len(sizes) != len(ops[0].Dims) || len(ops) != 1+len(sizes) && len(ops) != 2 {
			return nil, fmt.Errorf("dynamic_slice_sizes %v for %s with %d index operands", sizes, ops[0], len(ops)-1)
		}
		return hlo.Array(ops[0].Elem, sizes), nil
	case hlo.OpIota:
		return nil, nil
	case hlo.OpFusion, hlo.OpCall:
		attr := "calls"
		if op == hlo.OpCall {
			attr = "to_apply"
		}
		if err := v.calleeParams(in, attr, ops); err != nil {
			return nil, err
		}
		return v.calleeRoot(in, attr), nil
	case hlo.OpWhile:
		if c := v.calleeRoot(in, "condition"); c != nil && (c.IsTuple || c.Elem != hlo.Pred || len(c.Dims) != 0) {
			return nil, fmt.Errorf("the condition returns %s, not pred[]", c)
		}
		b := v.calleeRoot(in, "body")
		if b != nil && len(ops) == 1 && ops[0] != nil && !hlo.SameShape(b, ops[0]) {
			return nil, fmt.Errorf("the body returns %s, the loop state is %s", b, ops[0])
		}
		return b, nil
	}
	return v.inferMore(in, ops)
}

func ops0(ops []*hlo.Shape) *hlo.Shape {
	if len(ops) > 0 && ops[0] != nil {
		return ops[0]
	}
	return &hlo.Shape{}
}

func in2(d int64, dims []int64) bool { return d >= 0 && int(d) < len(dims) }
