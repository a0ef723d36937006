package expand

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// Complex numbers. c64 and c128 arrays are carried as arrays of their
// part type (f32, f64) with one more, innermost dimension of 2 — (real,
// imaginary), the bytes complex64 and complex128 have in memory, so a
// Value of a complex shape holds 2 numbers per element, interleaved.
// ExpandComplex rewrites a module's complex arithmetic into real
// arithmetic on those pairs; the evaluator evaluates that rewrite and the
// chips run it (neither has complex types of its own). Its tests check it
// against Go's complex128.

// complexShapeOnly are ops a complex operand passes through unchanged
// but for its shape: they move whole elements, and a pair moves with its
// element (reshape keeps row-major order, the pair innermost).
var complexShapeOnly = map[string]bool{
	"parameter": true, "tuple": true, "get-tuple-element": true, "while": true, "call": true,
	"conditional": true, "copy": true, "reshape": true, "bitcast": true, "concatenate": true,
	"reverse": true, "add": true, "subtract": true, "negate": true, "optimization-barrier": true,
	"add-dependency": true, "domain": true, "custom-call": true, "fusion": true, "copy-start": true, "copy-done": true,
}

// ExpandComplex rewrites every complex value of m into its (real,
// imaginary) pairs (RealShape) and complex arithmetic into real: the
// module's signature changes accordingly. An op it does not rewrite is a
// positioned error naming it.
func ExpandComplex(m *hlo.Module) error {
	if !hlo.HasComplex(m) {
		return nil
	}
	for _, c := range m.Computations {
		orig := map[string]*hlo.Shape{}
		byName := map[string]*hlo.Instruction{}
		taken := map[string]bool{}
		for _, in := range c.Instructions {
			taken[in.Name] = true
		}
		var out []*hlo.Instruction
		for _, in := range c.Instructions {
			orig[in.Name] = in.Shape
			involved := hlo.ShapeHasComplex(in.Shape)
			var origOps []*hlo.Shape
			ops := make([]*hlo.Instruction, len(in.Operands))
			for i, o := range in.Operands {
				ops[i] = byName[o.Name]
				origOps = append(origOps, orig[o.Name])
				involved = involved || hlo.ShapeHasComplex(orig[o.Name])
			}
			if !involved {
				byName[in.Name] = in
				out = append(out, in)
				continue
			}
			x := &rewriter{&rewrite.Rewriter{M: m, At: in, Taken: taken}}
			for i, o := range ops {
				if o == nil || o.Shape == nil {
					return x.Errorf("operand %s is not defined before it", in.Operands[i].Name)
				}
			}
			if err := x.expandComplex(ops, origOps); err != nil {
				return err
			}
			byName[in.Name] = x.Splice(c)
			out = append(out, x.Out...)
		}
		c.Instructions = out
	}
	return nil
}

