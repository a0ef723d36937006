package expand

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
	"strings"
)

// A rewriter replaces one instruction by a sequence of simpler ones (the
// expansions of convolutions and batch norms): every new instruction keeps
// the replaced one's position, so errors and the debug map point at it, is
// named "name.op.N", and the last takes the replaced instruction's name.

// rewriteEach calls expand for every instruction with the opcode, in
// every computation, with the instruction's operands; expand emits the
// replacement through the rewriter.
func rewriteEach(m *hlo.Module, opcode string, expand func(x *rewriter, ops []*hlo.Instruction) error) error {
	for _, c := range m.Computations {
		if !HasOpcode(c, opcode) {
			continue
		}
		byName := map[string]*hlo.Instruction{}
		taken := map[string]bool{}
		for _, in := range c.Instructions {
			taken[in.Name] = true
		}
		var out []*hlo.Instruction
		for _, in := range c.Instructions {
			byName[in.Name] = in
			if in.Opcode != opcode {
				out = append(out, in)
				continue
			}
			x := &rewriter{m: m, at: in, taken: taken}
			ops := make([]*hlo.Instruction, len(in.Operands))
			for i, o := range in.Operands {
				ops[i] = byName[o.Name]
				if ops[i] == nil || ops[i].Shape == nil {
					return x.errorf("operand %s is not defined before it", o.Name)
				}
			}
			if err := expand(x, ops); err != nil {
				return err
			}
			byName[in.Name] = x.splice(c)
			out = append(out, x.out...)
		}
		c.Instructions = out
	}
	return nil
}

func HasOpcode(c *hlo.Computation, op string) bool {
	for _, in := range c.Instructions {
		if in.Opcode == op {
			return true
		}
	}
	return false
}

// maxExpandedOps bounds what one convolution may expand into, so a
// convolution with thousands of groups is an error, not a hang.
const maxExpandedOps = 20000

type rewriter struct {
	m     *hlo.Module
	taken map[string]bool  // names in use in the computation
	at    *hlo.Instruction // the instruction replaced: position and name prefix
	out   []*hlo.Instruction
	n     int
}

// ExpandError is an instruction a rewrite cannot express.
type ExpandError struct {
	Pos    hlo.Pos
	Name   string
	Opcode string
	Reason string
}

func (e *ExpandError) Error() string {
	return fmt.Sprintf("%s: %s: %s: %s", e.Pos, e.Name, e.Opcode, e.Reason)
}

// splice makes the last instruction x emitted the one it replaces: it
// takes the replaced instruction's name and its place as c's root.
func (x *rewriter) splice(c *hlo.Computation) *hlo.Instruction {
	last := x.out[len(x.out)-1]
	last.Name, last.IsRoot = x.at.Name, x.at.IsRoot
	if c.Root == x.at {
		c.Root = last
	}
	return last
}

func (x *rewriter) errorf(format string, args ...any) error {
	return &ExpandError{Pos: x.at.Pos, Name: x.at.Name, Opcode: x.at.Opcode, Reason: fmt.Sprintf(format, args...)}
}

func (x *rewriter) emit(op, elem string, dims []int64, operands []*hlo.Instruction, attrs ...string) *hlo.Instruction {
	x.n++
	name := fmt.Sprintf("%s.%s.%d", x.at.Name, op, x.n)
	for x.taken[name] {
		x.n++
		name = fmt.Sprintf("%s.%s.%d", x.at.Name, op, x.n)
	}
	x.taken[name] = true
	in := &hlo.Instruction{Pos: x.at.Pos, Name: name,
		Shape: &hlo.Shape{Elem: elem, Dims: append([]int64{}, dims...)}, Opcode: op}
	for _, o := range operands {
		in.Operands = append(in.Operands, &hlo.Operand{Pos: x.at.Pos, Name: o.Name})
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		in.Attrs = append(in.Attrs, hlo.Attr{Pos: x.at.Pos, Key: attrs[i], Value: attrs[i+1]})
	}
	x.out = append(x.out, in)
	return in
}

func (x *rewriter) transpose(a *hlo.Instruction, perm []int64) *hlo.Instruction {
	identity := true
	dims := make([]int64, len(perm))
	for i, p := range perm {
		dims[i] = a.Shape.Dims[p]
		identity = identity && p == int64(i)
	}
	if identity {
		return a
	}
	return x.emit("transpose", a.Shape.Elem, dims, []*hlo.Instruction{a}, "dimensions", hlo.IntsText(perm))
}

