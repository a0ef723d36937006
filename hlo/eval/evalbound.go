package eval

import "github.com/pulse-sim/pulse/hlo"

// EvalLowerBound is a lower bound on the live elements the evaluator will
// hold evaluating m (what MaxLiveElements counts), and the instruction
// where the bound is reached; found without evaluating, so that a caller
// can refuse a check before a long simulation rather than after it (a
// sharded BERT attention simulated for 101 s, then its --check stopped on
// the budget).
//
// It walks the entry computation in order, as the evaluator does, holding
// each value until its last use. It counts what the evaluator must hold at
// the least: the result an instruction computes in full (every element a
// float64 while it computes), and every other live value at half, as
// packed (evalstore.go). Values that may alias others (reshapes, tuples,
// a while's or call's or fusion's result, a dynamic-update-slice written
// in place) count nothing, and what called computations hold inside is
// not counted: the evaluator may need more, never less.
func EvalLowerBound(m *hlo.Module) (int64, *hlo.Instruction) {
	c := m.Entry
	if c == nil {
		return 0, nil
	}
	last := map[string]int{}
	for i, in := range c.Instructions {
		for _, o := range in.Operands {
			last[o.Name] = i
		}
	}
	if c.Root != nil {
		last[c.Root.Name] = len(c.Instructions)
	}
	counts := func(in *hlo.Instruction) bool {
		return !allocatesNothing[in.Opcode] && in.Opcode != hlo.OpDynamicUpdateSlice && in.Opcode != hlo.OpConstant || in.Opcode == hlo.OpParameter
	}
	var live, best int64
	var at *hlo.Instruction
	dying := map[int][]int64{} // index of last use -> halves freed after it
	for i, in := range c.Instructions {
		n := in.Shape.Elems()
		if n < 0 {
			n = 0
		}
		if counts(in) {
			if in.Opcode != hlo.OpParameter && live+n > best {
				best, at = live+n, in
			}
			half := (n + 1) / 2
			if j, ok := last[in.Name]; ok && j > i {
				live += half
				dying[j] = append(dying[j], half)
			}
		}
		for _, h := range dying[i] {
			live -= h
		}
		if live > best {
			best, at = live, in
		}
	}
	return best, at
}
