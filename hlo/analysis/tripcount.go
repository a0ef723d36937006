package analysis

import (
	"encoding/json"
	"github.com/pulse-sim/pulse/hlo"
	"math"
	"strconv"
	"strings"
)

// KnownTripCount reads a while's backend_config={"known_trip_count":{"n":"N"}},
// the trip count XLA's WhileLoopTripCountAnnotator records.
func KnownTripCount(w *hlo.Instruction) (int64, bool) {
	v, ok := w.Attr("backend_config")
	if !ok {
		return 0, false
	}
	if u, err := strconv.Unquote(v); err == nil {
		v = u // backend_config="{...}", the older quoted form
	}
	var bc struct {
		KnownTripCount *struct {
			N json.Number `json:"n"`
		} `json:"known_trip_count"`
	}
	if json.Unmarshal([]byte(v), &bc) != nil || bc.KnownTripCount == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(bc.KnownTripCount.N.String(), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// TripCount is how many times the while instruction w (in computation c)
// runs its body, when that is known without running it: the recorded
// known_trip_count, else the counted loop every front end writes — a
// tuple element that starts at an integer constant, is compared LT/LE/GT/GE
// with an integer constant by the condition, and steps by a constant in
// the body (i = c0; i < N; i += k).
func TripCount(m *hlo.Module, c *hlo.Computation, w *hlo.Instruction) (int64, bool) {
	if n, ok := KnownTripCount(w); ok {
		return n, true
	}
	cond, body := m.Callee(w, "condition"), m.Callee(w, "body")
	if cond == nil || body == nil || len(w.Operands) != 1 {
		return 0, false
	}
	init := Def(c, w.Operands[0].Name)
	if init == nil || init.Opcode != hlo.OpTuple {
		return 0, false
	}
	r := cond.Root
	if r == nil || r.Opcode != hlo.OpCompare || len(r.Operands) != 2 {
		return 0, false
	}
	dir, _ := r.Attr("direction")
	a, b := Def(cond, r.Operands[0].Name), Def(cond, r.Operands[1].Name)
	k, ok := paramElement(cond, a)
	limit, lok := intConstant(b)
	if !ok {
		// N > i is i < N.
		k, ok = paramElement(cond, b)
		limit, lok = intConstant(a)
		dir = map[string]string{"GT": "LT", "GE": "LE", "LT": "GT", "LE": "GE"}[dir]
	}
	if !ok || !lok || k >= int64(len(init.Operands)) {
		return 0, false
	}
	start, ok := intConstant(defOperand(init, c, k))
	if !ok {
		return 0, false
	}
	step, ok := counterStep(body, k)
	if !ok {
		return 0, false
	}
	var n int64
	switch {
	case dir == "LT" && step > 0:
		n = ceilDiv(limit-start, step)
	case dir == "LE" && step > 0:
		n = ceilDiv(limit-start+1, step)
	case dir == "GT" && step < 0:
		n = ceilDiv(start-limit, -step)
	case dir == "GE" && step < 0:
		n = ceilDiv(start-limit+1, -step)
	default:
		return 0, false
	}
	return max(n, 0), true
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// counterStep is k in "i' = i + k" for tuple element i of the body's
// parameter, when the body's root tuple computes it so.
func counterStep(body *hlo.Computation, i int64) (int64, bool) {
	r := body.Root
	if r == nil || r.Opcode != hlo.OpTuple || i >= int64(len(r.Operands)) {
		return 0, false
	}
	next := defOperand(r, body, i)
	if next == nil || (next.Opcode != hlo.OpAdd && next.Opcode != hlo.OpSubtract) || len(next.Operands) != 2 {
		return 0, false
	}
	x, y := Def(body, next.Operands[0].Name), Def(body, next.Operands[1].Name)
	if j, ok := paramElement(body, x); ok && j == i {
		if k, ok := intConstant(y); ok {
			if next.Opcode == hlo.OpSubtract {
				k = -k
			}
			return k, true
		}
	}
	if j, ok := paramElement(body, y); ok && j == i && next.Opcode == hlo.OpAdd {
		return intConstant(x)
	}
	return 0, false
}

// paramElement is i when x is get-tuple-element(parameter(0)), index=i.
func paramElement(c *hlo.Computation, x *hlo.Instruction) (int64, bool) {
	if x == nil || x.Opcode != hlo.OpGetTupleElement || len(x.Operands) != 1 {
		return 0, false
	}
	p := Def(c, x.Operands[0].Name)
	if p == nil || p.Opcode != hlo.OpParameter || p.ParamNumber != 0 {
		return 0, false
	}
	v, ok := x.Attr("index")
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(v, 10, 64)
	return i, err == nil
}

// intConstant is the value of an integer scalar constant.
func intConstant(x *hlo.Instruction) (int64, bool) {
	if x == nil || x.Opcode != hlo.OpConstant || x.Shape == nil || len(x.Shape.Dims) != 0 || hlo.IsFloat(x.Shape.Elem) {
		return 0, false
	}
	n, err := strconv.ParseInt(x.Literal, 10, 64)
	return n, err == nil
}

// Def is the instruction of c named name, or nil.
func Def(c *hlo.Computation, name string) *hlo.Instruction {
	for _, in := range c.Instructions {
		if in.Name == name {
			return in
		}
	}
	return nil
}

// defOperand is the instruction that x's operand i names in c, or nil.
func defOperand(x *hlo.Instruction, c *hlo.Computation, i int64) *hlo.Instruction {
	if i < 0 || i >= int64(len(x.Operands)) {
		return nil
	}
	return Def(c, x.Operands[i].Name)
}

// ExecutedCost is the module's work as a run does it, where ComputeStats
// counts each computation once: a while's body and condition count their
// trip count times, a computation counts once per call site that runs it,
// a conditional counts its costliest branch. unknown lists the whiles
// whose trip count is not known without running them (counted once).
func ExecutedCost(m *hlo.Module) (total Cost, unknown []string) {
	entry := m.Entry
	if entry == nil {
		return total, nil
	}
	var walk func(c *hlo.Computation, depth int) Cost
	walk = func(c *hlo.Computation, depth int) Cost {
		var sum Cost
		if depth > maxCallDepth {
			return sum // a cycle; Verify reports it
		}
		for _, in := range c.Instructions {
			k := InstructionCost(c, in, OperandShapes(c, in))
			callees := m.CalledBy(in)
			switch {
			case in.Opcode == hlo.OpWhile:
				n, ok := TripCount(m, c, in)
				if !ok {
					n = 1
					unknown = append(unknown, in.Name)
				}
				for _, cc := range callees {
					k = k.plus(walk(cc, depth+1).times(n))
				}
			case in.Opcode == hlo.OpConditional:
				var most Cost
				for _, cc := range callees {
					if b := walk(cc, depth+1); b.FLOPs > most.FLOPs || (b.FLOPs == most.FLOPs && b.Bytes > most.Bytes) {
						most = b
					}
				}
				k = k.plus(most)
			default:
				// Reducers, comparators and scatter combiners run per
				// element: their scalar cost is in the caller's own.
				if in.Opcode == hlo.OpFusion || in.Opcode == hlo.OpCall || in.Opcode == hlo.OpAsyncStart || in.Opcode == hlo.OpCustomCall {
					for _, cc := range callees {
						k = k.plus(walk(cc, depth+1))
					}
				}
			}
			sum = sum.plus(k)
		}
		return sum
	}
	return walk(entry, 0), unknown
}

// maxCallDepth bounds ExecutedCost's walk.
const maxCallDepth = 1000

// Sums and products saturate: nested loops of absurd trip counts must not
// wrap to a small cost.
func (k Cost) plus(o Cost) Cost { return Cost{satAdd(k.FLOPs, o.FLOPs), satAdd(k.Bytes, o.Bytes)} }

func (k Cost) times(n int64) Cost { return Cost{satMul(k.FLOPs, n), satMul(k.Bytes, n)} }

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, n int64) int64 {
	if a != 0 && n > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * n
}

// NeverEnds reports whether the while w provably runs forever: its
// condition's root is the constant true, and nothing its body does
// (transitively) can stop it from outside (infeed, recv: a feed that runs
// dry ends the run) or is unknown to Pulse (custom calls). A module with
// such a loop ran to the 10^10-cycle limit (67-130 s) before it was told.
func NeverEnds(m *hlo.Module, w *hlo.Instruction) bool {
	cond, body := m.Callee(w, "condition"), m.Callee(w, "body")
	if cond == nil || body == nil || cond.Root == nil || cond.Root.Opcode != hlo.OpConstant {
		return false
	}
	if strings.TrimSpace(cond.Root.Literal) != "true" {
		return false
	}
	// Only what could end the run from outside keeps the loop possible:
	// a feed or a peer that runs dry, or a custom call Pulse cannot see.
	stoppable := false
	walk(m, body, func(in *hlo.Instruction) {
		switch strings.TrimSuffix(strings.TrimSuffix(in.Opcode, "-start"), "-done") {
		case "infeed", "recv", "custom-call", "send":
			stoppable = true
		}
	})
	return !stoppable
}

// walk visits every instruction of c and of what it calls, once each.
func walk(m *hlo.Module, c *hlo.Computation, f func(*hlo.Instruction)) {
	seen := map[*hlo.Computation]bool{}
	var visit func(c *hlo.Computation)
	visit = func(c *hlo.Computation) {
		if c == nil || seen[c] {
			return
		}
		seen[c] = true
		for _, in := range c.Instructions {
			f(in)
			for _, callee := range m.CalledBy(in) {
				visit(callee)
			}
		}
	}
	visit(c)
}

// Quiet reports whether running c (and what it calls) only computes: it
// takes nothing from outside (infeed, recv, random numbers), gives nothing
// out (outfeed, send), calls nothing Pulse does not know (custom calls),
// and meets no other device (collectives). A loop of such a body whose
// state comes back unchanged runs forever.
func Quiet(m *hlo.Module, c *hlo.Computation) bool {
	quiet := true
	walk(m, c, func(in *hlo.Instruction) {
		switch strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(in.Opcode, "-start"), "-done"), "-update") {
		case "infeed", "outfeed", "recv", "send", "custom-call", "rng", "rng-get-and-update-state",
			"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "ragged-all-to-all", "collective-permute", "collective-broadcast":
			quiet = false
		}
	})
	return quiet
}
