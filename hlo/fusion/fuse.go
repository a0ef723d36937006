package fusion

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// The fusion pass groups a pre-optimization module's instructions into
// kernels the way XLA's instruction fusion does, so that the lowering sees
// what XLA's backends see:
//
//   - kLoop: elementwise ops with their elementwise producers (and the
//     data movement XLA fuses: broadcast, reshape, transpose, slice, pad,
//     concatenate, ...), one loop over the output;
//   - kInput: a reduce with the elementwise producers of its inputs;
//   - kOutput: a dot or convolution with its elementwise epilogue (bias,
//     activation, convert): the epilogue reads the accumulator.
//
// A producer joins its consumer's fusion only when every user of the
// producer is in that fusion, so no work is done twice — except for
// broadcasts, iotas, small constants and cheap elementwise ops of them
// (masks), which cost little to recompute and are duplicated into each
// fusion that reads them. Dots, convolutions
// and reductions never join as producers (their results are kernel
// boundaries), and a dot's operands stay outside its fusion, but for
// conversions and a convolution's windows side by side (windows.go). Fusion never
// changes an instruction's arithmetic, so the evaluator gives the same
// bits before and after.

// FuseStats counts what Fuse did.
type FuseStats struct {
	Fusions     map[string]int // by kind: kLoop, kInput, kOutput
	Fused       int            // instructions moved into fusions
	Duplicated  int            // cheap producers copied into more than one fusion
	MultiOutput int            // fusions with extra results (multioutput.go)
	// KernelBytes is what the entry's kernels (its fusions and unfused
	// ops) read and write, each operand and result once: the HBM traffic
	// of a machine that moves every kernel's inputs and outputs once and
	// keeps nothing on chip between kernels.
	KernelBytes int64
	// AlreadyFused is set when the module had fusions and was left as it was.
	AlreadyFused bool
}

// notKernels are the entry instructions that move no data of their own.
var notKernels = hlo.OpSet(`parameter constant get-tuple-element tuple bitcast after-all`)

// kernelBytes sums, over c's instructions that are kernels, their
// operands' and result's bytes.
func kernelBytes(c *hlo.Computation) int64 {
	shapes := map[string]*hlo.Shape{}
	var n int64
	for _, in := range c.Instructions {
		shapes[in.Name] = in.Shape
		if notKernels[in.Opcode] || in.Shape == nil {
			continue
		}
		n += in.Shape.Bytes()
		for _, o := range in.Operands {
			if s := shapes[o.Name]; s != nil {
				n += s.Bytes()
			}
		}
	}
	return n
}

// producerOps may join a consumer's loop or input fusion.
var producerOps = hlo.OpSet(`broadcast reshape bitcast transpose iota constant slice
	concatenate pad reverse dynamic-slice copy gather ` + strings.Join(hlo.ElementwiseOps(), " "))

// CheapOps are duplicated into every fusion that reads them.
var CheapOps = map[string]bool{"broadcast": true, "iota": true, "constant": true}

// maxDuplicatedConstant is the largest constant (in elements) copied into
// several fusions; bigger ones are read from memory.
const maxDuplicatedConstant = 16

// Fuse returns the module with its computations fused, and what it did.
// The module must have been verified (every instruction has its shape).
// Modules that already contain fusions are returned unchanged.
func Fuse(m *hlo.Module) (*hlo.Module, FuseStats, error) {
	return FuseWith(m, FuseOptions{})
}

// FuseOptions adapt fusion to a backend, as XLA's backends each decide what
// is fusible.
type FuseOptions struct {
	// Exclude lists ops that neither join nor start fusions (a backend
	// that lowers them better on their own).
	Exclude []string
	// MultiOutput lets a loop fusion take elementwise producers that are
	// also read outside it, as extra results (multioutput.go), for a
	// backend that lowers such fusions as one kernel.
	MultiOutput bool
	// ViewRoots lists excluded ops that still root a fusion of data
	// movement alone: their producers that only move elements (slice,
	// reshape, bitcast, transpose, reverse) join them, so that the
	// backend's kernel reads its operands through those views rather than
	// from copies (a concatenate of windows sliced from one array).
	ViewRoots []string
}

