package rewrite

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
	"strings"
)

// Each calls expand for every instruction with the opcode, in
// every computation, with the instruction's operands; expand emits the
// replacement through the rewriter.
func Each(m *hlo.Module, opcode string, expand func(x *Rewriter, ops []*hlo.Instruction) error) error {
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
			x := &Rewriter{M: m, At: in, Taken: taken}
			ops := make([]*hlo.Instruction, len(in.Operands))
			for i, o := range in.Operands {
				ops[i] = byName[o.Name]
				if ops[i] == nil || ops[i].Shape == nil {
					return x.Errorf("operand %s is not defined before it", o.Name)
				}
			}
			if err := expand(x, ops); err != nil {
				return err
			}
			byName[in.Name] = x.Splice(c)
			out = append(out, x.Out...)
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

// MaxExpandedOps bounds what one convolution may expand into, so a
// convolution with thousands of groups is an error, not a hang.
const MaxExpandedOps = 20000

type Rewriter struct {
	M     *hlo.Module
	Taken map[string]bool  // names in use in the computation
	At    *hlo.Instruction // the instruction replaced: position and name prefix
	Out   []*hlo.Instruction
	N     int
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

// Splice makes the last instruction x emitted the one it replaces: it
// takes the replaced instruction's name and its place as c's root.
func (x *Rewriter) Splice(c *hlo.Computation) *hlo.Instruction {
	last := x.Out[len(x.Out)-1]
	last.Name, last.IsRoot = x.At.Name, x.At.IsRoot
	if c.Root == x.At {
		c.Root = last
	}
	return last
}

func (x *Rewriter) Errorf(format string, args ...any) error {
	return &ExpandError{Pos: x.At.Pos, Name: x.At.Name, Opcode: x.At.Opcode, Reason: fmt.Sprintf(format, args...)}
}

func (x *Rewriter) Emit(op, elem string, dims []int64, operands []*hlo.Instruction, attrs ...string) *hlo.Instruction {
	x.N++
	name := fmt.Sprintf("%s.%s.%d", x.At.Name, op, x.N)
	for x.Taken[name] {
		x.N++
		name = fmt.Sprintf("%s.%s.%d", x.At.Name, op, x.N)
	}
	x.Taken[name] = true
	in := &hlo.Instruction{Pos: x.At.Pos, Name: name,
		Shape: &hlo.Shape{Elem: elem, Dims: append([]int64{}, dims...)}, Opcode: op}
	for _, o := range operands {
		in.Operands = append(in.Operands, &hlo.Operand{Pos: x.At.Pos, Name: o.Name})
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		in.Attrs = append(in.Attrs, hlo.Attr{Pos: x.At.Pos, Key: attrs[i], Value: attrs[i+1]})
	}
	x.Out = append(x.Out, in)
	return in
}

func (x *Rewriter) Transpose(a *hlo.Instruction, perm []int64) *hlo.Instruction {
	identity := true
	dims := make([]int64, len(perm))
	for i, p := range perm {
		dims[i] = a.Shape.Dims[p]
		identity = identity && p == int64(i)
	}
	if identity {
		return a
	}
	return x.Emit("transpose", a.Shape.Elem, dims, []*hlo.Instruction{a}, "dimensions", hlo.IntsText(perm))
}

func (x *Rewriter) Reshape(a *hlo.Instruction, dims []int64) *hlo.Instruction {
	if hlo.EqualDims(a.Shape.Dims, dims) {
		return a
	}
	return x.Emit("reshape", a.Shape.Elem, dims, []*hlo.Instruction{a})
}

func (x *Rewriter) Convert(a *hlo.Instruction, elem string) *hlo.Instruction {
	if a.Shape.Elem == elem {
		return a
	}
	return x.Emit("convert", elem, a.Shape.Dims, []*hlo.Instruction{a})
}

// Slice takes start:start+(count-1)*stride+1:stride in every dimension.
func (x *Rewriter) Slice(a *hlo.Instruction, start, count, stride []int64) *hlo.Instruction {
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
	return x.Emit("slice", a.Shape.Elem, count, []*hlo.Instruction{a}, "slice", "{"+strings.Join(parts, ", ")+"}")
}

func (x *Rewriter) Constant(elem, lit string) *hlo.Instruction {
	return x.Emit("constant", elem, nil, nil).WithLiteral(lit)
}

func (x *Rewriter) Binary(op string, a, b *hlo.Instruction) *hlo.Instruction {
	if a == nil {
		return b
	}
	return x.Emit(op, a.Shape.Elem, a.Shape.Dims, []*hlo.Instruction{a, b})
}

func (x *Rewriter) Broadcast(a *hlo.Instruction, dims, mapping []int64) *hlo.Instruction {
	if hlo.EqualDims(a.Shape.Dims, dims) {
		return a
	}
	return x.Emit("broadcast", a.Shape.Elem, dims, []*hlo.Instruction{a}, "dimensions", hlo.IntsText(mapping))
}

// ReduceSum sums a over dims.
func (x *Rewriter) ReduceSum(a *hlo.Instruction, dims []int64) *hlo.Instruction {
	return x.Reduce(hlo.OpAdd, a, dims, "0")
}

// Reduce folds a over dims with one elementwise op (add, maximum, minimum,
// and, or, ...) from the literal init, through a reducer computation
// pulse.OP.ELEM shared by every such reduce of the module.
func (x *Rewriter) Reduce(op string, a *hlo.Instruction, dims []int64, init string) *hlo.Instruction {
	elem := a.Shape.Elem
	name := "pulse." + op + "." + elem
	if op == hlo.OpAdd {
		name = "pulse.add." + elem
	}
	if x.M.Computation(name) == nil {
		s := &hlo.Shape{Elem: elem}
		p0 := &hlo.Instruction{Pos: x.At.Pos, Name: "a", Shape: s, Opcode: "parameter"}
		p1 := &hlo.Instruction{Pos: x.At.Pos, Name: "b", Shape: s, Opcode: "parameter", ParamNumber: 1}
		r := &hlo.Instruction{Pos: x.At.Pos, Name: "r", Shape: s, Opcode: op, IsRoot: true,
			Operands: []*hlo.Operand{{Pos: x.At.Pos, Name: "a"}, {Pos: x.At.Pos, Name: "b"}}}
		if op == hlo.OpAdd {
			r.Name = "sum"
		}
		c := &hlo.Computation{Pos: x.At.Pos, Name: name, Instructions: []*hlo.Instruction{p0, p1, r}, Root: r}
		x.M.Computations = append([]*hlo.Computation{c}, x.M.Computations...)
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
	return x.Emit("reduce", elem, kept, []*hlo.Instruction{a, x.Constant(elem, init)}, "dimensions", hlo.IntsText(dims), "to_apply", "%"+name)
}

func (x *Rewriter) Concatenate(parts []*hlo.Instruction, dim int) *hlo.Instruction {
	if len(parts) == 1 {
		return parts[0]
	}
	dims := append([]int64{}, parts[0].Shape.Dims...)
	dims[dim] = 0
	for _, p := range parts {
		dims[dim] += p.Shape.Dims[dim]
	}
	return x.Emit("concatenate", parts[0].Shape.Elem, dims, parts, "dimensions", hlo.IntsText([]int64{int64(dim)}))
}

func (x *Rewriter) ScalarLike(a *hlo.Instruction, v float64) *hlo.Instruction {
	c := x.Constant(a.Shape.Elem, strconv.FormatFloat(v, 'g', -1, 64))
	return x.Broadcast(c, a.Shape.Dims, nil)
}

// InF32 computes f on a converted to f32 and converts the result back.
func (x *Rewriter) InF32(a *hlo.Instruction, f func(*hlo.Instruction) *hlo.Instruction) *hlo.Instruction {
	elem := a.Shape.Elem
	return x.Convert(f(x.Convert(a, "f32")), elem)
}

// FinishAll ends the replacement with its results: a tuple of them when
// the replaced instruction returns a tuple, else the one result.
func (x *Rewriter) FinishAll(res []*hlo.Instruction) {
	if x.At.Shape.IsTuple {
		t := x.Emit("tuple", "", nil, res)
		t.Shape = x.At.Shape
		return
	}
	x.Finish(res[0])
}

// Finish makes r the rewritten instruction's value: rewriteEach names the
// last emitted instruction after the original, so r must be last (a copy
// when an expansion ends elsewhere, e.g. when no conversion was needed).
func (x *Rewriter) Finish(r *hlo.Instruction) {
	if len(x.Out) == 0 || x.Out[len(x.Out)-1] != r {
		x.Emit("copy", r.Shape.Elem, r.Shape.Dims, []*hlo.Instruction{r})
	}
}

// SliceDim takes count elements from start along one dimension.
func (x *Rewriter) SliceDim(a *hlo.Instruction, dim int, start, count int64) *hlo.Instruction {
	st := make([]int64, len(a.Shape.Dims))
	cnt := append([]int64{}, a.Shape.Dims...)
	one := make([]int64, len(st))
	for i := range one {
		one[i] = 1
	}
	st[dim], cnt[dim] = start, count
	return x.Slice(a, st, cnt, one)
}

// Apply emits body's instructions elementwise over args (arrays of one
// shape, in parameter order): scalar constants are broadcast, every other
// instruction takes the arrays' dimensions. It returns the body's results.
func (x *Rewriter) Apply(body *hlo.Computation, args []*hlo.Instruction) ([]*hlo.Instruction, error) {
	if len(args) == 0 {
		return nil, x.Errorf("a reducer applied to nothing")
	}
	dims := args[0].Shape.Dims
	val := map[string]*hlo.Instruction{}
	used := LiveInstructions(body)
	for _, b := range body.Instructions {
		if !used[b] && b.Opcode != hlo.OpParameter {
			continue
		}
		switch b.Opcode {
		case hlo.OpParameter:
			val[b.Name] = args[b.ParamNumber]
			continue
		case hlo.OpConstant:
			c := x.Constant(b.Shape.Elem, b.Literal)
			val[b.Name] = x.Broadcast(c, dims, nil)
			continue
		}
		ops := make([]*hlo.Instruction, len(b.Operands))
		for i, o := range b.Operands {
			if ops[i] = val[o.Name]; ops[i] == nil {
				return nil, x.Errorf("the reducer's %s reads %s before it is defined", b.Name, o.Name)
			}
		}
		if b == body.Root && b.Opcode == hlo.OpTuple {
			return ops, nil
		}
		e := x.Emit(b.Opcode, b.Shape.Elem, dims, ops)
		for _, a := range b.Attrs {
			e.Attrs = append(e.Attrs, hlo.Attr{Pos: x.At.Pos, Key: a.Key, Value: a.Value})
		}
		val[b.Name] = e
	}
	r := val[body.Root.Name]
	if r == nil {
		return nil, x.Errorf("the reducer has no result")
	}
	return []*hlo.Instruction{r}, nil
}

// LiveInstructions are the instructions of c its root depends on.
func LiveInstructions(c *hlo.Computation) map[*hlo.Instruction]bool {
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