// expandComplex rewrites one instruction that has complex operands or a
// complex result. ops are the rewritten operands, origOps their shapes
// before.
func (x *rewriter) expandComplex(ops []*hlo.Instruction, origOps []*hlo.Shape) error {
	in := x.At
	s := in.Shape
	rs := hlo.RealShape(s)
	cx := func(i int) bool {
		return i < len(origOps) && origOps[i] != nil && !origOps[i].IsTuple && hlo.IsComplex(origOps[i].Elem)
	}
	unsupported := func() error {
		return x.Errorf("%s of complex values is not supported (Pulse rewrites complex arithmetic into real: docs/hlo.md)", in.Opcode)
	}
	same := func() {
		cp := *in
		cp.Shape = rs
		cp.Operands = make([]*hlo.Operand, len(in.Operands))
		for i, o := range in.Operands {
			ro := *o
			if ro.Shape != nil { // the long form writes operand shapes: their real forms now
				ro.Shape = hlo.RealShape(ro.Shape)
			}
			cp.Operands[i] = &ro
		}
		cp.Attrs = append([]hlo.Attr{}, in.Attrs...)
		x.Out = append(x.Out, &cp)
	}
	switch op := in.Opcode; {
	case op == hlo.OpCustomCall && !hlo.IsIdentityCall(in):
		return unsupported()
	case complexShapeOnly[op]:
		if (op == hlo.OpAdd || op == hlo.OpSubtract || op == hlo.OpNegate) && !hlo.IsComplex(s.Elem) {
			return unsupported()
		}
		same()
	case op == hlo.OpConstant:
		lit, err := complexLiteral(in.Literal, s)
		if err != nil {
			return x.Errorf("%v", err)
		}
		if len(s.Dims) > 0 && !strings.HasPrefix(strings.TrimSpace(lit), "{{") && strings.TrimSpace(in.Literal) != "{...}" && !strings.HasPrefix(strings.TrimSpace(in.Literal), "{") {
			// One value for the whole array: a pair, broadcast.
			c := x.Emit("constant", rs.Elem, []int64{2}, nil)
			c.Literal = lit
			x.Broadcast(c, rs.Dims, []int64{int64(len(s.Dims))})
			return nil
		}
		cp := *in
		cp.Shape, cp.Literal = rs, lit
		x.Out = append(x.Out, &cp)
	case op == hlo.OpBroadcast:
		v, _ := in.Attr("dimensions")
		dims := parseIntList(v)
		x.Emit("broadcast", rs.Elem, rs.Dims, ops[:1], "dimensions", hlo.IntsText(append(dims, int64(len(s.Dims)))))
	case op == hlo.OpTranspose:
		v, _ := in.Attr("dimensions")
		perm := parseIntList(v)
		x.Emit("transpose", rs.Elem, rs.Dims, ops[:1], "dimensions", hlo.IntsText(append(perm, int64(len(s.Dims)))))
	case op == hlo.OpSlice:
		v, _ := in.Attr("slice")
		x.Emit("slice", rs.Elem, rs.Dims, ops[:1], "slice", strings.TrimSuffix(strings.TrimSpace(v), "}")+", [0:2]}")
	case op == hlo.OpDynamicSlice:
		v, _ := in.Attr("dynamic_slice_sizes")
		idx := append(append([]*hlo.Instruction{}, ops...), x.Constant("s32", "0"))
		if len(ops) > 1 && ops[1].Shape != nil && ops[1].Shape.Elem != "" {
			idx[len(idx)-1] = x.Constant(ops[1].Shape.Elem, "0")
		}
		x.Emit("dynamic-slice", rs.Elem, rs.Dims, idx, "dynamic_slice_sizes", hlo.IntsText(append(parseIntList(v), 2)))
	case op == hlo.OpDynamicUpdateSlice:
		idx := append([]*hlo.Instruction{}, ops...)
		zero := x.Constant("s32", "0")
		if len(ops) > 2 && ops[2].Shape != nil {
			zero = x.Constant(ops[2].Shape.Elem, "0")
		}
		x.Emit("dynamic-update-slice", rs.Elem, rs.Dims, append(idx, zero))
	case op == hlo.OpSelect:
		pred := ops[0]
		if len(pred.Shape.Dims) > 0 {
			pred = x.Broadcast(pred, append(append([]int64{}, pred.Shape.Dims...), 2), hlo.Iota64(0, len(pred.Shape.Dims)))
		}
		x.Emit("select", rs.Elem, rs.Dims, []*hlo.Instruction{pred, ops[1], ops[2]})
	case op == hlo.OpReal || op == hlo.OpImag:
		if !cx(0) {
			return unsupported()
		}
		k := int64(0)
		if op == hlo.OpImag {
			k = 1
		}
		x.Finish(x.complexPart(ops[0], k))
	case op == hlo.OpComplex:
		x.Finish(x.complexJoin(ops[0], ops[1]))
	case op == hlo.OpMultiply:
		a, b := ops[0], ops[1]
		ar, ai, br, bi := x.complexPart(a, 0), x.complexPart(a, 1), x.complexPart(b, 0), x.complexPart(b, 1)
		re := x.Binary("subtract", x.Binary("multiply", ar, br), x.Binary("multiply", ai, bi))
		im := x.Binary("add", x.Binary("multiply", ar, bi), x.Binary("multiply", ai, br))
		x.Finish(x.complexJoin(re, im))
	case op == hlo.OpDivide:
		x.Finish(x.complexDivide(ops[0], ops[1]))
	case op == hlo.OpAbs:
		x.Finish(x.complexAbs(ops[0]))
	case op == hlo.OpExponential || op == hlo.OpLog || op == hlo.OpSqrt || op == hlo.OpPower:
		if !hlo.IsComplex(s.Elem) {
			return unsupported()
		}
		x.Finish(x.complexMath(op, ops))
	case op == hlo.OpConvert:
		switch {
		case cx(0) && hlo.IsComplex(s.Elem):
			x.Finish(x.Convert(ops[0], rs.Elem))
		case !cx(0) && hlo.IsComplex(s.Elem):
			re := x.Convert(ops[0], rs.Elem)
			x.Finish(x.complexJoin(re, x.Broadcast(x.Constant(rs.Elem, "0"), re.Shape.Dims, nil)))
		default:
			return x.Errorf("convert from %s to %s: XLA converts complex to real with real(), not convert", origOps[0].Elem, s.Elem)
		}
	case op == hlo.OpCompare:
		dir, _ := in.Attr("direction")
		if dir != "EQ" && dir != "NE" {
			return x.Errorf("complex values compare only for EQ and NE (here %s)", dir)
		}
		a, b := ops[0], ops[1]
		d := a.Shape.Dims[:len(a.Shape.Dims)-1]
		cmp := func(k int64) *hlo.Instruction {
			return x.Emit("compare", "pred", d, []*hlo.Instruction{x.complexPart(a, k), x.complexPart(b, k)}, "direction", dir)
		}
		join := "and"
		if dir == "NE" {
			join = "or"
		}
		x.Emit(join, "pred", d, []*hlo.Instruction{cmp(0), cmp(1)})
	case op == hlo.OpPad:
		v, _ := in.Attr("padding")
		parts := [2]*hlo.Instruction{}
		for k := range int64(2) {
			pv := x.complexPart(ops[1], k)
			parts[k] = x.Emit("pad", rs.Elem, s.Dims, []*hlo.Instruction{x.complexPart(ops[0], k), pv}, "padding", v)
		}
		x.Finish(x.complexJoin(parts[0], parts[1]))
	case op == hlo.OpDot:
		if !cx(0) || !cx(1) {
			return x.Errorf("a dot of %s and %s: both operands must be complex", origOps[0].Elem, origOps[1].Elem)
		}
		a, b := ops[0], ops[1]
		dot := func(p, q *hlo.Instruction) *hlo.Instruction {
			d := x.Emit("dot", rs.Elem, s.Dims, []*hlo.Instruction{p, q})
			for _, at := range in.Attrs {
				if strings.HasSuffix(at.Key, "_dims") {
					d.Attrs = append(d.Attrs, hlo.Attr{Pos: in.Pos, Key: at.Key, Value: at.Value})
				}
			}
			return d
		}
		ar, ai, br, bi := x.complexPart(a, 0), x.complexPart(a, 1), x.complexPart(b, 0), x.complexPart(b, 1)
		re := x.Binary("subtract", dot(ar, br), dot(ai, bi))
		im := x.Binary("add", dot(ar, bi), dot(ai, br))
		x.Finish(x.complexJoin(re, im))
	case op == hlo.OpReduce:
		if len(ops) != 2 || !reducesWithAdd(x.M, in) {
			return x.Errorf("a reduce of complex values is supported with one operand and an add reducer")
		}
		v, _ := in.Attr("dimensions")
		dims := parseIntList(v)
		parts := [2]*hlo.Instruction{}
		for k := range int64(2) {
			sum := x.ReduceSum(x.complexPart(ops[0], k), dims)
			init := x.Broadcast(x.complexPart(ops[1], k), sum.Shape.Dims, nil)
			parts[k] = x.Binary("add", sum, init)
		}
		x.Finish(x.complexJoin(parts[0], parts[1]))
	case op == hlo.OpFft:
		return x.expandFFT(ops[0], origOps[0])
	default:
		return unsupported()
	}
	return nil
}

