package lowering

import (
	"fmt"
	"slices"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Scalars a loop fusion broadcasts, computed by the sequencer. A loop
// kernel reads only parameters and constants through broadcasts, so a
// computed scalar broadcast into it (a rotation's 32 - r in Threefry, a
// KV cache's bound pos + 32 in its mask) was a kernel of its own writing
// one element to HBM (split.go), about 280 cycles of latency for an
// integer operation. When it is an integer expression of the fusion's
// scalars (or of single elements sliced from its operands: JAX's unstack
// of a key), the loop kernel computes it on the sequencer before its first
// tile (scalarOp), stores it in scalar memory and broadcasts it from
// there, as XLA's TPU backend computes such scalars on the scalar core.

// seqScalar is one such value: its expression, operands first, the
// leaves (parameters, or elements sliced from them) as synthetic
// parameters of the same names.
type seqScalar struct {
	root   string
	elem   string
	order  []*hlo.Instruction
	leaves map[string]seqLeaf
	word   int64 // the scalar-memory word it is stored in (seqScalars)
}

// seqLeaf is an element of a fusion operand: v at element offset off.
type seqLeaf struct {
	v   *value
	off int64
}

// seqScalars finds the computed scalars body broadcasts that the sequencer
// can compute, by the name of the broadcast operand, and every body
// instruction that only they use (so the loop kernel neither computes
// nor splits them). in's operands are the fusion's.
func (c *compiler) seqScalars(in *hlo.Instruction, body []*hlo.Instruction) (map[string]*seqScalar, map[string]bool) {
	byName := map[string]*hlo.Instruction{}
	users := map[string][]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
		for _, o := range b.Operands {
			users[o.Name] = append(users[o.Name], b)
		}
	}
	out := map[string]*seqScalar{}
	inners := map[string]map[string]bool{}
	for _, b := range body {
		if b.Opcode != hlo.OpBroadcast || len(b.Operands) != 1 {
			continue
		}
		x := byName[b.Operands[0].Name]
		if x == nil || out[x.Name] != nil || x.Opcode == hlo.OpParameter || x.Opcode == hlo.OpConstant ||
			x.Shape == nil || x.Shape.IsTuple || x.Shape.Elems() != 1 || !scalarALUType[x.Shape.Elem] {
			continue
		}
		if s, inner, ok := c.seqScalarOf(in, x, byName); ok {
			out[x.Name], inners[x.Name] = s, inner
		}
	}
	for len(out) > maxSeqScalars {
		names := sortedKeys(out)
		delete(out, names[len(names)-1])
		delete(inners, names[len(names)-1])
	}
	// Their instructions must serve only them (and broadcasts): the loop
	// kernel will not compute them. Candidates that share an instruction
	// with one that fails fail too, until none does.
	members := map[string]bool{}
	for changed := true; changed; {
		changed = false
		members = map[string]bool{}
		for _, inner := range inners {
			for n := range inner {
				members[n] = true
			}
		}
		for x, inner := range inners {
			only := true
			for n := range inner {
				for _, u := range users[n] {
					only = only && (members[u.Name] || u.Opcode == hlo.OpBroadcast)
				}
			}
			if !only {
				delete(out, x)
				delete(inners, x)
				changed = true
				break
			}
		}
	}
	if leafSlots(out) > maxSeqSlots {
		return nil, nil
	}
	// The results' words first, in name order; the leaves' after them.
	for i, n := range sortedKeys(out) {
		out[n].word = condWord + 8*int64(i)
	}
	return out, members
}

func sortedKeys(m map[string]*seqScalar) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// maxSeqScalars bounds the scalars one kernel computes on the sequencer;
// maxSeqSlots the scalar-memory words their leaves and results take
// (below isa.CoreWord).
const maxSeqScalars, maxSeqSlots = 12, 24

func leafSlots(m map[string]*seqScalar) int {
	n := len(m)
	for _, s := range m {
		n += len(s.leaves)
	}
	return n
}

