package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
)

// Value is an evaluated array (Data in row-major logical order) or tuple.
// Elements travel as float64, which holds every value of the 8-, 16- and
// 32-bit types exactly (64-bit integers beyond 2^53 are not exact).
type Value struct {
	Shape *hlo.Shape
	Data  []float64
	Tuple []*Value

	// packed holds a large array's elements as float32 between uses
	// (evalstore.go); Data is then nil.
	packed []float32
}

// maxWatchedState bounds the loop states the evaluator compares from one
// iteration to the next (a copy of their bits per iteration).
const maxWatchedState = 1 << 14

// stateBits appends the bits of every element of v (unpacked or packed).
func stateBits(v *Value, out []uint64) []uint64 {
	for _, t := range v.Tuple {
		out = stateBits(t, out)
	}
	for _, x := range v.Data {
		out = append(out, math.Float64bits(x))
	}
	for _, x := range v.packed {
		out = append(out, uint64(math.Float32bits(x)))
	}
	return out
}

// DefaultMaxLiveElements is the evaluator's default live-value budget:
// 2 GiB of float64.
const DefaultMaxLiveElements = 1 << 28

// Evaluator runs HLO modules on the host: the oracle for the lowering.
// Results are rounded to each instruction's element type after every
// operation; dot products accumulate in float64 and round once; reductions
// fold in index order in the reducer's type.
type Evaluator struct {
	File string
	M    *hlo.Module
	// MaxWhileIterations bounds every while loop (0: 1,000,000).
	MaxWhileIterations int
	// MaxLiveElements bounds the elements held at once (0:
	// DefaultMaxLiveElements): beyond it evaluation stops with an error
	// instead of exhausting the host's memory.
	MaxLiveElements int64
	// MaxHeapBytes, when not 0, bounds the Go heap itself (values,
	// temporaries, garbage not yet collected): over it even after a
	// collection, evaluation stops with an error (evalheap.go).
	MaxHeapBytes int64

	// Seed is the key of the generator rng draws from (its counter
	// starts at 0): the chips' is 0, so --check leaves it 0.
	Seed uint64
	// Perturb, when not 0, seeds Monte Carlo arithmetic: every rounded
	// float result moves at random by up to one ulp (evalperturb.go), to
	// measure how much each output depends on rounding.
	Perturb uint64

	// Progress, when set, is told after each instruction of the entry
	// computation how many of its instructions are done (for progress
	// bars: a while loop is one instruction).
	Progress func(done, total int)

	// Infeed is the host's infeed queue: each infeed takes the next
	// record, a value of its data shape (evalfeed.go).
	Infeed []*Value
	// Outfeed is what the module's outfeeds sent, in order (Run empties
	// it first).
	Outfeed []*Value

	infeedNext int                        // the next record infeed takes
	live       int64                      // float64 elements held (evalstore.go)
	peak       int64                      // the most live held
	bufs       map[unsafe.Pointer]*buffer // the large buffers held
	plan       map[*hlo.Computation]*plan
	current    *hlo.Instruction       // being evaluated, for errors
	rngs       *rngState              // the generator state rng draws from (evalrngop.go)
	rngShared  bool                   // rngs is a caller's (byExpansion): Run keeps it
	expansions map[string]*hlo.Module // rng's and scaled-dot's expansions, by module text (byExpansion)
	// Device is this evaluator's place among several devices evaluating a
	// module together (hlo/eval/spmd sets it); nil: the only device.
	Device    Device
	complexOf *hlo.Module // the module complexM is ExpandComplex of
	complexM  *hlo.Module

	sinceHeapCheck int // instructions since the heap was last checked
}

// plan is what call needs to know about a computation, computed once (a
// while body is called once per iteration).
type plan struct {
	last   map[string]int   // index of each value's last use
	uses   map[string][]int // the indices of each value's uses, ascending
	params map[string]bool  // names of the parameters
}

// next is the index of name's first use after instruction i, or -1.
func (p *plan) next(name string, i int) int {
	u := p.uses[name]
	k, _ := slices.BinarySearch(u, i+1)
	if k == len(u) {
		return -1
	}
	return u[k]
}

func (e *Evaluator) planFor(c *hlo.Computation) *plan {
	if p := e.plan[c]; p != nil {
		return p
	}
	p := &plan{last: map[string]int{}, uses: map[string][]int{}, params: map[string]bool{}}
	for i, in := range c.Instructions {
		for _, o := range in.Operands {
			p.last[o.Name] = i
			if u := p.uses[o.Name]; len(u) == 0 || u[len(u)-1] != i {
				p.uses[o.Name] = append(u, i)
			}
		}
		if in.Opcode == hlo.OpParameter {
			p.params[in.Name] = true
		}
	}
	if e.plan == nil {
		e.plan = map[*hlo.Computation]*plan{}
	}
	e.plan[c] = p
	return p
}

// EvalError is a positioned evaluation error.
type EvalError struct {
	File string
	Pos  hlo.Pos
	Msg  string
}