// parseIntList reads "{1,2,3}".
func parseIntList(v string) []int64 {
	var out []int64
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == '{' || r == '}' || r == ',' || r == ' ' }) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}

// reducesWithAdd reports whether in's reducer is one add of its two
// parameters.
func reducesWithAdd(m *hlo.Module, in *hlo.Instruction) bool {
	name, _ := in.Attr("to_apply")
	c := m.Computation(strings.TrimPrefix(name, "%"))
	return c != nil && c.Root != nil && c.Root.Opcode == hlo.OpAdd && len(c.Root.Operands) == 2
}

// complexPart is part k (0 real, 1 imaginary) of pairs z [..., 2].
func (x *rewriter) complexPart(z *hlo.Instruction, k int64) *hlo.Instruction {
	d := z.Shape.Dims
	r := len(d)
	start := make([]int64, r)
	start[r-1] = k
	count := append(append([]int64{}, d[:r-1]...), 1)
	return x.Reshape(x.Slice(z, start, count, hlo.Ones(r)), d[:r-1])
}

// complexJoin pairs re and im (one shape) into [..., 2].
func (x *rewriter) complexJoin(re, im *hlo.Instruction) *hlo.Instruction {
	d := append(append([]int64{}, re.Shape.Dims...), 1)
	return x.Concatenate([]*hlo.Instruction{x.Reshape(re, d), x.Reshape(im, d)}, len(d)-1)
}

