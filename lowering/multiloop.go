package lowering

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// multiOutputLoop lowers a loop fusion whose root is a tuple: XLA's
// multi-output fusions, and those hlo/fusion makes when an elementwise
// producer is read outside the fusion too (hlo/fusion/multioutput.go).
//
// When every result has the same dims and nothing in the body needs a
// kernel of its own, it is one stream kernel that stores each result per
// tile: the values computed once, each written once. Otherwise each
// result is a loop kernel of its own over its producers in the body,
// recomputing what they share (as XLA would have without the
// multi-output fusion), rather than the whole body run op by op.
func (c *compiler) multiOutputLoop(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) error {
	if root == nil || root.Opcode != hlo.OpTuple || len(root.Operands) == 0 {
		return c.fail(in, "a loop fusion of tuple shape whose root is not a tuple is not lowered")
	}
	byName := make(map[string]*hlo.Instruction, len(body))
	for _, b := range body {
		byName[b.Name] = b
	}
	var results []*hlo.Instruction
	for _, o := range root.Operands {
		x := byName[o.Name]
		if x == nil || x.Shape == nil || x.Shape.IsTuple {
			return c.fail(root, "result %s of the fusion is not an array computed in it", o.Name)
		}
		results = append(results, x)
	}
	at := c.mark()
	err := c.oneMultiOutputKernel(in, body, results)
	var le *Error
	if err == nil || !errors.As(err, &le) || le.outOfHBM {
		return err
	}
	c.rollback(at)
	if !fewShared(byName, body, results) {
		return err // run unfused, each op once (lower.go)
	}
	fmt.Fprintf(&c.out, "\n; %s (multi-output) runs as a kernel per result: %s\n", in.Name, le.Error())
	if err := c.multiOutputPieces(in, byName, results); err != nil {
		return err
	}
	c.res.Split = append(c.res.Split, Unfused{Fusion: in.Name, Pos: in.Pos, Reason: le.Error()})
	return nil
}

// oneMultiOutputKernel is the single kernel of multiOutputLoop.
func (c *compiler) oneMultiOutputKernel(in *hlo.Instruction, body []*hlo.Instruction, results []*hlo.Instruction) error {
	seen := map[*hlo.Instruction]bool{}
	for _, x := range results {
		if seen[x] {
			return c.fail(x, "result %s appears twice", x.Name)
		}
		seen[x] = true
		if x.Opcode == hlo.OpParameter || !hlo.SameDims(x.Shape, results[0].Shape) {
			return c.fail(x, "result %s is not computed over the first result's dims", x.Name)
		}
	}
	// The body without the tuple: root is the first result.
	var inner []*hlo.Instruction
	for _, b := range body {
		if b.Opcode != hlo.OpTuple {
			inner = append(inner, b)
		}
	}
	return c.loopKernelOf(in, inner, results[0], results[1:])
}

// fewShared reports whether lowering each result over its own producers
// computes at most twice the body's work: where the results share deep
// producers (an XLA fusion of 46 results over one chain of reshapes,
// jax_issue26162_mof_reshapes_fusion), recomputing them per result cost
// ten times running the body op by op.
func fewShared(byName map[string]*hlo.Instruction, body, results []*hlo.Instruction) bool {
	work := func(list []*hlo.Instruction) int {
		n := 0
		for _, b := range list {
			if b.Opcode != hlo.OpParameter && b.Opcode != hlo.OpTuple {
				n++
			}
		}
		return n
	}
	total := 0
	for _, x := range results {
		total += work(producers(byName, x))
	}
	return total <= 2*work(body)
}

// multiOutputPieces lowers each result as a loop kernel of its own.
func (c *compiler) multiOutputPieces(in *hlo.Instruction, byName map[string]*hlo.Instruction, results []*hlo.Instruction) error {
	v := &value{shape: in.Shape}
	done := map[*hlo.Instruction]*value{}
	for i, x := range results {
		if d := done[x]; d != nil {
			v.tuple = append(v.tuple, d)
			continue
		}
		k := &hlo.Instruction{Pos: in.Pos, Name: in.Name + "/" + x.Name, Opcode: in.Opcode, Shape: x.Shape, Attrs: in.Attrs, Operands: in.Operands}
		// Only the last may take over an operand that dies here: the
		// ones before it run while later ones still read it.
		if err := c.piece(i == len(results)-1, func() error { return c.loopKernel(k, producers(byName, x), x) }); err != nil {
			return err
		}
		done[x] = c.bufs[k.Name]
		v.tuple = append(v.tuple, c.bufs[k.Name])
	}
	c.bufs[in.Name] = v
	return nil
}

// multiOutputBuffers places a multi-output loop kernel's results: each in
// an operand that dies here and that the body reads only at the result's
// own indices, as elementwiseInPlace places a single result (an AdamW
// step's new weights and both moments over their donated parameters),
// the others in new arrays.
func (c *compiler) multiOutputBuffers(in *hlo.Instruction, body []*hlo.Instruction, results []*hlo.Instruction) (*value, error) {
	v := &value{shape: in.Shape}
	// Each result is read outside by its own name in in's scope; a loop
	// body's results prefer the state buffers they return to.
	scope := in.Name[:strings.LastIndex(in.Name, "/")+1]
	taken := map[string]bool{}
	for _, x := range results {
		if t := c.preferIn[scope+x.Name]; t != "" {
			taken[t] = true // kept for the result that returns to it
		}
	}
	for i, x := range results {
		prefer := c.preferIn[scope+x.Name]
		delete(taken, prefer)
		e := c.inPlaceFor(in, body, x.Shape, taken, prefer)
		if e == nil {
			var err error
			if e, err = c.alloc(in, x.Shape, ""); err != nil {
				return nil, err
			}
			c.inTuple(e, i)
		} else {
			taken[e.tensor] = true
		}
		v.tuple = append(v.tuple, e)
	}
	return v, nil
}