// viewMoves are the producers a ViewRoots fusion takes.
var viewMoves = hlo.OpSet("slice reshape bitcast transpose reverse")

// FuseWith is Fuse with backend options.
func FuseWith(m *hlo.Module, opt FuseOptions) (*hlo.Module, FuseStats, error) {
	st := FuseStats{Fusions: map[string]int{}}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == hlo.OpFusion {
				st.AlreadyFused = true
				return m, st, nil
			}
			if in.Shape == nil {
				return nil, st, fmt.Errorf("%s: %s has no shape (verify the module first)", in.Pos, in.Name)
			}
		}
	}
	f := &fuser{m: m, st: &st, names: map[string]bool{}, exclude: map[string]bool{}, viewRoots: map[string]bool{}, multiOutput: opt.MultiOutput}
	for _, op := range opt.Exclude {
		f.exclude[op] = true
	}
	for _, op := range opt.ViewRoots {
		f.viewRoots[op] = true
	}
	for _, c := range m.Computations {
		f.names[c.Name] = true
		for _, in := range c.Instructions {
			f.names[in.Name] = true
		}
	}
	embedded := embeddedComputations(m)
	var out []*hlo.Computation
	for _, c := range m.Computations {
		if !embedded[c.Name] {
			out = append(out, f.computation(c)...)
		}
		out = append(out, c)
	}
	m.Computations = out
	if f.err != nil {
		return nil, st, f.err
	}
	if m.Entry != nil {
		st.KernelBytes = kernelBytes(m.Entry)
	}
	return m, st, nil
}

// embeddedComputations are the scalar computations applied per element
// (reducers, comparators, selectors, map functions, a custom call's
// called computations): they are not kernels.
func embeddedComputations(m *hlo.Module) map[string]bool {
	emb := map[string]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for _, a := range in.Attrs {
				switch a.Key {
				case "to_apply":
					if in.Opcode != hlo.OpCall {
						emb[strings.TrimPrefix(a.Value, "%")] = true
					}
				case "select", "scatter", "comparator":
					emb[strings.TrimPrefix(a.Value, "%")] = true
				case "called_computations":
					// A custom call's computations (a TopK comparator) are
					// its own business: left as written.
					for _, n := range strings.Split(strings.Trim(a.Value, "{}"), ",") {
						emb[strings.TrimPrefix(strings.TrimSpace(n), "%")] = true
					}
				}
			}
		}
	}
	return emb
}

type fuser struct {
	m           *hlo.Module
	st          *FuseStats
	names       map[string]bool
	next        int
	exclude     map[string]bool
	viewRoots   map[string]bool
	multiOutput bool
	err         error // the first internal error (topological)
}

// fresh returns an instruction or computation name not used in the module
// (names holds both kinds).
func (f *fuser) fresh(base string) string {
	for {
		f.next++
		n := fmt.Sprintf("%s.%d", base, f.next)
		if !f.names[n] {
			f.names[n] = true
			return n
		}
	}
}

// group is one fusion being built: its root and members (instructions of
// the computation, in their original order once sorted).
type group struct {
	root    *hlo.Instruction
	members map[*hlo.Instruction]bool
	kind    string
	// viewOnly: the root is a ViewRoots op, taking only data movement.
	viewOnly bool
	// outputs are the members other than the root read outside the
	// group (multioutput.go): the fusion's results after the root's.
	outputs []*hlo.Instruction
}