func (e *EvalError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// Run evaluates the entry computation on args (one per parameter, in
// parameter-number order).
func (e *Evaluator) Run(args []*Value) (v *Value, err error) {
	if e.M.Entry == nil {
		return nil, fmt.Errorf("%s: no entry computation", e.File)
	}
	// A malformed module that the verifier let through must not crash the
	// host program: a panic becomes an error at the instruction being
	// evaluated.
	defer func() {
		if r := recover(); r != nil {
			at := e.current
			if at == nil {
				at = &hlo.Instruction{Name: "?", Opcode: "?"}
			}
			v, err = nil, &EvalError{e.File, at.Pos, fmt.Sprintf("%s: %s: internal evaluator error: %v", at.Name, at.Opcode, r)}
		}
	}()
	if hlo.HasComplex(e.M) {
		return e.runComplex(args)
	}
	// The arguments count against the budget for the whole run.
	e.live, e.peak, e.bufs = 0, 0, nil
	e.infeedNext, e.Outfeed = 0, nil
	if !e.rngShared {
		e.rngs = nil // each run draws from the start, as each chip run does
	}
	for _, a := range args {
		if a != nil {
			e.retain(a)
		}
	}
	return e.Call(e.M.Entry, args)
}

// HostOffload says which memory an identity custom call moves its array
// to: "host" (MoveToHost, or annotate_device_placement to pinned or
// unpinned host memory), "device" (MoveToDevice), or "" (it stays where
// it is).
func HostOffload(in *hlo.Instruction) string {
	t, _ := in.Attr("custom_call_target")
	switch strings.Trim(t, `"`) {
	case "MoveToHost":
		return "host"
	case "MoveToDevice":
		return "device"
	case "annotate_device_placement":
		if fa, _ := in.Attr("frontend_attributes"); strings.Contains(fa, "pinned_host") || strings.Contains(fa, "unpinned_host") {
			return "host"
		}
	}
	return ""
}

func (e *Evaluator) Fail(in *hlo.Instruction, format string, a ...any) error {
	return &EvalError{e.File, in.Pos, in.Name + ": " + in.Opcode + ": " + fmt.Sprintf(format, a...)}
}

// call evaluates c on args and returns its result with every array
// unpacked, as the instructions that read a computation's result expect.
func (e *Evaluator) Call(c *hlo.Computation, args []*Value) (*Value, error) {
	v, err := e.callPacked(c, args, false)
	return Unpacked(v), err
}

// callPacked evaluates c on args; large arrays in its result may be packed
// (evalstore.go). When owned, the caller hands c its reference on args
// (a while's state, which only the loop holds): c releases them after
// their last use, and a dynamic-update-slice may write into them.
func (e *Evaluator) callPacked(c *hlo.Computation, args []*Value, owned bool) (*Value, error) {
	vals := make(map[string]*Value, len(c.Instructions))
	// Values are dropped after their last use, so the peak is the live set.
	pl := e.planFor(c)
	limit := e.MaxLiveElements
	if limit <= 0 {
		limit = DefaultMaxLiveElements
	}
	// A parameter's value is held by the caller, which counted it, unless
	// it was handed over.
	held := func(name string) bool { return pl.params[name] && !owned }
	defer func() {
		for name, v := range vals {
			if !held(name) {
				e.release(v)
			}
		}
	}()
	for i, in := range c.Instructions {
		ops := make([]*Value, len(in.Operands))
		for i, o := range in.Operands {
			ops[i] = vals[o.Name]
			if ops[i] == nil {
				return nil, e.Fail(in, "operand %s has no value", o.Name)
			}
		}
		e.current = in
		v := aliasPacked(in, ops)
		if v == nil {
			// Packed operands are read through float64 temporaries, live
			// while the instruction runs.
			var temps []*Value
			if !takesPacked[in.Opcode] {
				for k, o := range ops {
					u := Unpacked(o)
					if u == o {
						continue
					}
					name := in.Operands[k].Name
					if pl.last[name] == i && !held(name) && e.soleHolder(o) {
						// Read for the last time: unpacked in place.
						e.release(o)
						vals[name] = u
					} else {
						temps = append(temps, u)
					}
					e.retain(u)
					for j := k; j < len(ops); j++ {
						if in.Operands[j].Name == name {
							ops[j] = u
						}
					}
				}
			}
			// A dynamic-update-slice of an array read for the last time,
			// which nothing else holds, writes into it: a loop that
			// updates a slice of its state per iteration does not copy
			// the whole state each time.
			inPlace := in.Opcode == hlo.OpDynamicUpdateSlice && e.updatable(in, ops, i, pl, c, held)
			if in.Shape != nil && !allocatesNothing[in.Opcode] && !hlo.IsIdentityCall(in) && !inPlace && e.live+in.Shape.Elems() > limit {
				for _, t := range temps {
					e.release(t)
				}
				return nil, e.Fail(in, "evaluating this module needs more than %d live elements (%d MiB of float64 values); the host evaluator stops here", limit, limit*8>>20)
			}
			if in.Opcode == hlo.OpWhile && len(ops) == 1 {
				// A while's init read for the last time is handed to
				// the loop, whose own reference holds it from here (the
				// first iteration may then update it in place too).
				if name := in.Operands[0].Name; pl.last[name] == i && !held(name) && (c.Root == nil || name != c.Root.Name) {
					e.release(ops[0])
					delete(vals, name)
				}
			}
			var err error
			if inPlace {
				v, err = e.dynamicUpdateSlice(in, ops, true)
			} else {
				v, err = e.eval(in, ops, args)
			}
			if err == nil && e.Perturb != 0 {
				v = e.perturb(in, v, ops)
			}
			for _, t := range temps {
				e.release(t)
			}
			if err != nil {
				return nil, err
			}
		}
		if in.Opcode != hlo.OpParameter {
			e.retain(v)
		}
		vals[in.Name] = v
		for _, o := range in.Operands {
			if pl.last[o.Name] == i && (c.Root == nil || o.Name != c.Root.Name) {
				if d := vals[o.Name]; d != nil && !held(o.Name) {
					e.release(d)
				}
				delete(vals, o.Name)
			}
		}
		// What the next instruction does not read is packed until it is.
		e.packIdle(vals, pl, c, i, in.Name)
		for _, o := range in.Operands {
			e.packIdle(vals, pl, c, i, o.Name)
		}
		if err := e.checkHeap(in, largeValue(v)); err != nil {
			return nil, err
		}
		if e.Progress != nil && c == e.M.Entry {
			e.Progress(i+1, len(c.Instructions))
		}
	}
	if c.Root == nil {
		return nil, fmt.Errorf("%s: computation %s has no root", e.File, c.Name)
	}
	return vals[c.Root.Name], nil
}

// Array is an array value of element type elem and dimensions dims
// holding data in row-major order.
func Array(elem string, dims []int64, data ...float64) *Value {
	return &Value{Shape: &hlo.Shape{Elem: elem, Dims: dims}, Data: data}
}

// EvaluateText parses, verifies and evaluates the HLO module src (named
// file in errors) on args.
func EvaluateText(file, src string, args ...*Value) (*Value, error) {
	m, err := hlo.Parse(file, src)
	if err != nil {
		return nil, err
	}
	if err := verify.Verify(file, m); err != nil {
		return nil, err
	}
	return (&Evaluator{File: file, M: m}).Run(args)
}

func NewArray(s *hlo.Shape) *Value { return &Value{Shape: s, Data: make([]float64, s.Elems())} }

func (e *Evaluator) Callee(in *hlo.Instruction, attr string) (*hlo.Computation, error) {
	name, ok := in.Attr(attr)
	if !ok {
		return nil, e.Fail(in, "no %s attribute", attr)
	}
	c := e.M.Computation(strings.TrimPrefix(name, "%"))
	if c == nil {
		return nil, e.Fail(in, "%s=%s names no computation", attr, name)
	}
	return c, nil
}

func (e *Evaluator) eval(in *hlo.Instruction, ops []*Value, args []*Value) (*Value, error) {
	s := in.Shape
	if s == nil {
		return nil, e.Fail(in, "shape unknown (run Verify first)")
	}
	op := in.Opcode
	if hlo.IsElementwise(op) {
		return e.elementwise(in, ops)
	}
	switch op {
	case hlo.OpParameter:
		if int(in.ParamNumber) >= len(args) {
			return nil, e.Fail(in, "parameter %d not supplied (%d arguments)", in.ParamNumber, len(args))
		}
		a := args[in.ParamNumber]
		if a.Shape != nil && !hlo.SameShape(a.Shape, s) {
			return nil, e.Fail(in, "argument is %s, the parameter is %s", a.Shape, s)
		}
		return a, nil
	case hlo.OpConstant:
		return e.constant(in)
	case hlo.OpTuple:
		return &Value{Shape: s, Tuple: ops}, nil
	case hlo.OpGetTupleElement:
		idx, err := hlo.IntAttr(in, "index")
		if err != nil || ops[0].Tuple == nil || int(idx) >= len(ops[0].Tuple) {
			return nil, e.Fail(in, "bad tuple index")
		}
		return ops[0].Tuple[idx], nil
	case hlo.OpReshape, hlo.OpBitcast, hlo.OpCopy, hlo.OpOptBarrier:
		if ops[0].Tuple != nil {
			return ops[0], nil
		}
		if int64(len(ops[0].Data)) != s.Elems() {
			// XLA's passes use size-changing bitcasts on tiled layouts; the
			// evaluator computes on logical shapes, where they mean nothing.
			return nil, e.Fail(in, "changes the element count (%d to %d)", len(ops[0].Data), s.Elems())
		}
		if in.Opcode == hlo.OpBitcast && ops[0].Shape != nil && !s.IsTuple && s.Elem != ops[0].Shape.Elem {
			// A bitcast that changes the type reads the same bits as it,
			// as bitcast-convert does (f32 -> s32 in post-layout dumps).
			v, err := e.bitcastConvert(in, &Value{Shape: &hlo.Shape{Elem: ops[0].Shape.Elem, Dims: s.Dims}, Data: ops[0].Data})
			if err != nil {
				return nil, err
			}
			return &Value{Shape: s, Data: v.Data}, nil
		}
		return &Value{Shape: s, Data: ops[0].Data}, nil
	case hlo.OpConvert:
		out := NewArray(s)
		for i, x := range ops[0].Data {
			out.Data[i] = scalar.Convert(ops[0].Shape.Elem, s.Elem, x)
		}
		return out, nil
	case hlo.OpIota:
		d, err := hlo.IntAttr(in, "iota_dimension")
		if err != nil || int(d) >= len(s.Dims) {
			return nil, e.Fail(in, "bad iota_dimension")
		}
		out := NewArray(s)
		idx := make([]int64, len(s.Dims))
		for i := range out.Data {
			hlo.Unflatten(int64(i), s.Dims, idx)
			out.Data[i] = hlo.Round(s.Elem, float64(idx[d]))
		}
		return out, nil
	case hlo.OpBroadcast:
		dims, _ := hlo.OptList(in, "dimensions")
		out := NewArray(s)
		src := ops[0]
		sst := hlo.Strides(src.Shape.Dims)
		// The source stride of each output dimension (0 where broadcast).
		ost := make([]int64, len(s.Dims))
		for k, d := range dims {
			if src.Shape.Dims[k] != 1 {
				ost[d] = sst[k]
			}
		}
		idx := make([]int64, len(s.Dims))
		var j int64
		for i := range out.Data {
			out.Data[i] = src.Data[j]
			// Advance the output index (last dimension fastest) and the source offset with it.
			for d := len(idx) - 1; d >= 0; d-- {
				idx[d]++
				j += ost[d]
				if idx[d] < s.Dims[d] {
					break
				}
				j -= idx[d] * ost[d]
				idx[d] = 0
			}
		}
		return out, nil
	case hlo.OpTranspose:
		perm, err := hlo.ListAttr(in, "dimensions")
		if err != nil {
			return nil, e.Fail(in, "%v", err)
		}
		out := NewArray(s)
		sst := hlo.Strides(ops[0].Shape.Dims)
		idx := make([]int64, len(s.Dims))
		for i := range out.Data {
			hlo.Unflatten(int64(i), s.Dims, idx)
			var j int64
			for k, p := range perm {
				j += idx[k] * sst[p]
			}
			out.Data[i] = ops[0].Data[j]
		}
		return out, nil
	case hlo.OpDot:
		return e.dot(in, ops)
	case hlo.OpRaggedDot:
		return e.raggedDot(in, ops)
	case hlo.OpConvolution:
		return e.convolution(in, ops)
	case hlo.OpPad:
		return e.pad(in, ops)
	case hlo.OpReduceWindow:
		return e.reduceWindow(in, ops)
	case hlo.OpDynamicSlice:
		return e.dynamicSlice(in, ops)
	case hlo.OpDynamicUpdateSlice:
		return e.dynamicUpdateSlice(in, ops, false)
	case hlo.OpStochasticConvert:
		return e.stochasticConvert(in, ops)
	case hlo.OpReduce:
		return e.reduce(in, ops)
	case hlo.OpSlice:
		return e.slice(in, ops[0])
	case hlo.OpConcatenate:
		dims, _ := hlo.ListAttr(in, "dimensions")
		out := NewArray(s)
		idx := make([]int64, len(s.Dims))
		for i := range out.Data {
			hlo.Unflatten(int64(i), s.Dims, idx)
			pos := idx[dims[0]]
			for _, o := range ops {
				if pos < o.Shape.Dims[dims[0]] {
					src := append([]int64{}, idx...)
					src[dims[0]] = pos
					out.Data[i] = o.Data[hlo.Flat(src, o.Shape.Dims)]
					break
				}
				pos -= o.Shape.Dims[dims[0]]
			}
		}
		return out, nil
	case hlo.OpReverse:
		dims, _ := hlo.ListAttr(in, "dimensions")
		out := NewArray(s)
		idx := make([]int64, len(s.Dims))
		for i := range out.Data {
			hlo.Unflatten(int64(i), s.Dims, idx)
			for _, d := range dims {
				idx[d] = s.Dims[d] - 1 - idx[d]
			}
			out.Data[i] = ops[0].Data[hlo.Flat(idx, s.Dims)]
		}
		return out, nil
	case hlo.OpCall, hlo.OpFusion:
		attr := "to_apply"
		if op == hlo.OpFusion {
			attr = "calls"
		}
		c, err := e.Callee(in, attr)
		if err != nil {
			return nil, err
		}
		return e.callPacked(c, ops, false)
	case hlo.OpWhile:
		cond, err := e.Callee(in, "condition")
		if err != nil {
			return nil, err
		}
		body, err := e.Callee(in, "body")
		if err != nil {
			return nil, err
		}
		if analysis.NeverEnds(e.M, in) {
			return nil, e.Fail(in, "the loop never ends: its condition is the constant true, and nothing in its body (no infeed or recv) can stop it")
		}
		quiet := analysis.Quiet(e.M, body) && analysis.Quiet(e.M, cond) && ops[0].Shape.Elems() <= maxWatchedState
		limit := e.MaxWhileIterations
		if limit <= 0 {
			limit = 1_000_000
		}
		// The loop holds a reference on its state, counted while the
		// condition runs, and hands it to the body, which may update the
		// state in place once the caller's own reference (on the first
		// state) is gone.
		state := ops[0]
		e.retain(state)
		for n := 0; ; n++ {
			p, err := e.Call(cond, []*Value{state})
			if err != nil {
				return nil, err
			}
			if len(p.Data) != 1 {
				return nil, e.Fail(in, "the condition returned %s, not pred[]", p.Shape)
			}
			if p.Data[0] == 0 {
				e.release(state) // the caller counts the result
				return state, nil
			}
			if n >= limit {
				return nil, e.Fail(in, "more than %d iterations", limit)
			}
			// A loop whose body only computes (nothing from outside) and
			// whose small state comes back bit for bit the same will see
			// the same condition forever: stopped now, not at the limit.
			var before []uint64
			if quiet {
				before = stateBits(state, nil)
			}
			if state, err = e.callPacked(body, []*Value{state}, true); err != nil {
				return nil, err
			}
			e.retain(state)
			if quiet && slices.Equal(before, stateBits(state, nil)) {
				return nil, e.Fail(in, "the loop never ends: its state did not change in iteration %d and its condition still holds", n+1)
			}
		}
	case hlo.OpAfterAll:
		return &Value{Shape: s}, nil
	case hlo.OpConditional:
		var branch string
		if names, ok := in.Attr("branch_computations"); ok {
			list := strings.Split(strings.Trim(names, "{}"), ",")
			k := int(intAt(ops[0], 0))
			if ops[0].Shape.Elem == hlo.Pred {
				k = 1 - k // XLA: a pred selects branch 0 when true
			}
			if k < 0 || k >= len(list) {
				k = len(list) - 1 // XLA: out-of-range selectors take the last branch
			}
			branch = strings.TrimSpace(list[k])
		} else if ops[0].Data[0] != 0 {
			branch, _ = in.Attr("true_computation")
		} else {
			branch, _ = in.Attr("false_computation")
		}
		c := e.M.Computation(strings.TrimPrefix(branch, "%"))
		if c == nil {
			return nil, e.Fail(in, "no branch computation %q", branch)
		}
		k := 1
		if names, ok := in.Attr("branch_computations"); ok {
			list := strings.Split(strings.Trim(names, "{}"), ",")
			for i, n := range list {
				if strings.TrimSpace(n) == branch {
					k = i + 1
				}
			}
		} else if ops[0].Data[0] == 0 {
			k = 2
		}
		if k >= len(ops) {
			return nil, e.Fail(in, "no operand for branch %s", branch)
		}
		return e.Call(c, []*Value{ops[k]})
	case hlo.OpCustomCall:
		t, _ := in.Attr("custom_call_target")
		if hlo.IsIdentityTarget(strings.Trim(t, `"`)) && len(ops) == 1 && ops[0].Shape != nil && hlo.SameShape(ops[0].Shape, s) {
			return ops[0], nil
		}
		if hlo.IsIdentityTarget(strings.Trim(t, `"`)) && len(ops) == 1 && ops[0].Shape != nil && s != nil {
			// SPMDFullToShardShape and SPMDShardToFullShape of a manually
			// sharded region (shard_map) cut arrays into the devices'
			// shards and back, which is the SPMD partitioner's work.
			return nil, e.Fail(in, "%s changes %s into %s: a manually sharded region, whose per-device shards are not evaluated (evaluate the partitioned module, as XLA's SPMD partitioner writes it)", t, ops[0].Shape, s)
		}
		if expand.IsGemmCall(in) {
			return e.gemm(in, ops)
		}
		if expand.IsBlockScaledDot(in) {
			return e.blockScaledDot(in, ops)
		}
		if expand.IsCubSort(in) {
			return e.byExpansion(in, soloText(in, ops), expand.ExpandCubSorts, ops)
		}
		if expand.IsCudnnConv(in) {
			return e.byExpansion(in, soloText(in, ops), expand.ExpandCudnnConvs, ops)
		}
		if expand.IsTEFusedAttn(in) {
			return e.byExpansion(in, soloText(in, ops), expand.ExpandTEFusedAttns, ops)
		}
		if expand.IsTopKCall(in) {
			t, err := expand.TopKOfCall(e.M, in)
			if err != nil {
				return nil, e.Fail(in, "%v", err)
			}
			return e.topkOp(t, ops)
		}
		if expand.IsDynamicGte(in) {
			return e.dynamicGte(in, ops)
		}
		if expand.NeuronActivation(in) != "" {
			return e.neuronActivation(in, ops)
		}
		return nil, e.Fail(in, "custom-call target %s cannot be evaluated", t)
	}
	if v, ok, err := e.evalMore(in, ops); ok {
		return v, err
	}
	return nil, e.Fail(in, "not supported by the evaluator yet")
}

func (e *Evaluator) elementwise(in *hlo.Instruction, ops []*Value) (*Value, error) {
	s := in.Shape
	out := NewArray(s)
	if len(ops) == 0 {
		return nil, e.Fail(in, "no operands")
	}
	ct := ops[0].Shape.Elem // computation type
	if in.Opcode == hlo.OpSelect || in.Opcode == hlo.OpClamp {
		ct = ops[1].Shape.Elem
		// select's predicate and clamp's bounds may be scalars.
		for k, o := range ops {
			if len(o.Data) == 1 && len(out.Data) != 1 {
				full := make([]float64, len(out.Data))
				for i := range full {
					full[i] = o.Data[0]
				}
				ops[k] = &Value{Shape: o.Shape, Data: full}
			}
		}
	}
	for k, o := range ops {
		if len(o.Data) != len(out.Data) {
			return nil, e.Fail(in, "operand %d has %d elements, the result %d", k, len(o.Data), len(out.Data))
		}
	}
	if hlo.IsWide(ct) {
		return e.wideElementwise(in, ops, ct, out)
	}
	dir, _ := in.Attr("direction")
	cmpType, _ := in.Attr("type")
	totalOrder := cmpType == "TOTALORDER" && hlo.IsFloat(ct)
	var expBits, manBits int64
	if in.Opcode == hlo.OpReducePrecision {
		var err1, err2 error
		expBits, err1 = hlo.IntAttr(in, "exponent_bits")
		manBits, err2 = hlo.IntAttr(in, "mantissa_bits")
		if err1 != nil || err2 != nil || expBits < 1 || manBits < 0 {
			return nil, e.Fail(in, "needs exponent_bits >= 1 and mantissa_bits >= 0")
		}
	}
	rnd := scalar.Rounder(s.Elem)
	opc := in.Opcode
	// Fast paths for the common binary and unary float ops.
	if hlo.IsFloat(ct) {
		var f func(x, y float64) float64
		switch opc {
		case "add":
			f = func(x, y float64) float64 { return x + y }
		case "subtract":
			f = func(x, y float64) float64 { return x - y }
		case "multiply":
			f = func(x, y float64) float64 { return x * y }
		case "divide":
			f = func(x, y float64) float64 { return x / y }
		case "exponential":
			f = func(x, _ float64) float64 { return math.Exp(x) }
		case "negate":
			f = func(x, _ float64) float64 { return -x }
		case "rsqrt":
			f = func(x, _ float64) float64 { return 1 / math.Sqrt(x) }
		case "tanh":
			f = func(x, _ float64) float64 { return math.Tanh(x) }
		case "maximum", "minimum":
			// NaN propagates, unlike math.Max's treatment of one NaN argument.
			isMax := opc == "maximum"
			f = func(x, y float64) float64 {
				switch {
				case x != x || y != y:
					return math.NaN()
				case isMax == (x > y):
					return x
				}
				return y
			}
		}
		if f != nil {
			a := ops[0].Data
			var b []float64
			if len(ops) > 1 {
				b = ops[1].Data
			}
			for i := range out.Data {
				var y float64
				if b != nil {
					y = b[i]
				}
				out.Data[i] = rnd(f(a[i], y))
			}
			return out, nil
		}
	}
	for i := range out.Data {
		x := ops[0].Data[i]
		var y, z float64
		if len(ops) > 1 {
			y = ops[1].Data[i]
		}
		if len(ops) > 2 {
			z = ops[2].Data[i]
		}
		var r float64
		intOp := !hlo.IsFloat(ct)
		switch in.Opcode {
		case hlo.OpAdd, hlo.OpSubtract, hlo.OpMultiply:
			if !intOp || ct == "pred" {
				switch in.Opcode {
				case hlo.OpAdd:
					r = x + y
				case hlo.OpSubtract:
					r = x - y
				default:
					r = x * y
				}
				break
			}
			// On the bits, wrapping: a float64 of an s32 x s32
			// product would round away its low bits beyond 2^53.
			a, b := scalar.Bits(ct, x), scalar.Bits(ct, y)
			var w uint64
			switch in.Opcode {
			case hlo.OpAdd:
				w = a + b
			case hlo.OpSubtract:
				w = a - b
			default:
				w = a * b
			}
			r = scalar.FromBits(ct, w)
		case hlo.OpDivide:
			if intOp {
				switch {
				case y == 0:
					r = -1
					if hlo.IsUnsigned(ct) {
						r = math.Ldexp(1, hlo.ElemBits(ct)) - 1
					}
				default:
					r = math.Trunc(x / y)
				}
			} else {
				r = x / y
			}
		case hlo.OpRemainder:
			if intOp && y == 0 {
				r = x
			} else {
				r = math.Mod(x, y)
			}
		case hlo.OpPower:
			if intOp {
				r = scalar.IntPower(x, y)
			} else {
				r = math.Pow(x, y)
			}
		case hlo.OpMaximum:
			r = math.Max(x, y)
		case hlo.OpMinimum:
			r = math.Min(x, y)
		case hlo.OpAtan2:
			r = math.Atan2(x, y)
		case hlo.OpNextAfter:
			r = scalar.NextAfter(ct, x, y)
		case hlo.OpAnd, hlo.OpOr, hlo.OpXor:
			// On the type's bits: a u64 beyond 2^63 has no int64.
			a, b := scalar.Bits(ct, x), scalar.Bits(ct, y)
			switch in.Opcode {
			case hlo.OpAnd:
				r = scalar.FromBits(ct, a&b)
			case hlo.OpOr:
				r = scalar.FromBits(ct, a|b)
			default:
				r = scalar.FromBits(ct, a^b)
			}
		case hlo.OpNot:
			if ct == "pred" {
				r = 1 - x
			} else {
				r = scalar.FromBits(ct, ^scalar.Bits(ct, x))
			}
		case hlo.OpCompare:
			if totalOrder {
				x, y = scalar.TotalOrderCmp(x, y), 0
			}
			var ok bool
			switch dir {
			case "EQ":
				ok = x == y
			case "NE":
				ok = x != y
			case "LT":
				ok = x < y
			case "LE":
				ok = x <= y
			case "GT":
				ok = x > y
			case "GE":
				ok = x >= y
			default:
				return nil, e.Fail(in, "unknown direction %q", dir)
			}
			if ok {
				r = 1
			}
		case hlo.OpSelect:
			r = z
			if x != 0 {
				r = y
			}
		case hlo.OpClamp:
			r = math.Min(math.Max(y, x), z)
		case hlo.OpAbs:
			r = math.Abs(x)
			if intOp && ct != "pred" && x < 0 {
				r = scalar.FromBits(ct, -scalar.Bits(ct, x)) // abs(MIN) = MIN, wrapping
			}
		case hlo.OpNegate:
			r = -x
			if intOp && ct != "pred" {
				r = scalar.FromBits(ct, -scalar.Bits(ct, x)) // -MIN = MIN, wrapping
			}
		case hlo.OpSign:
			switch {
			case x > 0:
				r = 1
			case x < 0:
				r = -1
			default:
				r = x
			}
		case hlo.OpFloor:
			r = math.Floor(x)
		case hlo.OpCeil:
			r = math.Ceil(x)
		case hlo.OpRoundNearestAfz:
			r = math.Round(x)
		case hlo.OpRoundNearestEven:
			r = math.RoundToEven(x)
		case hlo.OpSqrt:
			r = math.Sqrt(x)
		case hlo.OpRsqrt:
			r = 1 / math.Sqrt(x)
		case hlo.OpCbrt:
			r = math.Cbrt(x)
		case hlo.OpExponential:
			r = math.Exp(x)
		case hlo.OpExponentialMinusOne:
			r = math.Expm1(x)
		case hlo.OpLog:
			r = math.Log(x)
		case hlo.OpLogPlusOne:
			r = math.Log1p(x)
		case hlo.OpLogistic:
			r = 1 / (1 + math.Exp(-x))
		case hlo.OpSine:
			r = math.Sin(x)
		case hlo.OpCosine:
			r = math.Cos(x)
		case hlo.OpTan:
			r = math.Tan(x)
		case hlo.OpTanh:
			r = math.Tanh(x)
		case hlo.OpErf:
			r = math.Erf(x)
		case hlo.OpAcos:
			r = math.Acos(x)
		case hlo.OpAcosh:
			r = math.Acosh(x)
		case hlo.OpAsin:
			r = math.Asin(x)
		case hlo.OpAsinh:
			r = math.Asinh(x)
		case hlo.OpAtanh:
			r = math.Atanh(x)
		case hlo.OpSinh:
			r = math.Sinh(x)
		case hlo.OpLgamma:
			r, _ = math.Lgamma(x)
			if math.IsInf(x, -1) {
				r = math.Inf(1) // C's and XLA's lgamma(-inf); Go's says -inf
			}
		case hlo.OpDigamma:
			r = scalar.Digamma(x)
		case hlo.OpErfInv:
			r = math.Erfinv(x)
			if in.Shape.Elem == hlo.F64 {
				r = scalar.ErfInv64(x) // XLA's, a few ulps from the exact one
			}
		case hlo.OpErfc:
			r = math.Erfc(x)
		case hlo.OpBesselI1e:
			r = scalar.BesselI1e(x)
		case hlo.OpCosh:
			r = math.Cosh(x)
		case hlo.OpIsFinite:
			if !math.IsInf(x, 0) && x == x {
				r = 1
			}
		case hlo.OpConvert:
			r = scalar.Convert(ct, s.Elem, x)
			if hlo.IsWide(s.Elem) {
				out.Data[i] = r // carried bits: no rounding of a number
				continue
			}
		case hlo.OpShiftLeft, hlo.OpShiftRightLogical, hlo.OpShiftRightArithmetic, hlo.OpPopcnt, hlo.OpCountLeadingZeros:
			r = scalar.BitOp(opc, ct, x, y)
		case hlo.OpReducePrecision:
			r = scalar.ReducePrecision(x, ct, int(expBits), int(manBits))
		default:
			return nil, e.Fail(in, "not supported by the evaluator yet")
		}
		if in.Opcode == hlo.OpMaximum || in.Opcode == hlo.OpMinimum {
			if x != x || y != y {
				r = math.NaN()
			}
		}
		out.Data[i] = rnd(r)
	}
	return out, nil
}

func (e *Evaluator) dot(in *hlo.Instruction, ops []*Value) (*Value, error) {
	s := in.Shape
	l, r := numbers(ops[0]), numbers(ops[1])
	lb, _ := hlo.OptList(in, "lhs_batch_dims")
	rb, _ := hlo.OptList(in, "rhs_batch_dims")
	lc, _ := hlo.OptList(in, "lhs_contracting_dims")
	rc, _ := hlo.OptList(in, "rhs_contracting_dims")
	lf := hlo.Free(indices(len(l.Shape.Dims)), lb, lc)
	rf := hlo.Free(indices(len(r.Shape.Dims)), rb, rc)
	ls, rs := hlo.Strides(l.Shape.Dims), hlo.Strides(r.Shape.Dims)
	// Offsets of every contracting position in lhs and rhs, computed once.
	cdims := make([]int64, len(lc))
	for i, d := range lc {
		cdims[i] = l.Shape.Dims[d]
	}
	nc := int64(1)
	for _, d := range cdims {
		nc *= d
	}
	lo, ro := make([]int64, nc), make([]int64, nc)
	ci := make([]int64, len(cdims))
	for c := int64(0); c < nc; c++ {
		hlo.Unflatten(c, cdims, ci)
		for i := range lc {
			lo[c] += ci[i] * ls[lc[i]]
			ro[c] += ci[i] * rs[rc[i]]
		}
	}
	out := NewArray(s)
	// An integer dot into s64 or u64 sums in 64-bit two's complement,
	// wrapping, each operand converted to the result type first (a
	// negative int8 times a u64 is 2^64 - x times it), as XLA does; the
	// float64 sum would round past 2^53 and saturate.
	var lu, ru []uint64
	if hlo.IsWide(s.Elem) && hlo.IsInteger(ops[0].Shape.Elem) && hlo.IsInteger(ops[1].Shape.Elem) {
		lu, ru = wordsOf(ops[0]), wordsOf(ops[1])
	}
	idx := make([]int64, len(s.Dims))
	for o := range out.Data {
		hlo.Unflatten(int64(o), s.Dims, idx)
		var lbase, rbase int64
		k := 0
		for i := range lb {
			lbase += idx[k] * ls[lb[i]]
			rbase += idx[k] * rs[rb[i]]
			k++
		}
		for _, d := range lf {
			lbase += idx[k] * ls[d]
			k++
		}
		for _, d := range rf {
			rbase += idx[k] * rs[d]
			k++
		}
		if lu != nil {
			var sum uint64
			for c := range lo {
				sum += lu[lbase+lo[c]] * ru[rbase+ro[c]]
			}
			out.Data[o] = math.Float64frombits(sum)
			continue
		}
		var sum float64
		ld, rd := l.Data[lbase:], r.Data[rbase:]
		for c := range lo {
			sum += ld[lo[c]] * rd[ro[c]]
		}
		out.Data[o] = hlo.Round(s.Elem, sum)
	}
	return out, nil
}

func indices(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// reducer recognizes a reduction computation that applies one binary op to
// its two parameters, so it can be folded without evaluating a computation
// per element.
func (e *Evaluator) Reducer(c *hlo.Computation) string {
	if len(c.Instructions) != 3 || c.Root == nil || len(c.Root.Operands) != 2 {
		return ""
	}
	switch c.Root.Opcode {
	case hlo.OpAdd, hlo.OpMultiply, hlo.OpMaximum, hlo.OpMinimum, hlo.OpAnd, hlo.OpOr:
		return c.Root.Opcode
	}
	return ""
}

func (e *Evaluator) reduce(in *hlo.Instruction, ops []*Value) (*Value, error) {
	c, err := e.Callee(in, "to_apply")
	if err != nil {
		return nil, err
	}
	dims, _ := hlo.ListAttr(in, "dimensions")
	n := len(ops) / 2
	if n == 0 || len(ops) != 2*n {
		return nil, e.Fail(in, "reduce takes inputs and as many init values")
	}
	src := ops[0].Shape.Dims
	keep := hlo.Free(indices(len(src)), dims, nil)
	outDims := make([]int64, len(keep))
	for i, d := range keep {
		outDims[i] = src[d]
	}
	redDims := make([]int64, len(dims))
	nr := int64(1)
	for i, d := range dims {
		redDims[i] = src[d]
		nr *= src[d]
	}
	nout := int64(1)
	for _, d := range outDims {
		nout *= d
	}
	results := make([][]float64, n)
	for k := range results {
		results[k] = make([]float64, nout)
	}
	fast := e.Reducer(c)
	elem := ops[n].Shape.Elem
	// Float sums accumulate in float64 and round once, as dots and
	// convolutions do: no backend folds a long reduction serially in the
	// element type (TPU and GPU sum lane-parallel partials in f32, trees
	// of them), and a serial f32 fold of 1.2 M terms drifts by 1% — an
	// oracle must not be the least accurate implementation of the sum
	// (docs/RATIONALE.md "The evaluator's sums are exact, rounded once").
	accElem := elem
	if fast == "add" && n == 1 && hlo.IsFloat(elem) {
		accElem = "f64"
	}
	st := hlo.Strides(src)
	// Offsets of the reduced positions, in index order, computed once.
	roff := make([]int64, nr)
	ri := make([]int64, len(redDims))
	for r := int64(0); r < nr; r++ {
		hlo.Unflatten(r, redDims, ri)
		for i, d := range dims {
			roff[r] += ri[i] * st[d]
		}
	}
	oi := make([]int64, len(outDims))
	acc := make([]float64, n)
	for o := int64(0); o < nout; o++ {
		hlo.Unflatten(o, outDims, oi)
		var base int64
		for i, d := range keep {
			base += oi[i] * st[d]
		}
		for k := 0; k < n; k++ {
			acc[k] = ops[n+k].Data[0]
		}
		for _, off := range roff {
			j := base + off
			if fast != "" && n == 1 {
				acc[0] = ApplyFast(fast, accElem, acc[0], ops[0].Data[j], false)
				continue
			}
			args := make([]*Value, 2*n)
			for k := 0; k < n; k++ {
				args[k] = Scalar(ops[n+k].Shape.Elem, acc[k])
				args[n+k] = Scalar(ops[k].Shape.Elem, ops[k].Data[j])
			}
			v, err := e.Call(c, args)
			if err != nil {
				return nil, err
			}
			if n == 1 {
				acc[0] = v.Data[0]
			} else {
				for k := 0; k < n; k++ {
					acc[k] = v.Tuple[k].Data[0]
				}
			}
		}
		if accElem != elem {
			acc[0] = hlo.Round(elem, acc[0])
		}
		for k := 0; k < n; k++ {
			results[k][o] = acc[k]
		}
	}
	if n == 1 {
		return &Value{Shape: in.Shape, Data: results[0]}, nil
	}
	t := &Value{Shape: in.Shape}
	for k := 0; k < n; k++ {
		t.Tuple = append(t.Tuple, &Value{Shape: in.Shape.Tuple[k], Data: results[k]})
	}
	return t, nil
}

func (e *Evaluator) slice(in *hlo.Instruction, src *Value) (*Value, error) {
	s := in.Shape
	ranges := hlo.SliceDims(in)
	lo := make([]int64, len(ranges))
	st := make([]int64, len(ranges))
	for i, r := range ranges {
		lo[i], st[i] = r.Start, r.Stride
	}
	out := NewArray(s)
	idx := make([]int64, len(s.Dims))
	for i := range out.Data {
		hlo.Unflatten(int64(i), s.Dims, idx)
		for d := range idx {
			idx[d] = lo[d] + idx[d]*st[d]
		}
		out.Data[i] = src.Data[hlo.Flat(idx, src.Shape.Dims)]
	}
	return out, nil
}

// constant parses a literal: a scalar, nested braces of numbers, true/false,
// inf/nan. Elided values ("{...}") are synthesized as zeros.
func (e *Evaluator) constant(in *hlo.Instruction) (*Value, error) {
	s := in.Shape
	if s.IsTuple {
		if strings.TrimSpace(in.Literal) == "{...}" {
			return ZerosOf(s), nil
		}
		parts, ok := hlo.SplitTupleLiteral(in.Literal)
		if !ok || len(parts) != len(s.Tuple) {
			return nil, e.Fail(in, "the literal does not hold the %d elements of %s", len(s.Tuple), s)
		}
		t := &Value{Shape: s}
		for i, p := range parts {
			v, err := e.constant(&hlo.Instruction{Pos: in.Pos, Name: in.Name, Shape: s.Tuple[i], Opcode: "constant", Literal: p})
			if err != nil {
				return nil, err
			}
			t.Tuple = append(t.Tuple, v)
		}
		return t, nil
	}
	out := NewArray(s)
	lit := strings.TrimSpace(in.Literal)
	if lit == "{...}" {
		return out, nil
	}
	fields := strings.FieldsFunc(lit, func(r rune) bool { return r == '{' || r == '}' || r == ',' || r == ' ' })
	// One bare value for an array fills it (XLA's own tests write
	// f32[8,2048] constant(0)).
	splat := len(fields) == 1 && s.Elems() > 1 && !strings.HasPrefix(lit, "{")
	if int64(len(fields)) != s.Elems() && !splat {
		return nil, e.Fail(in, "literal has %d values for %s", len(fields), s)
	}

	for i, f := range fields {
		var x float64
		switch f {
		case "true":
			x = 1
		case "false":
			x = 0
		case "inf":
			x = math.Inf(1)
		case "-inf":
			x = math.Inf(-1)
		case "nan":
			x = math.NaN()
		case "-nan":
			x = math.Copysign(math.NaN(), -1)
		default:
			if hlo.IsWide(s.Elem) {
				// Exactly: a float64 would round beyond 2^53.
				if b, ok := scalar.WideLiteral(s.Elem, f); ok {
					out.Data[i] = math.Float64frombits(b)
					continue
				}
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, e.Fail(in, "bad literal value %q", f)
			}
			x = v
		}
		out.Data[i] = hlo.Round(s.Elem, x)
	}
	if splat {
		for i := range out.Data {
			out.Data[i] = out.Data[0]
		}
	}
	return out, nil
}

// ParamElements counts the elements of the entry computation's parameters.
func ParamElements(m *hlo.Module) int64 {
	var n int64
	if m.Entry == nil {
		return 0
	}
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpParameter && in.Shape != nil {
			n += in.Shape.Elems()
		}
	}
	return n
}

// RandomArgs makes deterministic random arguments for the entry
// computation's parameters: floats uniform in [-1, 1), integers in [0, 8),
// pred 0 or 1, each rounded to its type.
func RandomArgs(m *hlo.Module, seed uint64) ([]*Value, error) {
	return RandomArgsWithin(m, seed, DefaultMaxLiveElements)
}

// RandomArgsWithin is RandomArgs for an evaluator whose budget is limit
// elements: parameters beyond it are an error, not an allocation.
func RandomArgsWithin(m *hlo.Module, seed uint64, limit int64) ([]*Value, error) {
	if m.Entry == nil {
		return nil, fmt.Errorf("no entry computation")
	}
	var params []*hlo.Instruction
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpParameter {
			params = append(params, in)
		}
	}
	if n := ParamElements(m); n > limit {
		return nil, fmt.Errorf("the parameters hold %d elements (%d MiB as float64), more than the evaluator's budget of %d", n, n*8>>20, limit)
	}
	args := make([]*Value, len(params))
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	for _, in := range params {
		if int(in.ParamNumber) >= len(args) {
			return nil, fmt.Errorf("parameter numbers are not dense")
		}
		v, err := randomValue(in.Shape, r)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %v", in.Name, err)
		}
		args[in.ParamNumber] = v
	}
	return args, nil
}