func (x *rewriter) reshape(a *hlo.Instruction, dims []int64) *hlo.Instruction {
	if hlo.EqualDims(a.Shape.Dims, dims) {
		return a
	}
	return x.emit("reshape", a.Shape.Elem, dims, []*hlo.Instruction{a})
}

func (x *rewriter) convert(a *hlo.Instruction, elem string) *hlo.Instruction {
	if a.Shape.Elem == elem {
		return a
	}
	return x.emit("convert", elem, a.Shape.Dims, []*hlo.Instruction{a})
}

// slice takes start:start+(count-1)*stride+1:stride in every dimension.
func (x *rewriter) slice(a *hlo.Instruction, start, count, stride []int64) *hlo.Instruction {
	identity := true
	parts := make([]string, len(start))
	for i := range start {
		limit := start[i] + (count[i]-1)*stride[i] + 1
		if count[i] == 0 {
			limit = start[i]
		}
		parts[i] = fmt.Sprintf("[%d:%d:%d]", start[i], limit, stride[i])
		identity = identity && start[i] == 0 && count[i] == a.Shape.Dims[i] && (stride[i] == 1 || count[i] <= 1)
	}
	if identity {
		return a
	}
	return x.emit("slice", a.Shape.Elem, count, []*hlo.Instruction{a}, "slice", "{"+strings.Join(parts, ", ")+"}")
}

func (x *rewriter) constant(elem, lit string) *hlo.Instruction {
	return x.emit("constant", elem, nil, nil).WithLiteral(lit)
}

func (x *rewriter) binary(op string, a, b *hlo.Instruction) *hlo.Instruction {
	if a == nil {
		return b
	}
	return x.emit(op, a.Shape.Elem, a.Shape.Dims, []*hlo.Instruction{a, b})
}

func (x *rewriter) broadcast(a *hlo.Instruction, dims, mapping []int64) *hlo.Instruction {
	if hlo.EqualDims(a.Shape.Dims, dims) {
		return a
	}
	return x.emit("broadcast", a.Shape.Elem, dims, []*hlo.Instruction{a}, "dimensions", hlo.IntsText(mapping))
}

// reduceSum sums a over dims.
func (x *rewriter) reduceSum(a *hlo.Instruction, dims []int64) *hlo.Instruction {
	elem := a.Shape.Elem
	name := "pulse.add." + elem
	if x.m.Computation(name) == nil {
		s := &hlo.Shape{Elem: elem}
		p0 := &hlo.Instruction{Pos: x.at.Pos, Name: "a", Shape: s, Opcode: "parameter"}
		p1 := &hlo.Instruction{Pos: x.at.Pos, Name: "b", Shape: s, Opcode: "parameter", ParamNumber: 1}
		r := &hlo.Instruction{Pos: x.at.Pos, Name: "sum", Shape: s, Opcode: "add", IsRoot: true,
			Operands: []*hlo.Operand{{Pos: x.at.Pos, Name: "a"}, {Pos: x.at.Pos, Name: "b"}}}
		c := &hlo.Computation{Pos: x.at.Pos, Name: name, Instructions: []*hlo.Instruction{p0, p1, r}, Root: r}
		x.m.Computations = append([]*hlo.Computation{c}, x.m.Computations...)
	}
	var kept []int64
	drop := map[int64]bool{}
	for _, d := range dims {
		drop[d] = true
	}
	for i, d := range a.Shape.Dims {
		if !drop[int64(i)] {
			kept = append(kept, d)
		}
	}
	zero := x.constant(elem, "0")
	return x.emit("reduce", elem, kept, []*hlo.Instruction{a, zero}, "dimensions", hlo.IntsText(dims), "to_apply", "%"+name)
}

func (x *rewriter) concatenate(parts []*hlo.Instruction, dim int) *hlo.Instruction {
	if len(parts) == 1 {
		return parts[0]
	}
	dims := append([]int64{}, parts[0].Shape.Dims...)
	dims[dim] = 0
	for _, p := range parts {
		dims[dim] += p.Shape.Dims[dim]
	}
	return x.emit("concatenate", parts[0].Shape.Elem, dims, parts, "dimensions", hlo.IntsText([]int64{int64(dim)}))
}