// complexDivide is a/b by Smith's algorithm, as XLA's elemental emitter
// divides (scaling by the larger part of b against overflow): when
// |br| >= |bi|, t = bi/br, den = br + bi t, re = (ar + ai t)/den,
// im = (ai - ar t)/den; else with the roles of br and bi swapped.
func (x *rewriter) complexDivide(a, b *hlo.Instruction) *hlo.Instruction {
	ar, ai, br, bi := x.complexPart(a, 0), x.complexPart(a, 1), x.complexPart(b, 0), x.complexPart(b, 1)
	abs := func(v *hlo.Instruction) *hlo.Instruction {
		return x.Emit("abs", v.Shape.Elem, v.Shape.Dims, []*hlo.Instruction{v})
	}
	d := ar.Shape.Dims
	rGe := x.Emit("compare", "pred", d, []*hlo.Instruction{abs(br), abs(bi)}, "direction", "GE")
	mul, add, sub, div := func(p, q *hlo.Instruction) *hlo.Instruction { return x.Binary("multiply", p, q) },
		func(p, q *hlo.Instruction) *hlo.Instruction { return x.Binary("add", p, q) },
		func(p, q *hlo.Instruction) *hlo.Instruction { return x.Binary("subtract", p, q) },
		func(p, q *hlo.Instruction) *hlo.Instruction { return x.Binary("divide", p, q) }
	// |br| >= |bi|
	t1 := div(bi, br)
	den1 := add(br, mul(bi, t1))
	re1, im1 := div(add(ar, mul(ai, t1)), den1), div(sub(ai, mul(ar, t1)), den1)
	// |bi| > |br|
	t2 := div(br, bi)
	den2 := add(bi, mul(br, t2))
	re2, im2 := div(add(mul(ar, t2), ai), den2), div(sub(mul(ai, t2), ar), den2)
	sel := func(p, q *hlo.Instruction) *hlo.Instruction {
		return x.Emit("select", p.Shape.Elem, d, []*hlo.Instruction{rGe, p, q})
	}
	return x.complexJoin(sel(re1, re2), sel(im1, im2))
}

// complexAbs is |z| as XLA computes it without overflow: with
// M = max(|re|, |im|) and m = min, M sqrt(1 + (m/M)^2), 0 when M is 0.
func (x *rewriter) complexAbs(z *hlo.Instruction) *hlo.Instruction {
	re, im := x.complexPart(z, 0), x.complexPart(z, 1)
	d, elem := re.Shape.Dims, re.Shape.Elem
	ar := x.Emit("abs", elem, d, []*hlo.Instruction{re})
	ai := x.Emit("abs", elem, d, []*hlo.Instruction{im})
	hi := x.Binary("maximum", ar, ai)
	lo := x.Binary("minimum", ar, ai)
	q := x.Binary("divide", lo, hi)
	one := x.Broadcast(x.Constant(elem, "1"), d, nil)
	r := x.Binary("multiply", hi, x.Emit("sqrt", elem, d, []*hlo.Instruction{x.Binary("add", one, x.Binary("multiply", q, q))}))
	zero := x.Broadcast(x.Constant(elem, "0"), d, nil)
	isZero := x.Emit("compare", "pred", d, []*hlo.Instruction{hi, zero}, "direction", "EQ")
	return x.Emit("select", elem, d, []*hlo.Instruction{isZero, zero, r})
}

// complexPair matches one "(re, im)" of a complex literal.
var complexPair = regexp.MustCompile(`\(\s*([^(),]+?)\s*,\s*([^(),]+?)\s*\)`)

