package fusion

import (
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// ScheduleForMemory reorders a computation's instructions to lower the
// peak of bytes live at once, greedily, as XLA's list scheduler does
// before buffer assignment: of the instructions whose operands are all
// computed, it takes the one that frees the most bytes net of the bytes
// it allocates (the earliest in the original order on ties).
//
// The order a front end prints is rarely the one to run: PyTorch/XLA
// dumps a training step with every weight gradient after the whole
// backward pass, so each layer's activation gradient waits in memory for
// its weight gradient to the end. The greedy order runs the weight
// gradient as soon as its operands exist and frees both.
//
// What the order keeps: every operand before its users; parameters first
// and the root last; instructions with side effects (infeed, outfeed,
// send/recv, custom calls, rng, collectives) and control-predecessors in
// their original relative order. get-tuple-element, tuple and bitcast
// allocate nothing: they keep their operands' buffers alive.
func ScheduleForMemory(c *hlo.Computation) {
	n := len(c.Instructions)
	if n < 3 {
		return
	}
	idx := make(map[string]int, n)
	for i, in := range c.Instructions {
		idx[in.Name] = i
	}
	// owners[i]: the buffers value i keeps alive. Buffer i is the array
	// instruction i makes; a tuple-shaped one (a multi-output fusion, a
	// loop) makes a buffer per element, numbered from n, each freed when
	// its own readers are done, as XLA's buffer assignment frees them.
	owners := make([][]int, n)
	size := make([]int64, n)  // by buffer
	alloc := make([]int64, n) // by instruction: the bytes it allocates
	elems := make([][]int, n) // a tuple producer's element buffers
	for i, in := range c.Instructions {
		if aliasOps[in.Opcode] {
			if in.Opcode == hlo.OpGetTupleElement && len(in.Operands) == 1 {
				j, ok := idx[in.Operands[0].Name]
				k, err := strconv.Atoi(hlo.AttrOr(in, "index", "-1"))
				if ok && j < i && err == nil && k >= 0 {
					if k < len(elems[j]) {
						owners[i] = []int{elems[j][k]}
						continue
					}
					if t := c.Instructions[j]; t.Opcode == hlo.OpTuple && k < len(t.Operands) {
						if e, ok := idx[t.Operands[k].Name]; ok && e < j {
							owners[i] = owners[e]
							continue
						}
					}
				}
			}
			seen := map[int]bool{}
			for _, o := range in.Operands {
				if j, ok := idx[o.Name]; ok && j < i {
					for _, b := range owners[j] {
						if !seen[b] {
							seen[b] = true
							owners[i] = append(owners[i], b)
						}
					}
				}
			}
			continue
		}
		alloc[i] = in.Shape.Bytes()
		if in.Shape.IsTuple && len(in.Shape.Tuple) > 1 {
			for _, e := range in.Shape.Tuple {
				elems[i] = append(elems[i], len(size))
				owners[i] = append(owners[i], len(size))
				size = append(size, e.Bytes())
			}
			continue
		}
		owners[i] = []int{i}
		size[i] = alloc[i]
	}
	// deps[i]: instructions that must run before i; left[b]: uses of
	// buffer b not yet scheduled (a use through an alias counts at the
	// alias's users; the root's buffers are used to the end).
	deps := make([][]int, n)
	users := make([][]int, n)
	left := make([]int, len(size))
	prevEffect := -1
	for i, in := range c.Instructions {
		seen := map[int]bool{}
		addDep := func(j int) {
			if j >= 0 && j != i && !seen[j] {
				seen[j] = true
				deps[i] = append(deps[i], j)
				users[j] = append(users[j], i)
			}
		}
		orderDeps(in, i, idx, &prevEffect, addDep)
		if !aliasOps[in.Opcode] {
			for _, b := range bufferUses(in, idx, owners) {
				left[b]++
			}
		}
	}
	root := idx[c.Root.Name]
	for _, b := range owners[root] {
		left[b]++ // live to the end
	}
	pending := make([]int, n)
	for i := range deps {
		pending[i] = len(deps[i])
	}
	done := make([]bool, n)
	var order []*hlo.Instruction
	var ready []int
	take := func(i int) {
		done[i] = true
		order = append(order, c.Instructions[i])
		if !aliasOps[c.Instructions[i].Opcode] {
			for _, b := range bufferUses(c.Instructions[i], idx, owners) {
				left[b]--
			}
		}
		for _, u := range users[i] {
			if pending[u]--; pending[u] == 0 && u != root {
				ready = append(ready, u)
			}
		}
	}
	// Parameters first, in their order.
	for i, in := range c.Instructions {
		if in.Opcode == hlo.OpParameter && pending[i] == 0 {
			take(i)
		}
	}
	ready = ready[:0] // rebuilt: the parameters' users are among these
	for i := range c.Instructions {
		if !done[i] && pending[i] == 0 && i != root && c.Instructions[i].Opcode != hlo.OpParameter {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		best, bestGain := -1, int64(0)
		for k, i := range ready {
			in := c.Instructions[i]
			gain := -alloc[i]
			if !aliasOps[in.Opcode] {
				for _, b := range bufferUses(in, idx, owners) {
					if left[b] == 1 {
						gain += size[b]
					}
				}
			}
			if best < 0 || gain > bestGain || gain == bestGain && i < ready[best] {
				best, bestGain = k, gain
			}
		}
		i := ready[best]
		ready[best] = ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		take(i)
	}
	if !done[root] {
		take(root)
	}
	if len(order) != n { // a cycle or a dangling name: keep the original order
		return
	}
	c.Instructions = order
}

// aliasOps produce no buffer of their own.
var aliasOps = map[string]bool{"get-tuple-element": true, "tuple": true, "bitcast": true}

// bufferUses lists the buffers an instruction reads, each once.
func bufferUses(in *hlo.Instruction, idx map[string]int, owners [][]int) []int {
	var out []int
	for _, o := range in.Operands {
		j, ok := idx[o.Name]
		if !ok {
			continue
		}
	next:
		for _, b := range owners[j] {
			for _, x := range out {
				if x == b {
					continue next
				}
			}
			out = append(out, b)
		}
	}
	return out
}

// hasSideEffect: instructions whose relative order is observable.
func hasSideEffect(in *hlo.Instruction) bool {
	switch in.Opcode {
	case hlo.OpInfeed, hlo.OpOutfeed, hlo.OpSend, hlo.OpSendDone, hlo.OpRecv, hlo.OpRecvDone, hlo.OpCustomCall, hlo.OpRng,
		hlo.OpAfterAll, hlo.OpAddDependency, hlo.OpAllReduce, hlo.OpAllGather, hlo.OpAllToAll, hlo.OpReduceScatter,
		hlo.OpCollectivePermute, hlo.OpAllReduceStart, hlo.OpAllReduceDone, hlo.OpAllGatherStart, hlo.OpAllGatherDone,
		hlo.OpCollectivePermuteStart, hlo.OpCollectivePermuteDone, hlo.OpCopyStart, hlo.OpCopyDone:
		return true
	}
	return false
}

// orderDeps calls dep with the index of every instruction that in (at
// index i) must follow: its operands, those its control-predecessors
// name, and the instruction with side effects before it (*prevEffect,
// which it updates; -1 for none). The orders this package makes keep
// these edges.
func orderDeps(in *hlo.Instruction, i int, idx map[string]int, prevEffect *int, dep func(int)) {
	for _, o := range in.Operands {
		if j, ok := idx[o.Name]; ok {
			dep(j)
		}
	}
	if v, ok := in.Attr("control-predecessors"); ok {
		for _, name := range strings.Split(strings.Trim(v, "{}"), ",") {
			if j, ok := idx[strings.TrimPrefix(strings.TrimSpace(name), "%")]; ok {
				dep(j)
			}
		}
	}
	if hasSideEffect(in) {
		if *prevEffect >= 0 {
			dep(*prevEffect)
		}
		*prevEffect = i
	}
}
