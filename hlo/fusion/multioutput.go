package fusion

import (
	"container/heap"
	"fmt"
	"sort"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// Multi-output loop fusion, as XLA's producer-consumer multi-output fusion
// does on a TPU: an elementwise producer of a loop fusion's shape that has
// users outside the fusion joins it anyway and becomes one more result,
// rather than ending the fusion there. A chain where every value is read
// twice (Threefry's rounds: x is added to the key and rotated, and both
// feed the next round) is then one kernel writing the values others need,
// not one kernel per reuse with every intermediate stored and read back.
//
// A producer joins only when the fusion stays convex: no path leaves it
// and comes back (member -> outside -> member), which would need the
// fusion's result before its own operand.

// maxMultiOutputTries bounds the producers tried per fusion: each try is a
// walk over the instructions the fusion spans.
const maxMultiOutputTries = 64

// maxMultiOutputMembers bounds the instructions a fusion grows to by
// taking extra results: each is a buffer of the kernel's tile, and a
// random-bit generator's expansion (Philox rounds, hundreds of values
// each read twice) would otherwise become one fusion of over a thousand.
const maxMultiOutputMembers = 64

// maxConvexSpan bounds the instructions a convexity check walks.
const maxConvexSpan = 20000

// multiOutputCandidate: p may join g as one more result.
func (f *fuser) multiOutputCandidate(g *group, p *hlo.Instruction, c *hlo.Computation, pinned map[string]bool) bool {
	return p != nil && p != c.Root && !pinned[p.Name] && p.Shape != nil && !p.Shape.IsTuple &&
		hlo.IsElementwise(p.Opcode) && !f.exclude[p.Opcode] && len(p.Operands) > 0 &&
		hlo.SameDims(p.Shape, g.root.Shape)
}

// multiOutputRoot: fusions that may take extra results are loop fusions
// whose root is elementwise and is not the computation's result.
func multiOutputRoot(g *group, c *hlo.Computation) bool {
	return g.kind == "kLoop" && g.root != c.Root && !g.root.Shape.IsTuple && hlo.IsElementwise(g.root.Opcode)
}

// convex reports whether no path of the computation leaves the members and
// comes back into them. order gives each instruction's index. Paths follow
// operands, control-predecessors and the order of instructions with side
// effects, the edges topological keeps.
func convex(c *hlo.Computation, members map[*hlo.Instruction]bool, order map[*hlo.Instruction]int, byName map[string]*hlo.Instruction) bool {
	lo, hi := len(c.Instructions), -1
	for m := range members {
		lo, hi = min(lo, order[m]), max(hi, order[m])
	}
	if hi-lo > maxConvexSpan {
		return false
	}
	// tainted: outside the members and reached from one of them.
	tainted := map[*hlo.Instruction]bool{}
	effectTainted := false // a tainted instruction with side effects came before
	for i := lo; i <= hi; i++ {
		in := c.Instructions[i]
		reached := hasSideEffect(in) && effectTainted
		from := func(name string) {
			p := byName[name]
			if p != nil && (tainted[p] || members[p] && !members[in]) {
				reached = true
			}
		}
		for _, o := range in.Operands {
			from(o.Name)
		}
		if v, ok := in.Attr("control-predecessors"); ok {
			for _, n := range strings.Split(strings.Trim(v, "{}"), ",") {
				from(strings.TrimPrefix(strings.TrimSpace(n), "%"))
			}
		}
		if !reached {
			continue
		}
		if members[in] {
			return false
		}
		tainted[in] = true
		effectTainted = effectTainted || hasSideEffect(in)
	}
	return true
}

// extendMultiOutput grows g by producers with users outside it (see the
// top of the file), each followed by the plain growth (grow) from it, and
// keeps an extension only when the fusion stays convex.
func (f *fuser) extendMultiOutput(g *group, c *hlo.Computation, groupOf map[*hlo.Instruction]*group, pinned map[string]bool,
	order map[*hlo.Instruction]int, byName map[string]*hlo.Instruction, grow func(*group, *hlo.Instruction)) {
	tried := map[*hlo.Instruction]bool{}
	for tries := 0; tries < maxMultiOutputTries && len(g.members) < maxMultiOutputMembers; tries++ {
		// The candidate closest to the root first, so that a chain is
		// taken from its end.
		var cand *hlo.Instruction
		for m := range g.members {
			for _, o := range m.Operands {
				p := byName[o.Name]
				if p == nil || g.members[p] || groupOf[p] != nil || tried[p] || !f.multiOutputCandidate(g, p, c, pinned) {
					continue
				}
				if cand == nil || order[p] > order[cand] {
					cand = p
				}
			}
		}
		if cand == nil {
			return
		}
		tried[cand] = true
		before := make(map[*hlo.Instruction]bool, len(g.members))
		for m := range g.members {
			before[m] = true
		}
		g.members[cand] = true
		groupOf[cand] = g
		grow(g, cand)
		// A dot taken in would make it an output fusion, whose kernel
		// has one result.
		if g.kind == "kLoop" && len(g.members) <= maxMultiOutputMembers && convex(c, g.members, order, byName) {
			continue
		}
		g.kind = "kLoop"
		for m := range g.members {
			if !before[m] {
				delete(g.members, m)
				delete(groupOf, m)
			}
		}
	}
}

// extraOutputs lists g's members other than its root that are read outside
// it, in program order.
func extraOutputs(g *group, users map[string][]*hlo.Instruction, order map[*hlo.Instruction]int) []*hlo.Instruction {
	var out []*hlo.Instruction
	for m := range g.members {
		if m == g.root {
			continue
		}
		for _, u := range users[m.Name] {
			if !g.members[u] {
				out = append(out, m)
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return order[out[i]] < order[out[j]] })
	return out
}

// multiOutputTuple makes fc's root a tuple of g's root and its extra
// outputs, and returns the tuple's shape.
func (f *fuser) multiOutputTuple(fc *hlo.Computation, g *group) *hlo.Shape {
	shape := &hlo.Shape{IsTuple: true}
	var ops []*hlo.Operand
	for _, r := range append([]*hlo.Instruction{g.root}, g.outputs...) {
		r.IsRoot = false
		shape.Tuple = append(shape.Tuple, r.Shape)
		ops = append(ops, &hlo.Operand{Pos: r.Pos, Name: r.Name})
	}
	t := &hlo.Instruction{Pos: g.root.Pos, Name: f.fresh("tuple"), IsRoot: true, Shape: shape, Opcode: hlo.OpTuple, Operands: ops}
	fc.Instructions = append(fc.Instructions, t)
	fc.Root = t
	return shape
}

// outputElements are the get-tuple-elements that give a multi-output
// fusion's results their original names, so that every reader, inside
// other fusions too, reads them unchanged.
func outputElements(g *group, call *hlo.Instruction) []*hlo.Instruction {
	var out []*hlo.Instruction
	for i, r := range append([]*hlo.Instruction{g.root}, g.outputs...) {
		out = append(out, &hlo.Instruction{Pos: r.Pos, Name: r.Name, Shape: r.Shape, Opcode: hlo.OpGetTupleElement,
			Operands: []*hlo.Operand{{Pos: r.Pos, Name: call.Name}},
			Attrs:    []hlo.Attr{{Pos: r.Pos, Key: "index", Value: fmt.Sprint(i)}}})
	}
	return out
}

// topological reorders instructions so that every operand comes before its
// users, keeping the given order wherever it already holds (the earliest
// ready first) and instructions with side effects, and those named in
// control-predecessors, in their relative order. A multi-output fusion
// sits where its root was; a reader of an extra output that came before
// that moves after it.
func topological(ins []*hlo.Instruction) ([]*hlo.Instruction, bool) {
	n := len(ins)
	idx := make(map[string]int, n)
	for i, in := range ins {
		idx[in.Name] = i
	}
	users := make([][]int, n)
	pending := make([]int, n)
	prevEffect := -1
	for i, in := range ins {
		seen := map[int]bool{}
		dep := func(j int) {
			if j >= 0 && j != i && !seen[j] {
				seen[j] = true
				users[j] = append(users[j], i)
				pending[i]++
			}
		}
		orderDeps(in, i, idx, &prevEffect, dep)
	}
	ready := &intHeap{}
	for i := range ins {
		if pending[i] == 0 {
			heap.Push(ready, i)
		}
	}
	out := make([]*hlo.Instruction, 0, n)
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		out = append(out, ins[i])
		for _, u := range users[i] {
			if pending[u]--; pending[u] == 0 {
				heap.Push(ready, u)
			}
		}
	}
	// A cycle: acyclic rules it out before any fusion is made, so this is
	// a bug, reported (FuseWith's error) rather than a module in an order
	// that reads values before they exist.
	if len(out) != n {
		return ins, false
	}
	return out, true
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// acyclic reports whether the computation, each group taken as one node,
// has no cycle: two multi-output fusions each reading a result of the
// other (one convex fusion at a time does not rule that out). Its edges
// are topological's.
func acyclic(c *hlo.Computation, groupOf map[*hlo.Instruction]*group) bool {
	idx := make(map[*hlo.Instruction]int, len(c.Instructions))
	for i, in := range c.Instructions {
		idx[in] = i
	}
	node := func(in *hlo.Instruction) int {
		if g := groupOf[in]; g != nil {
			return idx[g.root]
		}
		return idx[in]
	}
	n := len(c.Instructions)
	names := make(map[string]int, n)
	for i, in := range c.Instructions {
		names[in.Name] = i
	}
	succ := make([][]int, n)
	pending := make([]int, n)
	live := make([]bool, n) // the node ids in use
	prevEffect := -1
	for i, in := range c.Instructions {
		to := node(in)
		live[to] = true
		orderDeps(in, i, names, &prevEffect, func(j int) {
			if from := node(c.Instructions[j]); from != to {
				succ[from] = append(succ[from], to)
				pending[to]++
			}
		})
	}
	var ready []int
	total := 0
	for i := range n {
		if live[i] {
			total++
			if pending[i] == 0 {
				ready = append(ready, i)
			}
		}
	}
	done := 0
	for len(ready) > 0 {
		i := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		done++
		for _, u := range succ[i] {
			if pending[u]--; pending[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	return done == total
}
