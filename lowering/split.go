package lowering

import (
	"errors"
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// Splitting loop fusions. A loop kernel streams tiles of its output's
// shape: every value it computes has that shape, and only parameters and
// constants may be broadcast, reshaped, transposed or sliced on the way in
// (as DMA access patterns). XLA fuses more freely: a scalar predicate
// computed and broadcast into a select, a per-row statistic normalized and
// broadcast back, an elementwise op whose result is transposed. Such a
// value is computed here by a kernel of its own, over its own (usually
// much smaller) shape, into an HBM temporary that the fusion's kernel then
// reads like a parameter — rather than running the whole fusion op by op,
// which materializes every broadcast at full size.

// shapeChangers are the ops through which a loop kernel reads only
// parameters and constants.
var shapeChangers = map[string]bool{"broadcast": true, "reshape": true, "bitcast": true, "transpose": true, "slice": true, "reverse": true}

// inLoopKernel: ops a loop kernel computes itself (or reads through access
// patterns); any other op in a loop fusion (a gather, a dynamic slice, a
// concatenate) runs as its own kernel, its operands split out before it.
func inLoopKernel(op string) bool {
	return hlo.IsElementwise(op) || shapeChangers[op] || op == hlo.OpParameter || op == hlo.OpConstant || op == hlo.OpIota || op == hlo.OpCopy
}

// minStridedTranspose is the smallest transpose (in elements) that runs as
// a transpose kernel rather than as a loop kernel's strided load.
const minStridedTranspose = 1 << 11

// movesInnermost: a big transpose that brings another dim innermost. As a
// loop kernel's load it would read one element per DMA burst; on its own it
// is a tiled transpose through SRAM and the cross-lane unit (transpose.go).
func movesInnermost(b *hlo.Instruction) bool {
	if b.Opcode != hlo.OpTranspose || b.Shape == nil || b.Shape.Elems() < minStridedTranspose {
		return false
	}
	perm, _ := hlo.IntList(hlo.AttrOr(b, "dimensions", "{}"))
	// Dims of 1 do not count: the innermost dim of more than one element
	// must stay innermost.
	last := -1
	for i := len(perm) - 1; i >= 0; i-- {
		if b.Shape.Dims[i] > 1 {
			last = i
			break
		}
	}
	return last >= 0 && !innermostKept(perm, b.Shape.Dims, last)
}

// innermostKept: result dim last (the innermost of more than one element)
// reads the operand's innermost dim of more than one element.
func innermostKept(perm, dims []int64, last int) bool {
	// The operand's dims: operand dim perm[i] has the result's dims[i].
	opDims := make([]int64, len(perm))
	for i, p := range perm {
		opDims[p] = dims[i]
	}
	for j := len(opDims) - 1; j >= 0; j-- {
		if opDims[j] > 1 {
			return int(perm[last]) == j
		}
	}
	return true
}

// sameElements: a broadcast that only adds dims of 1, in order, is a
// reshape.
func sameElements(b *hlo.Instruction, operand *hlo.Shape) bool {
	if b.Opcode != hlo.OpBroadcast || operand == nil || b.Shape.Elems() != operand.Elems() {
		return false
	}
	dims, _ := hlo.IntList(hlo.AttrOr(b, "dimensions", "{}"))
	return slices.IsSorted(dims)
}

// splitList lists the body values a loop kernel cannot compute in its
// tiles (splitLoop makes each a kernel of its own), in body order.
func (c *compiler) splitList(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) []*hlo.Instruction {
	split, _, _ := c.splitPlan(in, body, root)
	return split
}

// splitPlan is splitList with what splitLoop goes on with: the body by
// name and the values read like parameters.
func (c *compiler) splitPlan(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) (split []*hlo.Instruction, byName map[string]*hlo.Instruction, plain map[string]bool) {
	users := map[string][]*hlo.Instruction{}
	byName = map[string]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
		for _, o := range b.Operands {
			users[o.Name] = append(users[o.Name], b)
		}
	}
	shapeOf := func(name string) *hlo.Shape {
		if b := byName[name]; b != nil {
			return b.Shape
		}
		return nil
	}
	// plain: parameters, constants and reshapes of them, which the loop
	// kernel reads through access patterns whatever their shape.
	plain = map[string]bool{}
	// Scalars the sequencer computes for the loop kernel (seqscalar.go)
	// are read like parameters.
	_, seqMembers := c.seqScalars(in, body)
	windows := windowMembers(body)
	for _, b := range body {
		switch {
		case windows[b.Name]:
			continue // read in place by their dot's kernel (dotwindows.go)
		case seqMembers[b.Name]:
			plain[b.Name] = true
			continue
		case b.Opcode == hlo.OpParameter || b.Opcode == hlo.OpConstant:
			plain[b.Name] = true
			continue
		case len(b.Operands) == 1 && plain[b.Operands[0].Name] &&
			(b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast || sameElements(b, shapeOf(b.Operands[0].Name))):
			plain[b.Name] = true
			continue
		case b.Opcode == hlo.OpSlice && plain[b.Operands[0].Name] && readThroughBroadcasts(b, users, shapeOf):
			// A slice of a parameter that broadcasts read (one kernel
			// position's weights): a view of the parameter (loop.go).
			plain[b.Name] = true
			continue
		case b.Shape == nil || b.Shape.IsTuple:
			continue
		case !inLoopKernel(b.Opcode) || movesInnermost(b):
			split = append(split, b)
			plain[b.Name] = true
			continue
		case b == root:
			continue
		}
		for _, u := range users[b.Name] {
			if shapeChangers[u.Opcode] {
				split = append(split, b)
				plain[b.Name] = true // read from its temporary from here on
				break
			}
		}
	}
	return split, byName, plain
}