func (f *fuser) computation(c *hlo.Computation) []*hlo.Computation {
	f.duplicateCheapProducers(c)
	users := map[string][]*hlo.Instruction{}
	byName := map[string]*hlo.Instruction{}
	pinned := map[string]bool{} // named in control-predecessors: keep as is
	for _, in := range c.Instructions {
		byName[in.Name] = in
		for _, o := range in.Operands {
			users[o.Name] = append(users[o.Name], in)
		}
		if v, ok := in.Attr("control-predecessors"); ok {
			pinned[in.Name] = true
			for _, n := range strings.Split(strings.Trim(v, "{}"), ",") {
				pinned[strings.TrimPrefix(strings.TrimSpace(n), "%")] = true
			}
		}
	}
	order := make(map[*hlo.Instruction]int, len(c.Instructions))
	for i, in := range c.Instructions {
		order[in] = i
	}
	groupOf := map[*hlo.Instruction]*group{}
	// grow adds to g the producers of from (and theirs) whose users are all
	// inside it.
	grow := func(g *group, from *hlo.Instruction) {
		work := []*hlo.Instruction{from}
		for len(work) > 0 {
			m := work[len(work)-1]
			work = work[:len(work)-1]
			if m.Opcode == hlo.OpConvolution {
				continue // a convolution's operands are read from memory
			}
			if m.Opcode == hlo.OpDot {
				// A dot's operands are read from memory, converted on
				// the way where they are widened floats (XLA fuses a
				// TPU's f16 -> f32 float normalization into the dot).
				for side := range 2 {
					win := windowConcat(m, side, byName, users)
					for _, p := range win {
						if groupOf[p] != nil || pinned[p.Name] || p == c.Root {
							win = nil
							break
						}
					}
					for _, p := range win {
						g.members[p] = true
						groupOf[p] = g
					}
				}
				for side, o := range m.Operands {
					// An operand broadcast over the dot's batch (a 1x1
					// convolution's weights, the same for every image):
					// read in place, a batch stride of zero.
					if p := byName[o.Name]; p != nil && groupOf[p] == nil && !pinned[p.Name] && p != c.Root &&
						OperandBroadcast(m, side, p) && onlyUser(users[p.Name], m) {
						g.members[p] = true
						groupOf[p] = g
					}
				}
				for _, o := range m.Operands {
					p := byName[o.Name]
					if p == nil || groupOf[p] != nil || pinned[p.Name] || p == c.Root || !operandConvert(p, byName) {
						continue
					}
					inside := true
					for _, u := range users[p.Name] {
						inside = inside && u == m
					}
					if inside {
						g.members[p] = true
						groupOf[p] = g
					}
				}
				continue
			}
			for _, o := range m.Operands {
				p := byName[o.Name]
				if p == nil || groupOf[p] != nil || pinned[p.Name] || p.Shape.IsTuple || p == c.Root || f.exclude[p.Opcode] {
					continue // the computation's result stays visible, even when something uses it
				}
				isDot := p.Opcode == hlo.OpDot || p.Opcode == hlo.OpConvolution
				if !producerOps[p.Opcode] && !(isDot && g.kind == "kLoop") || g.viewOnly && !viewMoves[p.Opcode] {
					continue
				}
				if isDot && m.Opcode == hlo.OpTranspose {
					continue // a dot writes its result in its own order: a transpose of it is a kernel of its own
				}
				if g.kind == "kInput" && m.Opcode == hlo.OpBroadcast && !broadcastSource[p.Opcode] {
					// A reduction reads what it broadcasts from memory (a
					// softmax's weights against a value cache): computed
					// in its own kernel, not once per element it meets.
					continue
				}
				inside := true
				for _, u := range users[p.Name] {
					if !g.members[u] {
						inside = false
					}
				}
				if !inside {
					continue
				}
				g.members[p] = true
				groupOf[p] = g
				if isDot {
					g.kind = "kOutput"
				}
				work = append(work, p)
			}
		}
	}
	// form groups the instructions, from the last one back.
	form := func(multi bool) []*group {
		var groups []*group
		for i := len(c.Instructions) - 1; i >= 0; i-- {
			in := c.Instructions[i]
			viewOnly := f.exclude[in.Opcode] && f.viewRoots[in.Opcode]
			if groupOf[in] != nil || pinned[in.Name] || in.Shape.IsTuple || f.exclude[in.Opcode] && !viewOnly {
				continue
			}
			kind := ""
			switch {
			case in.Opcode == hlo.OpReduce && len(in.Operands) == 2:
				kind = "kInput"
			case producerOps[in.Opcode] || in.Opcode == hlo.OpDynamicUpdateSlice:
				kind = "kLoop"
			case in.Opcode == hlo.OpDot:
				kind = "kOutput" // with operand conversions, when it has any
			default:
				continue
			}
			g := &group{root: in, members: map[*hlo.Instruction]bool{in: true}, kind: kind, viewOnly: viewOnly}
			groupOf[in] = g
			grow(g, in)
			if multi && multiOutputRoot(g, c) {
				f.extendMultiOutput(g, c, groupOf, pinned, order, byName, grow)
				g.outputs = extraOutputs(g, users, order)
			}
			if len(g.members) > 1 {
				groups = append(groups, g)
			} else {
				delete(groupOf, in)
			}
		}
		return groups
	}
	groups := form(f.multiOutput)
	if f.multiOutput && !acyclic(c, groupOf) {
		// Two multi-output fusions reading each other's results
		// (multioutput.go): group again without extra results.
		clear(groupOf)
		groups = form(false)
	}
	// Replace each group by a fusion instruction calling a new computation.
	var fused []*hlo.Computation
	replaced := map[*hlo.Instruction]*hlo.Instruction{} // group root -> fusion
	for k := len(groups) - 1; k >= 0; k-- {             // in program order
		g := groups[k]
		fc, call := f.outline(g, order, byName)
		fused = append(fused, fc)
		replaced[g.root] = call
		f.st.Fusions[g.kind]++
		f.st.Fused += len(g.members)
		if len(g.outputs) > 0 {
			f.st.MultiOutput++
		}
	}
	var kept []*hlo.Instruction
	multi := false
	for _, in := range c.Instructions {
		if call := replaced[in]; call != nil {
			kept = append(kept, call)
			if g := groupOf[in]; len(g.outputs) > 0 {
				// Its results keep their names (multioutput.go).
				kept = append(kept, outputElements(g, call)...)
				multi = true
				continue
			}
			if c.Root == in {
				c.Root = call
			}
			continue
		}
		if groupOf[in] == nil {
			kept = append(kept, in)
		}
	}
	// Users of a fused root (plain instructions and other fusions) now
	// read the fusion.
	rename := map[string]string{}
	for root, call := range replaced {
		if len(groupOf[root].outputs) == 0 {
			rename[root.Name] = call.Name
		}
	}
	for _, in := range kept {
		for _, o := range in.Operands {
			if n, ok := rename[o.Name]; ok {
				o.Name = n
			}
		}
	}
	if multi {
		var ok bool
		if kept, ok = topological(kept); !ok && f.err == nil {
			f.err = fmt.Errorf("%s: internal error: the multi-output fusions of %s read each other's results", c.Pos, c.Name)
		}
	}
	c.Instructions = kept
	return fused
}