func (x *rewriter) scalarLike(a *hlo.Instruction, v float64) *hlo.Instruction {
	c := x.constant(a.Shape.Elem, strconv.FormatFloat(v, 'g', -1, 64))
	return x.broadcast(c, a.Shape.Dims, nil)
}

// inF32 computes f on a converted to f32 and converts the result back.
func (x *rewriter) inF32(a *hlo.Instruction, f func(*hlo.Instruction) *hlo.Instruction) *hlo.Instruction {
	elem := a.Shape.Elem
	return x.convert(f(x.convert(a, "f32")), elem)
}

// finishAll ends the replacement with its results: a tuple of them when
// the replaced instruction returns a tuple, else the one result.
func (x *rewriter) finishAll(res []*hlo.Instruction) {
	if x.at.Shape.IsTuple {
		t := x.emit("tuple", "", nil, res)
		t.Shape = x.at.Shape
		return
	}
	x.finish(res[0])
}

// finish makes r the rewritten instruction's value: rewriteEach names the
// last emitted instruction after the original, so r must be last (a copy
// when an expansion ends elsewhere, e.g. when no conversion was needed).
func (x *rewriter) finish(r *hlo.Instruction) {
	if len(x.out) == 0 || x.out[len(x.out)-1] != r {
		x.emit("copy", r.Shape.Elem, r.Shape.Dims, []*hlo.Instruction{r})
	}
}

// sliceDim takes count elements from start along one dimension.
func (x *rewriter) sliceDim(a *hlo.Instruction, dim int, start, count int64) *hlo.Instruction {
	st := make([]int64, len(a.Shape.Dims))
	cnt := append([]int64{}, a.Shape.Dims...)
	one := make([]int64, len(st))
	for i := range one {
		one[i] = 1
	}
	st[dim], cnt[dim] = start, count
	return x.slice(a, st, cnt, one)
}

// apply emits body's instructions elementwise over args (arrays of one
// shape, in parameter order): scalar constants are broadcast, every other
// instruction takes the arrays' dimensions. It returns the body's results.
func (x *rewriter) apply(body *hlo.Computation, args []*hlo.Instruction) ([]*hlo.Instruction, error) {
	if len(args) == 0 {
		return nil, x.errorf("a reducer applied to nothing")
	}
	dims := args[0].Shape.Dims
	val := map[string]*hlo.Instruction{}
	used := liveInstructions(body)
	for _, b := range body.Instructions {
		if !used[b] && b.Opcode != "parameter" {
			continue
		}
		switch b.Opcode {
		case "parameter":
			val[b.Name] = args[b.ParamNumber]
			continue
		case "constant":
			c := x.constant(b.Shape.Elem, b.Literal)
			val[b.Name] = x.broadcast(c, dims, nil)
			continue
		}
		ops := make([]*hlo.Instruction, len(b.Operands))
		for i, o := range b.Operands {
			if ops[i] = val[o.Name]; ops[i] == nil {
				return nil, x.errorf("the reducer's %s reads %s before it is defined", b.Name, o.Name)
			}
		}
		if b == body.Root && b.Opcode == "tuple" {
			return ops, nil
		}
		e := x.emit(b.Opcode, b.Shape.Elem, dims, ops)
		for _, a := range b.Attrs {
			e.Attrs = append(e.Attrs, hlo.Attr{Pos: x.at.Pos, Key: a.Key, Value: a.Value})
		}
		val[b.Name] = e
	}
	r := val[body.Root.Name]
	if r == nil {
		return nil, x.errorf("the reducer has no result")
	}
	return []*hlo.Instruction{r}, nil
}

// liveInstructions are the instructions of c its root depends on.
func liveInstructions(c *hlo.Computation) map[*hlo.Instruction]bool {
	byName := map[string]*hlo.Instruction{}
	for _, in := range c.Instructions {
		byName[in.Name] = in
	}
	live := map[*hlo.Instruction]bool{}
	var visit func(in *hlo.Instruction)
	visit = func(in *hlo.Instruction) {
		if in == nil || live[in] {
			return
		}
		live[in] = true
		for _, o := range in.Operands {
			visit(byName[o.Name])
		}
	}
	visit(c.Root)
	return live
}
