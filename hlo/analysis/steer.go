package analysis

import (
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// Steering returns the instructions of m whose values control flow can
// read: the static dependence slice of every loop condition, branch
// selector, dynamic start index and gather or scatter index. A timing-only
// simulation must compute exactly these values (and nothing else) to take
// the path a value run takes; it finds them by running (core.Simulate),
// one run per link of a chain it has not seen, and this slice, known
// before the first run, lets it start with most of them.
//
// The slice follows values through tuples element by element: a loop's
// counter is one element of a state that also carries the model's weights
// and activations, and taking the whole state would take the whole model.
// A computation's parameter stands for what its callers pass: a loop
// body's for the loop's initial state and the body's own result (the
// next iteration's state), a branch's for the conditional's operand, a
// fusion's or call's for the call's operand. Everything else depends on
// all of its operands. The result over-approximates (an op that reads
// only part of an operand is taken to need all of it), which costs a
// timing-only run host time, never a wrong cycle.
func Steering(m *hlo.Module) map[*hlo.Instruction]bool {
	s := newSteerer(m)
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for _, i := range steeringOperands(in) {
				s.visitOperand(c, in, i, "")
			}
			if in.Opcode == hlo.OpWhile {
				if cond := m.Callee(in, "condition"); cond != nil && cond.Root != nil {
					s.visit(cond.Root, "")
				}
			}
		}
	}
	s.run()
	return s.marked
}

// steeringOperands are the operands of in whose values the lowering reads
// into scalar memory.
func steeringOperands(in *hlo.Instruction) []int {
	n := len(in.Operands)
	var from, to int
	switch in.Opcode {
	case hlo.OpConditional:
		from, to = 0, 1
	case hlo.OpDynamicSlice:
		from, to = 1, n
	case hlo.OpDynamicUpdateSlice:
		from, to = 2, n
	case hlo.OpGather:
		from, to = 1, 2
	case hlo.OpScatter:
		// scatter(operands..., indices, updates...): N, 1, N.
		from = (n - 1) / 2
		to = from + 1
	default:
		return nil
	}
	var out []int
	for i := from; i < to && i < n; i++ {
		out = append(out, i)
	}
	return out
}

// A steerNode is one value: an instruction's result, or the element of
// its tuple at path ("" the whole value, "2.0" element 0 of element 2).
type steerNode struct {
	in   *hlo.Instruction
	path string
}

type callSite struct {
	at   *hlo.Instruction
	from *hlo.Computation // the computation at belongs to
	role string           // body, condition, branch, calls, other
	arg  int              // for branch: which of the conditional's operands
}

type steerer struct {
	m      *hlo.Module
	defs   map[*hlo.Computation]map[string]*hlo.Instruction
	owner  map[*hlo.Instruction]*hlo.Computation
	calls  map[*hlo.Computation][]callSite
	seen   map[steerNode]bool
	work   []steerNode
	marked map[*hlo.Instruction]bool
}

func newSteerer(m *hlo.Module) *steerer {
	s := &steerer{m: m, defs: map[*hlo.Computation]map[string]*hlo.Instruction{},
		owner: map[*hlo.Instruction]*hlo.Computation{}, calls: map[*hlo.Computation][]callSite{},
		seen: map[steerNode]bool{}, marked: map[*hlo.Instruction]bool{}}
	for _, c := range m.Computations {
		d := make(map[string]*hlo.Instruction, len(c.Instructions))
		for _, in := range c.Instructions {
			d[in.Name] = in
			s.owner[in] = c
		}
		s.defs[c] = d
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			s.noteCalls(c, in)
		}
	}
	return s
}

// noteCalls records the computations in calls and the role each plays.
func (s *steerer) noteCalls(c *hlo.Computation, in *hlo.Instruction) {
	add := func(callee *hlo.Computation, role string, arg int) {
		if callee != nil {
			s.calls[callee] = append(s.calls[callee], callSite{at: in, from: c, role: role, arg: arg})
		}
	}
	switch in.Opcode {
	case hlo.OpWhile:
		add(s.m.Callee(in, "body"), "body", 0)
		add(s.m.Callee(in, "condition"), "condition", 0)
		return
	case hlo.OpConditional:
		if v, ok := in.Attr("branch_computations"); ok {
			for i, n := range strings.Split(strings.Trim(v, "{}"), ",") {
				add(s.m.Computation(strings.TrimPrefix(strings.TrimSpace(n), "%")), "branch", i+1)
			}
			return
		}
		add(s.m.Callee(in, "true_computation"), "branch", 1)
		add(s.m.Callee(in, "false_computation"), "branch", 2)
		return
	case hlo.OpFusion, hlo.OpCall, hlo.OpAsyncStart:
		add(s.m.Callee(in, "calls"), "calls", 0)
		add(s.m.Callee(in, "to_apply"), "calls", 0)
		return
	}
	for _, callee := range s.m.CalledBy(in) {
		add(callee, "other", 0)
	}
}