// outline builds the fused computation of g and the fusion instruction
// that calls it.
func (f *fuser) outline(g *group, order map[*hlo.Instruction]int, byName map[string]*hlo.Instruction) (*hlo.Computation, *hlo.Instruction) {
	members := make([]*hlo.Instruction, 0, len(g.members))
	names := make(map[string]bool, len(g.members))
	for in := range g.members {
		members = append(members, in)
		names[in.Name] = true
	}
	sort.Slice(members, func(i, j int) bool { return order[members[i]] < order[members[j]] })
	fc := &hlo.Computation{Pos: g.root.Pos, Name: f.fresh("fused_computation")}
	call := &hlo.Instruction{Pos: g.root.Pos, Name: f.fresh("fusion"), IsRoot: g.root.IsRoot, Shape: g.root.Shape, Opcode: "fusion"}
	params := map[string]string{} // outer operand -> parameter name
	for _, in := range members {
		for _, o := range in.Operands {
			if _, ok := params[o.Name]; ok || names[o.Name] {
				continue
			}
			pn := f.fresh("param")
			params[o.Name] = pn
			shape := byName[o.Name].Shape
			fc.Instructions = append(fc.Instructions, &hlo.Instruction{
				Pos: o.Pos, Name: pn, Shape: shape, Opcode: "parameter", ParamNumber: int64(len(call.Operands))})
			call.Operands = append(call.Operands, &hlo.Operand{Pos: o.Pos, Name: o.Name})
		}
	}
	for _, in := range members {
		in.IsRoot = in == g.root
		for _, o := range in.Operands {
			if pn, ok := params[o.Name]; ok {
				o.Name = pn
			}
			o.Shape = nil // the short form: shapes are the definitions'
		}
		fc.Instructions = append(fc.Instructions, in)
	}
	fc.Root = g.root
	if len(g.outputs) > 0 {
		call.Shape = f.multiOutputTuple(fc, g)
		call.IsRoot = false
	}
	call.Attrs = []hlo.Attr{{Pos: g.root.Pos, Key: "kind", Value: g.kind}, {Pos: g.root.Pos, Key: "calls", Value: fc.Name}}
	return fc, call
}