// seqScalarOf collects x's expression: integer ops of s32, u32 and pred
// (scalarOpOK) over constants, one-element operands, and single elements
// sliced from operands (through reshapes). inner are its instructions in
// the body.
func (c *compiler) seqScalarOf(in, x *hlo.Instruction, byName map[string]*hlo.Instruction) (*seqScalar, map[string]bool, bool) {
	s := &seqScalar{root: x.Name, elem: x.Shape.Elem, leaves: map[string]seqLeaf{}}
	inner := map[string]bool{}
	operand := func(b *hlo.Instruction) *value {
		if b == nil || b.Opcode != hlo.OpParameter || int(b.ParamNumber) >= len(in.Operands) {
			return nil
		}
		v := c.bufs[in.Operands[b.ParamNumber].Name]
		if v == nil || v.tuple != nil || v.empty || v.dt.Size() > 4 || !v.dt.IsInt() && v.dt != isa.Pred {
			return nil
		}
		return v
	}
	// leaf finds the element b reads: a one-element operand, or a slice of
	// one element of an operand in its default layout, through reshapes.
	leaf := func(b *hlo.Instruction) (seqLeaf, bool) {
		var slice *hlo.Instruction
		for b != nil && (b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast || b.Opcode == hlo.OpSlice && slice == nil) {
			if b.Opcode == hlo.OpSlice {
				slice = b
			}
			b = byName[b.Operands[0].Name]
		}
		v := operand(b)
		if v == nil {
			return seqLeaf{}, false
		}
		if slice == nil {
			return seqLeaf{v: v}, v.shape.Elems() == 1
		}
		if slice.Shape.Elems() != 1 || v.shape.Layout != nil && len(v.shape.Layout.MinorToMajor) > 0 && !defaultLayout(v.shape) {
			return seqLeaf{}, false
		}
		starts, ok := sliceStarts(slice)
		if !ok || len(starts) != len(v.shape.Dims) {
			return seqLeaf{}, false
		}
		var off int64
		for i, st := range hlo.Strides(v.shape.Dims) {
			off += starts[i] * st
		}
		return seqLeaf{v: v, off: off}, true
	}
	seen := map[string]bool{}
	var visit func(b *hlo.Instruction) bool
	visit = func(b *hlo.Instruction) bool {
		if b == nil || b.Shape == nil || b.Shape.IsTuple || b.Shape.Elems() != 1 {
			return false
		}
		if seen[b.Name] {
			return true
		}
		seen[b.Name] = true
		inner[b.Name] = true
		if l, ok := leaf(b); ok {
			if l.v.shape.Elem != b.Shape.Elem || !scalarALUType[b.Shape.Elem] {
				return false
			}
			s.leaves[b.Name] = l
			s.order = append(s.order, &hlo.Instruction{Pos: b.Pos, Name: b.Name, Opcode: hlo.OpParameter, Shape: b.Shape})
			// The slice and reshapes under it are the leaf's.
			for x := b; x != nil && x.Opcode != hlo.OpParameter; x = byName[x.Operands[0].Name] {
				inner[x.Name] = true
			}
			return true
		}
		switch {
		case b.Opcode == hlo.OpConstant:
			if _, ok := intLiteral(b); !ok || !scalarALUType[b.Shape.Elem] {
				return false
			}
		case scalarALUOps[b.Opcode] && scalarALUType[b.Shape.Elem]:
			if !scalarOpOK(b, byName) {
				return false
			}
			for _, o := range b.Operands {
				if !visit(byName[o.Name]) {
					return false
				}
			}
		default:
			return false
		}
		s.order = append(s.order, b)
		return true
	}
	if !visit(x) || len(s.order) > lastExprReg-firstExprReg+1 {
		return nil, nil, false
	}
	// The fusion's parameters and constants stay the loop kernel's too:
	// something else may read them (a parameter broadcast as it is).
	for n := range inner {
		if b := byName[n]; b != nil && (b.Opcode == hlo.OpParameter || b.Opcode == hlo.OpConstant) {
			delete(inner, n)
		}
	}
	return s, inner, true
}