// complexLiteral rewrites a complex constant's literal ({(1, 2), (3, 4)})
// as its pairs' ({{1, 2}, {3, 4}}); a bare number is a real value.
func complexLiteral(lit string, s *hlo.Shape) (string, error) {
	t := strings.TrimSpace(lit)
	if t == "{...}" {
		return t, nil
	}
	if strings.Contains(t, "(") {
		return complexPair.ReplaceAllString(t, "{$1, $2}"), nil
	}
	// Real numbers only: each becomes (v, 0).
	num := regexp.MustCompile(`[-+]?(?:[0-9.]+(?:e[-+]?[0-9]+)?|inf|nan)`)
	if len(s.Dims) == 0 || !strings.HasPrefix(t, "{") {
		if !num.MatchString(t) {
			return "", fmt.Errorf("bad complex literal %q", lit)
		}
	}
	return num.ReplaceAllString(t, "{$0, 0}"), nil
}

// complexMath is exp, log, sqrt and power of complex values:
// exp(a+bi) = e^a (cos b + i sin b); log z = log|z| + i atan2(b, a);
// sqrt z = sqrt((|z| + |a|)/2) on the side of a's sign, its partner
// b / (2 that), the imaginary part with b's sign (the principal root,
// without cancellation); power(z, w) = exp(w log z).
func (x *rewriter) complexMath(op string, ops []*hlo.Instruction) *hlo.Instruction {
	unary := func(name string, v *hlo.Instruction) *hlo.Instruction {
		return x.Emit(name, v.Shape.Elem, v.Shape.Dims, []*hlo.Instruction{v})
	}
	mul := func(p, q *hlo.Instruction) *hlo.Instruction { return x.Binary("multiply", p, q) }
	exp := func(z *hlo.Instruction) *hlo.Instruction {
		a, b := x.complexPart(z, 0), x.complexPart(z, 1)
		e := unary("exponential", a)
		return x.complexJoin(mul(e, unary("cosine", b)), mul(e, unary("sine", b)))
	}
	log := func(z *hlo.Instruction) *hlo.Instruction {
		a, b := x.complexPart(z, 0), x.complexPart(z, 1)
		return x.complexJoin(unary("log", x.complexAbs(z)), x.Emit("atan2", a.Shape.Elem, a.Shape.Dims, []*hlo.Instruction{b, a}))
	}
	switch op {
	case hlo.OpExponential:
		return exp(ops[0])
	case hlo.OpLog:
		return log(ops[0])
	case hlo.OpPower:
		w, l := ops[1], log(ops[0])
		wr, wi, lr, li := x.complexPart(w, 0), x.complexPart(w, 1), x.complexPart(l, 0), x.complexPart(l, 1)
		re := x.Binary("subtract", mul(wr, lr), mul(wi, li))
		im := x.Binary("add", mul(wr, li), mul(wi, lr))
		return exp(x.complexJoin(re, im))
	}
	// sqrt
	z := ops[0]
	a, b := x.complexPart(z, 0), x.complexPart(z, 1)
	d, elem := a.Shape.Dims, a.Shape.Elem
	scalar := func(v string) *hlo.Instruction { return x.Broadcast(x.Constant(elem, v), d, nil) }
	t := unary("sqrt", mul(x.Binary("add", x.complexAbs(z), unary("abs", a)), scalar("0.5")))
	// u = b / (2t); 0 when t is 0 (z = 0).
	u := x.Binary("divide", b, mul(t, scalar("2")))
	zero := x.Emit("compare", "pred", d, []*hlo.Instruction{t, scalar("0")}, "direction", "EQ")
	u = x.Emit("select", elem, d, []*hlo.Instruction{zero, scalar("0"), u})
	nonneg := x.Emit("compare", "pred", d, []*hlo.Instruction{a, scalar("0")}, "direction", "GE")
	// a >= 0: (t, u); a < 0: (|u|, copysign(t, b)).
	absU := unary("abs", u)
	signB := x.Emit("select", elem, d, []*hlo.Instruction{x.Emit("compare", "pred", d, []*hlo.Instruction{b, scalar("0")}, "direction", "LT"),
		unary("negate", t), t})
	re := x.Emit("select", elem, d, []*hlo.Instruction{nonneg, t, absU})
	im := x.Emit("select", elem, d, []*hlo.Instruction{nonneg, u, signB})
	return x.complexJoin(re, im)
}