// broadcastSource are the producers a reduce fusion's broadcast takes in:
// values it reads as they are (or builds from a literal), not computed.
var broadcastSource = hlo.OpSet(`constant iota reshape bitcast`)

// cheapElementwise ops cost a vector instruction or two: a value computed
// by them from cheap values only (a mask: compare(broadcast(ids), iota),
// converted) is recomputed in every fusion that reads it, as XLA
// duplicates such producers, rather than stored at full size.
var cheapElementwise = hlo.OpSet(`convert compare select and or not xor negate add subtract
	multiply maximum minimum abs sign clamp`)

// cheapValue: in is a broadcast, iota or small constant, a reshape of a
// cheap value, or a cheap elementwise op of cheap values.
func cheapValue(in *hlo.Instruction, cheap map[string]bool) bool {
	if in.Shape == nil || in.Shape.IsTuple {
		return false
	}
	if _, ok := in.Attr("control-predecessors"); ok {
		return false
	}
	switch {
	case in.Opcode == hlo.OpConstant:
		return in.Shape.Elems() <= maxDuplicatedConstant
	case CheapOps[in.Opcode]:
		return true
	case in.Opcode == hlo.OpReshape || in.Opcode == hlo.OpBitcast || cheapElementwise[in.Opcode]:
		for _, o := range in.Operands {
			if !cheap[o.Name] {
				return false
			}
		}
		return len(in.Operands) > 0
	}
	return false
}

// recomputeSource says whether in, a cheap elementwise op (or reshape) of
// cheap values and at most one array, is recomputed by its consumers rather
// than stored, as XLA duplicates producers that are not expensive into every
// fusion that reads them (x - mean in a layer norm feeds both the variance
// and the output; stored, it costs a write and a read more than reading x
// twice). It returns the array the recomputation reads ("" for none). cheap
// holds the cheap values, src the sources found so far.
func recomputeSource(in *hlo.Instruction, cheap map[string]bool, src map[string]string, depth map[string]int) (string, bool) {
	if in.Shape == nil || in.Shape.IsTuple || !(cheapElementwise[in.Opcode] || in.Opcode == hlo.OpReshape || in.Opcode == hlo.OpBitcast) {
		return "", false
	}
	if _, ok := in.Attr("control-predecessors"); ok {
		return "", false
	}
	from, d := "", 1
	for _, o := range in.Operands {
		s := o.Name // an array: read by every copy
		switch v, ok := src[o.Name]; {
		case cheap[o.Name]:
			continue
		case ok:
			s, d = v, max(d, depth[o.Name]+1)
		}
		if from != "" && s != from {
			return "", false // two arrays: every copy would read both
		}
		from = s
	}
	if d > maxRecomputeDepth {
		return "", false
	}
	depth[in.Name] = d
	return from, true
}