// defaultLayout: a shape's layout is row-major (minor to major n-1..0).
func defaultLayout(s *hlo.Shape) bool {
	m := s.Layout.MinorToMajor
	for i, d := range m {
		if d != int64(len(m)-1-i) {
			return false
		}
	}
	return true
}

// sliceStarts reads a slice's start indices (its strides do not matter
// for one element).
func sliceStarts(b *hlo.Instruction) ([]int64, bool) {
	spec := hlo.AttrOr(b, "slice", "")
	var starts []int64
	for _, part := range splitTopLevel(spec) {
		var lo, hi int64
		if _, err := fmt.Sscanf(part, "[%d:%d", &lo, &hi); err != nil {
			return nil, false
		}
		starts = append(starts, lo)
	}
	return starts, len(starts) > 0
}

// splitTopLevel splits "{[0:1], [2:3:1]}" into "[0:1]", "[2:3:1]".
func splitTopLevel(spec string) []string {
	var out []string
	depth, start := 0, -1
	for i, r := range spec {
		switch r {
		case '[':
			if depth == 0 {
				start = i
			}
			depth++
		case ']':
			depth--
			if depth == 0 && start >= 0 {
				out = append(out, spec[start:i+1])
				start = -1
			}
		}
	}
	return out
}

// emitSeqScalars computes the scalars on the sequencer and stores each in
// its scalar-memory word. It takes r1, r4-r24 and the words from condWord.
func (c *compiler) emitSeqScalars(at *hlo.Instruction, m map[string]*seqScalar) {
	names := sortedKeys(m)
	list := make([]*seqScalar, len(names))
	for i, n := range names {
		list[i] = m[n]
	}
	slot := c.loadSeqLeaves(at, list, condWord+8*int64(len(names)))
	for _, s := range list {
		r, _ := c.computeSeqScalar(at, s, slot, firstExprReg)
		c.loc(at)
		fmt.Fprintf(&c.out, "        st      r%d, [r0+%#x]\n", r, s.word)
	}
}

// loadSeqLeaves DMAs the scalars' leaves into scalar memory, a word each
// from word on, and waits for them; it returns each leaf's word.
func (c *compiler) loadSeqLeaves(at *hlo.Instruction, list []*seqScalar, word int64) map[string]int64 {
	emit := func(format string, a ...any) {
		c.loc(at)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	slot := map[string]int64{}
	// Leaves that are the same element (a key read by several
	// expressions) share a word; the loads, each a descriptor of its
	// own, go round the DMA engines.
	type element struct {
		tensor    string
		addr, off int64
	}
	loaded := map[element]int64{}
	engines := max(c.chip.DMA.Engines, 1)
	for _, s := range list {
		for _, b := range s.order {
			if _, done := slot[b.Name]; done {
				continue
			}
			if l, ok := s.leaves[b.Name]; ok && b.Opcode == hlo.OpParameter {
				e := element{l.v.tensor, l.v.addr, l.off}
				if w, ok := loaded[e]; ok {
					slot[b.Name] = w
					continue
				}
				if len(loaded) == 0 {
					emit("semset  s0, 0")
				}
				slot[b.Name], loaded[e] = word, word
				word += 8
				emit("dma     smem[%#x]:%s[1], %s @%d signal s0", slot[b.Name], l.v.dt, view{v: l.v, strides: []int64{1}, off: l.off}.operand([]int64{1}), (len(loaded)-1)%engines)
			}
		}
	}
	if len(loaded) > 0 {
		emit("wait    s0, %d", len(loaded))
	}
	return slot
}

// computeSeqScalar computes s's expression into registers from first on
// (its leaves at their words, loadSeqLeaves): it returns its value's
// register and the first one it left free.
func (c *compiler) computeSeqScalar(at *hlo.Instruction, s *seqScalar, slot map[string]int64, first int) (int, int) {
	byName := map[string]*hlo.Instruction{}
	for _, b := range s.order {
		byName[b.Name] = b
	}
	reg := map[string]int{}
	next := first
	for _, b := range s.order {
		reg[b.Name] = next
		c.scalarOp(at, b, next, reg, slot, byName)
		next++
	}
	return reg[s.root], next
}