func (s *steerer) visit(in *hlo.Instruction, path string) {
	if in == nil {
		return
	}
	n := steerNode{in, path}
	if !s.seen[n] {
		s.seen[n] = true
		s.work = append(s.work, n)
	}
}

// visitOperand visits operand i of in (in computation c) at path.
func (s *steerer) visitOperand(c *hlo.Computation, in *hlo.Instruction, i int, path string) {
	if c == nil || i < 0 || i >= len(in.Operands) {
		return
	}
	s.visit(s.defs[c][in.Operands[i].Name], path)
}

func (s *steerer) allOperands(c *hlo.Computation, in *hlo.Instruction) {
	for i := range in.Operands {
		s.visitOperand(c, in, i, "")
	}
}

func (s *steerer) run() {
	for len(s.work) > 0 {
		n := s.work[len(s.work)-1]
		s.work = s.work[:len(s.work)-1]
		s.step(n.in, n.path)
	}
}

// step visits what the value of in at path depends on.
func (s *steerer) step(in *hlo.Instruction, path string) {
	s.marked[in] = true
	c := s.owner[in]
	switch in.Opcode {
	case hlo.OpTuple:
		if path == "" {
			s.allOperands(c, in)
			return
		}
		head, rest := splitPath(path)
		s.visitOperand(c, in, head, rest)
	case hlo.OpGetTupleElement:
		i, err := hlo.IntAttr(in, "index")
		if err != nil {
			s.allOperands(c, in)
			return
		}
		s.visitOperand(c, in, 0, joinPath(int(i), path))
	case hlo.OpParameter:
		for _, site := range s.calls[c] {
			switch site.role {
			case "body", "condition":
				s.visitOperand(site.from, site.at, 0, path)
				if body := s.m.Callee(site.at, "body"); body != nil {
					s.visit(body.Root, path)
				}
			case "branch":
				s.visitOperand(site.from, site.at, site.arg, path)
			case "calls":
				s.visitOperand(site.from, site.at, int(in.ParamNumber), path)
			default:
				s.allOperands(site.from, site.at)
			}
		}
	case hlo.OpWhile:
		s.visitOperand(c, in, 0, path)
		if body := s.m.Callee(in, "body"); body != nil {
			s.visit(body.Root, path)
		}
	case hlo.OpConditional:
		s.visitOperand(c, in, 0, "")
		for _, branch := range s.m.CalledBy(in) {
			if branch.Root != nil {
				s.visit(branch.Root, path)
			}
		}
	case hlo.OpFusion, hlo.OpCall:
		// Inside, so that one output of a multi-output fusion or a
		// call's tuple does not take all of its operands.
		callee := s.m.Callee(in, "calls")
		if callee == nil {
			callee = s.m.Callee(in, "to_apply")
		}
		if callee == nil || callee.Root == nil {
			s.allOperands(c, in)
			return
		}
		s.visit(callee.Root, path)
	case hlo.OpOptimizationBarrier, hlo.OpOptBarrier:
		s.visitOperand(c, in, 0, path)
	case hlo.OpCopy:
		if in.Shape != nil && in.Shape.IsTuple {
			s.visitOperand(c, in, 0, path)
			return
		}
		s.allOperands(c, in)
	default:
		s.allOperands(c, in)
	}
}

func splitPath(path string) (int, string) {
	head, rest, _ := strings.Cut(path, ".")
	i, err := strconv.Atoi(head)
	if err != nil {
		return -1, ""
	}
	return i, rest
}

func joinPath(i int, path string) string {
	if path == "" {
		return strconv.Itoa(i)
	}
	return strconv.Itoa(i) + "." + path
}