func randomValue(s *hlo.Shape, r *rand.Rand) (*Value, error) {
	if s.IsTuple {
		v := &Value{Shape: s}
		for _, t := range s.Tuple {
			e, err := randomValue(t, r)
			if err != nil {
				return nil, err
			}
			v.Tuple = append(v.Tuple, e)
		}
		return v, nil
	}
	v := NewArray(s)
	if hlo.IsComplex(s.Elem) {
		// (real, imaginary) pairs, each part uniform in [-1, 1).
		v.Data = make([]float64, 2*s.Elems())
		for i := range v.Data {
			v.Data[i] = hlo.Round(hlo.ComplexPart(s.Elem), 2*r.Float64()-1)
		}
		return v, nil
	}
	for i := range v.Data {
		switch {
		case s.Elem == hlo.Pred:
			v.Data[i] = float64(r.IntN(2))
		case s.Elem == hlo.F8E8M0FNU:
			v.Data[i] = math.Ldexp(1, r.IntN(9)-4) // a scale: 2^-4..2^4 (it has no zero or negatives)
		case hlo.IsFloat(s.Elem):
			v.Data[i] = hlo.Round(s.Elem, 2*r.Float64()-1)
		default:
			v.Data[i] = float64(r.IntN(8))
			if hlo.IsWide(s.Elem) {
				v.Data[i] = hlo.WideFromNumber(s.Elem, v.Data[i]) // carried as bits
			}
		}
	}
	return v, nil
}