// splitLoop finds the values of body that a shape-changing op reads but the
// kernel would have to compute, and the ops a loop kernel cannot compute;
// it lowers each as a kernel of its own and returns the fusion rewritten
// to read them as parameters, with what no longer contributes to root left
// out. temps are the temporaries, to release once the fusion's kernel is
// emitted. done reports that the root itself was such an op: the fusion
// is lowered. A fusion with nothing to split comes back as it was.
func (c *compiler) splitLoop(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction, extras ...*hlo.Instruction) (_ *hlo.Instruction, _ []*hlo.Instruction, temps []*value, done bool, err error) {
	split, byName, plain := c.splitPlan(in, body, root)
	if len(split) == 0 {
		return in, body, nil, false, nil
	}
	ops := append([]*hlo.Operand(nil), in.Operands...)
	inputs := map[string]bool{} // the fusion's operands' tensors: never temporaries
	for _, o := range in.Operands {
		if v := c.bufs[o.Name]; v != nil {
			for _, t := range distinctTensors(v) {
				inputs[t] = true
			}
		}
	}
	keep := func(name string) {
		if v := c.bufs[name]; v != nil && v.tensor != "" && !inputs[v.tensor] {
			temps = append(temps, v)
		}
	}
	// asParam: from here on x is read from the entry value named name.
	asParam := func(x *hlo.Instruction, name string) {
		byName[x.Name] = &hlo.Instruction{Pos: x.Pos, Name: x.Name, Opcode: "parameter", ParamNumber: int64(len(ops)), Shape: x.Shape}
		ops = append(ops, &hlo.Operand{Pos: x.Pos, Name: name})
	}
	// value lowers body value x on its own (a parameter is its operand's
	// value) and names its entry value.
	var value func(x *hlo.Instruction) (string, error)
	value = func(x *hlo.Instruction) (string, error) {
		x = byName[x.Name]
		name := in.Name + "/" + x.Name
		switch {
		case x.Opcode == hlo.OpParameter:
			if int(x.ParamNumber) >= len(ops) {
				return "", c.fail(in, "fused parameter %d has no operand", x.ParamNumber)
			}
			return ops[x.ParamNumber].Name, nil
		case x.Opcode == hlo.OpReduce && x != root:
			// A reduction inside the fusion (a softmax's max and sum)
			// reads its elementwise producers itself, as a kInput
			// fusion's kernel does, rather than through an HBM temporary
			// of its input's full size (a log-softmax over a 128K
			// vocabulary materialized 8 GiB per producer).
			if name, ok, err := c.reducePiece(in, x, name, ops, byName); err != nil || ok {
				if ok {
					keep(name)
				}
				return name, err
			}
		case x.Opcode == hlo.OpDot && x != root:
			// A dot reading windows in place: a dot kernel over them.
			if windowedDot(producers(byName, x), x) {
				k := &hlo.Instruction{Pos: in.Pos, Name: name, Opcode: in.Opcode, Shape: x.Shape, Attrs: in.Attrs, Operands: ops}
				at := c.mark()
				err := c.piece(false, func() error { return c.onCores(func() error { return c.dotKernel(k, producers(byName, x), x) }) })
				var le *Error
				if err == nil {
					keep(name)
					return name, nil
				}
				if !errors.As(err, &le) || le.outOfHBM {
					return "", err
				}
				c.rollback(at)
			}
			fallthrough
		case !inLoopKernel(x.Opcode) || movesInnermost(x) || x.Opcode == hlo.OpConstant || (x.Opcode == hlo.OpReshape || x.Opcode == hlo.OpBitcast) && plain[x.Operands[0].Name]:
			// Its own instruction, over its operands' values.
			cp := *x
			cp.Name = name
			if x == root {
				cp.Name = in.Name
			}
			cp.Operands = make([]*hlo.Operand, len(x.Operands))
			for i, o := range x.Operands {
				n, err := value(byName[o.Name])
				if err != nil {
					return "", err
				}
				cp.Operands[i] = &hlo.Operand{Pos: o.Pos, Name: n}
			}
			if err := c.piece(x == root, func() error { return c.instruction(&cp) }); err != nil {
				return "", err
			}
			if x != root {
				keep(cp.Name)
			}
			return cp.Name, nil
		}
		// A loop kernel of its own, over its producers.
		k := &hlo.Instruction{Pos: in.Pos, Name: name, Opcode: in.Opcode, Shape: x.Shape, Attrs: in.Attrs, Operands: ops}
		if err := c.piece(false, func() error { return c.onCores(func() error { return c.loopKernel(k, producers(byName, x), x) }) }); err != nil {
			return "", err
		}
		keep(name)
		return name, nil
	}
	for _, x := range split {
		name, err := value(x)
		if err != nil {
			return nil, nil, temps, false, err
		}
		if x == root {
			return nil, nil, temps, true, nil
		}
		asParam(x, name)
	}
	cp := *in
	cp.Operands = ops
	return &cp, producers(byName, root, extras...), temps, false, nil
}