// readsReductionOf reports whether in also reads, through its other
// operands, a reduction of a (a statistic of a's output: a batch norm's
// mean in x - mean). Such a value is no epilogue of a's dot, which would
// need the statistic before the dot has finished: it is recomputed by its
// consumers like any other.
func readsReductionOf(in, a *hlo.Instruction, byName map[string]*hlo.Instruction) bool {
	type visit struct {
		name    string
		reduced bool
	}
	seen := map[visit]bool{}
	budget := maxAncestryWalk
	var reaches func(name string, reduced bool) bool
	reaches = func(name string, reduced bool) bool {
		if name == a.Name {
			return reduced
		}
		v := visit{name, reduced}
		if seen[v] || budget == 0 {
			return false
		}
		seen[v] = true
		budget--
		p := byName[name]
		if p == nil {
			return false
		}
		reduced = reduced || p.Opcode == hlo.OpReduce
		for _, o := range p.Operands {
			if reaches(o.Name, reduced) {
				return true
			}
		}
		return false
	}
	for _, o := range in.Operands {
		if reaches(o.Name, false) {
			return true
		}
	}
	return false
}

// maxAncestryWalk bounds the instructions readsReductionOf visits.
const maxAncestryWalk = 64

// maxRecomputeDepth bounds the chain of cheap ops a consumer recomputes
// (x - mean is two: the convert of x and the subtract): each copy of a
// value gives its recomputable operands one more user, so long chains
// (a polynomial of x) would be copied a number of times that grows as the
// product of their users' counts.
const maxRecomputeDepth = 3

// duplicateCheapProducers gives each fusible user of a cheap value
// (cheapValue), or of a value recomputed from one array (recomputeSource)
// when the copies read no more bytes than storing it would move, its own
// copy, so that the copy can join the user's fusion without the others
// losing it. Users come first, so a copy's own cheap operands are copied
// for it in turn. Copies are placed right before the original.
func (f *fuser) duplicateCheapProducers(c *hlo.Computation) {
	cheap := map[string]bool{}
	src := map[string]string{} // a recomputable value: the array it reads
	depth := map[string]int{}  // and the cheap ops recomputing it takes
	byName := map[string]*hlo.Instruction{}
	for _, in := range c.Instructions {
		byName[in.Name] = in
		cheap[in.Name] = cheapValue(in, cheap)
		if !cheap[in.Name] {
			if s, ok := recomputeSource(in, cheap, src, depth); ok {
				src[in.Name] = s
			}
		}
	}
	// Recomputed by k users it costs k reads of its array; stored, a read
	// of the array, a write of the value and k reads of it.
	worth := func(in *hlo.Instruction, k int) bool {
		s, ok := src[in.Name]
		if !ok {
			return false
		}
		a := byName[s]
		if s == "" || a == nil || a.Shape == nil {
			return s == ""
		}
		if (a.Opcode == hlo.OpDot || a.Opcode == hlo.OpConvolution) && !readsReductionOf(in, a, byName) {
			return false // it is the dot's epilogue, computed on its accumulator
		}
		return int64(k)*a.Shape.Bytes() <= a.Shape.Bytes()+int64(k+1)*in.Shape.Bytes()
	}
	users := map[string][]*hlo.Instruction{}
	addUser := func(u *hlo.Instruction) {
		seen := map[string]bool{}
		for _, o := range u.Operands {
			if !seen[o.Name] {
				users[o.Name] = append(users[o.Name], u)
				seen[o.Name] = true
			}
		}
	}
	for _, in := range c.Instructions {
		addUser(in)
	}
	copiesOf := map[*hlo.Instruction][]*hlo.Instruction{}
	// Copies of recomputed values at most grow the computation by half.
	recomputed, budget := 0, len(c.Instructions)/2+16
	for i := len(c.Instructions) - 1; i >= 0; i-- {
		in := c.Instructions[i]
		us := users[in.Name]
		if len(us) < 2 || in.IsRoot || !cheap[in.Name] && (!worth(in, len(us)) || recomputed+len(us) > budget) {
			continue
		}
		if !cheap[in.Name] {
			recomputed += len(us) - 1
		}
		originalTaken := false // the original serves the unfusible users
		for _, u := range us {
			if !fusibleUser(u) {
				originalTaken = true
			}
		}
		var copies []*hlo.Instruction
		for _, u := range us {
			if !fusibleUser(u) {
				continue
			}
			if !originalTaken {
				originalTaken = true // ... or else the first fusible one
				continue
			}
			cp := *in
			cp.Name = f.fresh(in.Name + ".clone")
			cp.Operands = cloneOperands(in.Operands)
			cp.Attrs = append([]hlo.Attr{}, in.Attrs...)
			for _, o := range u.Operands {
				if o.Name == in.Name {
					o.Name = cp.Name
				}
			}
			addUser(&cp)
			copies = append(copies, &cp)
		}
		if len(copies) > 0 {
			f.st.Duplicated++
			copiesOf[in] = copies
		}
	}
	// Keep definitions before uses: copies sit just before the original,
	// after the original's operands (and their copies).
	var out []*hlo.Instruction
	for _, in := range c.Instructions {
		out = append(out, copiesOf[in]...)
		out = append(out, in)
	}
	c.Instructions = out
}