// Filled returns an array of shape s whose every element is x: a
// parameter bound to one value (a hyperparameter such as a clamp bound or a
// dropout rate). It is an error when s's type cannot hold x exactly as
// written: a fraction or an out-of-range value for an integer type, pred
// other than 0 or 1, a finite value beyond a float type's range, a tuple.
func Filled(s *hlo.Shape, x float64) (*Value, error) {
	if s.IsTuple || s.Elem == hlo.Token || s.Elem == hlo.Opaque {
		return nil, fmt.Errorf("%s is not an array", s)
	}
	r := hlo.Round(s.Elem, x)
	switch {
	case s.Elem == hlo.Pred:
		if x != 0 && x != 1 {
			return nil, fmt.Errorf("%s holds 0 or 1, not %g", s.Elem, x)
		}
	case hlo.IsFloat(s.Elem):
		if math.IsInf(r, 0) && !math.IsInf(x, 0) {
			return nil, fmt.Errorf("%g is beyond the range of %s", x, s.Elem)
		}
	case hlo.IsWide(s.Elem) && scalar.WideNumber(s.Elem, r) != x, !hlo.IsWide(s.Elem) && r != x:
		return nil, fmt.Errorf("%s cannot hold %g", s.Elem, x)
	}
	v := NewArray(s)
	for i := range v.Data {
		v.Data[i] = r
	}
	return v, nil
}