// reducePiece lowers reduce x of a split fusion as a reduce kernel over its
// producers in the fusion (kernel name, reading ops). ok is false, with
// nothing emitted, when the reduce kernel does not take that pattern: the
// caller then lowers x over materialized operands.
func (c *compiler) reducePiece(in, x *hlo.Instruction, name string, ops []*hlo.Operand, byName map[string]*hlo.Instruction) (_ string, ok bool, _ error) {
	k := &hlo.Instruction{Pos: in.Pos, Name: name, Opcode: in.Opcode, Shape: x.Shape, Attrs: in.Attrs, Operands: ops}
	at := c.mark()
	err := c.piece(false, func() error {
		return c.onCores(func() error { return c.reduceKernel(k, producers(byName, x), x) })
	})
	if err == nil {
		return name, true, nil
	}
	var le *Error
	if !errors.As(err, &le) || le.outOfHBM {
		return "", false, err
	}
	c.rollback(at)
	return "", false, nil
}

// producers lists root (and extras) and every instruction they read,
// directly or through others (looked up by name), each after its operands.
func producers(byName map[string]*hlo.Instruction, root *hlo.Instruction, extras ...*hlo.Instruction) []*hlo.Instruction {
	seen := map[*hlo.Instruction]bool{}
	var out []*hlo.Instruction
	var visit func(b *hlo.Instruction)
	visit = func(b *hlo.Instruction) {
		if b == nil || seen[b] {
			return
		}
		seen[b] = true
		for _, o := range b.Operands {
			visit(byName[o.Name])
		}
		out = append(out, b)
	}
	for _, r := range append([]*hlo.Instruction{root}, extras...) {
		visit(byName[r.Name])
	}
	return out
}

// piece lowers one piece of a split fusion. Only its last piece (the
// fusion's root) may take over an operand that dies at the fusion (an
// update or an elementwise result in place, loopstate.go): the pieces
// before it run while later ones may still read the operand.
func (c *compiler) piece(last bool, lower func() error) error {
	if last {
		return lower()
	}
	defer func(d []string) { c.dyingNow = d }(c.dyingNow)
	c.dyingNow = nil
	return lower()
}

// readThroughBroadcasts reports whether b's value is read only by
// broadcasts, through reshapes that only drop or add dims of one: the
// loop kernel then reads it in place as a view (loopKernelRest's pviews).
func readThroughBroadcasts(b *hlo.Instruction, users map[string][]*hlo.Instruction, shapeOf func(string) *hlo.Shape) bool {
	us := users[b.Name]
	for _, u := range us {
		switch {
		case u.Opcode == hlo.OpBroadcast:
		case (u.Opcode == hlo.OpReshape || u.Opcode == hlo.OpBitcast) && unitReshape(b.Shape.Dims, u.Shape.Dims) &&
			readThroughBroadcasts(u, users, shapeOf):
		default:
			return false
		}
	}
	return len(us) > 0
}

// unitReshape reports whether dims from and to differ only in dims of one.
func unitReshape(from, to []int64) bool {
	var a, b []int64
	for _, d := range from {
		if d != 1 {
			a = append(a, d)
		}
	}
	for _, d := range to {
		if d != 1 {
			b = append(b, d)
		}
	}
	return slices.Equal(a, b)
}