func fusibleUser(u *hlo.Instruction) bool {
	return !u.Shape.IsTuple && (producerOps[u.Opcode] || u.Opcode == hlo.OpReduce || u.Opcode == hlo.OpDynamicUpdateSlice)
}

func cloneOperands(ops []*hlo.Operand) []*hlo.Operand {
	out := make([]*hlo.Operand, len(ops))
	for i, o := range ops {
		c := *o
		out[i] = &c
	}
	return out
}

// String prints the stats as one line.
func (s FuseStats) String() string {
	if s.AlreadyFused {
		return "already fused: unchanged"
	}
	var kinds []string
	for k := range s.Fusions {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	total := 0
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, s.Fusions[k]))
		total += s.Fusions[k]
	}
	multi := ""
	if s.MultiOutput > 0 {
		multi = fmt.Sprintf(", %d with extra results", s.MultiOutput)
	}
	return fmt.Sprintf("%d fusions (%s%s), %d instructions fused, %d producers duplicated; the kernels' operands and results %d bytes",
		total, strings.Join(parts, ", "), multi, s.Fused, s.Duplicated, s.KernelBytes)
}

// operandConvert reports whether in widens a 16- or 8-bit float to f32, or
// an 8-bit float to bf16, exactly: a conversion a dot fusion makes on the
// way to the MXU.
func operandConvert(in *hlo.Instruction, byName map[string]*hlo.Instruction) bool {
	if in.Opcode != hlo.OpConvert || len(in.Operands) != 1 || in.Shape.IsTuple || in.Shape.Elem != hlo.F32 && in.Shape.Elem != hlo.BF16 {
		return false
	}
	src := byName[in.Operands[0].Name]
	if src == nil || src.Shape.IsTuple {
		return false
	}
	from := src.Shape.Elem
	if in.Shape.Elem == hlo.BF16 {
		return hlo.IsRealFloat(from) && hlo.ElemBits(from) == 8
	}
	return hlo.IsRealFloat(from) && hlo.ElemBits(from) >= 8 && hlo.ElemBits(from) <= 16
}