// LiteralValues returns a constant instruction's values, in row-major
// order and rounded to its element type (elided literals are zeros).
func LiteralValues(in *hlo.Instruction) ([]float64, error) {
	v, err := (&Evaluator{}).constant(in)
	if err != nil {
		return nil, err
	}
	return v.Data, nil
}

// numbers returns v with s64/u64 values decoded into numbers (WideNumber),
// for the ops that sum products (dot, convolution); v itself otherwise.
// Their results are exact up to 2^53, as any float64 sum.
func numbers(v *Value) *Value {
	if !hlo.IsWide(v.Shape.Elem) {
		return v
	}
	out := &Value{Shape: v.Shape, Data: make([]float64, len(v.Data))}
	for i, x := range v.Data {
		out.Data[i] = scalar.WideNumber(v.Shape.Elem, x)
	}
	return out
}

// wordsOf is an integer array's elements as 64-bit words, as converting
// them to s64 or u64 gives: a wide array's bits, a narrow one's value sign-
// or zero-extended.
func wordsOf(v *Value) []uint64 {
	out := make([]uint64, len(v.Data))
	for i, x := range v.Data {
		if hlo.IsWide(v.Shape.Elem) {
			out[i] = math.Float64bits(x)
		} else {
			out[i] = uint64(int64(x))
		}
	}
	return out
}

// intAt reads element i of an integer array as an int64 (an index).
func intAt(v *Value, i int64) int64 {
	if hlo.IsWide(v.Shape.Elem) {
		return int64(math.Float64bits(v.Data[i]))
	}
	return int64(v.Data[i])
}
