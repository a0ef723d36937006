package lowering

import (
	"fmt"
	"maps"
	"strings"

	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/isa"

	"github.com/pulse-sim/pulse/hlo"
)

// Control flow. A while loop or a conditional runs on the sequencer: the
// condition (or branch index) is computed by kernels like any value, DMAed
// into scalar memory and loaded into a register, and the sequencer branches
// on it. Loop-carried values live in buffers of their own: the initial
// values are copied in, each iteration's results copied back. Kernels start
// by setting their semaphores and end with a barrier, so the same kernel
// code runs again on every iteration.

// condWord is the scalar-memory word (two for 64-bit values) a condition or branch index is
// loaded through (the lowering uses scalar memory for nothing else).
const condWord = 0

// subComputation lowers a called computation with its parameters bound to
// args; its instructions are named scope/name, as names are unique per
// computation only. It returns the root's value.
func (c *compiler) subComputation(fc *hlo.Computation, args []*value, scope string) (*value, error) {
	scoped := func(n string) string { return scope + "/" + n }
	// What this computation moves to the host is known to be there only
	// while it runs: a branch not taken, or a body whose move came after
	// the read, must not make a later move back read bytes never written.
	defer func(o map[*value]int64) { c.offloaded = o }(maps.Clone(c.offloaded))
	// Only the entry's values are reference-counted: a loop in here
	// copies its initial values.
	defer func(d []string) { c.dyingNow = d }(c.dyingNow)
	c.dyingNow = nil
	// Only a while body may overwrite its arguments (the loop's state
	// buffers, rewritten by the carry anyway); whileLoop says which.
	defer func(o map[string]int) { c.loopOwned = o }(c.loopOwned)
	c.loopOwned, c.nextLoopOwned = c.nextLoopOwned, nil
	// Values that die inside the computation give their HBM back, as in
	// the entry computation. This is safe in loop bodies too: a body runs
	// its instructions in order every iteration, and what crosses
	// iterations is copied into the loop's own buffers.
	dying := deathRow(fc.Instructions, fc.Root)
	for _, a := range args {
		if a != nil {
			c.heap.hold(a) // not the computation's to release
		}
	}
	for i, b := range fc.Instructions {
		if b.Opcode == hlo.OpParameter {
			if int(b.ParamNumber) >= len(args) || args[b.ParamNumber] == nil {
				return nil, c.fail(b, "parameter %d has no argument", b.ParamNumber)
			}
			c.bufs[scoped(b.Name)] = args[b.ParamNumber]
			continue
		}
		cp := *b
		cp.Name = scoped(b.Name)
		cp.Operands = make([]*hlo.Operand, len(b.Operands))
		for i, o := range b.Operands {
			co := *o
			co.Name = scoped(o.Name)
			cp.Operands[i] = &co
		}
		c.dyingNow = c.dyingNow[:0]
		for _, name := range dying[i] {
			c.dyingNow = append(c.dyingNow, scoped(name))
		}
		if err := c.instruction(&cp); err != nil {
			return nil, err
		}
		c.dyingNow = nil
		if v := c.bufs[cp.Name]; v != nil {
			c.heap.hold(v)
		}
		for _, name := range dying[i] {
			if v := c.bufs[scoped(name)]; v != nil {
				c.heap.drop(v)
			}
		}
	}
	v := c.bufs[scoped(fc.Root.Name)]
	if v == nil {
		return nil, c.fail(fc.Root, "the computation's result has no value")
	}
	// The caller holds the result from here on.
	c.heap.handOver(v)
	for _, a := range args {
		if a != nil {
			c.heap.handOver(a)
		}
	}
	return v, nil
}

// called finds the computation an attribute names.
func (c *compiler) called(in *hlo.Instruction, key string) (*hlo.Computation, error) {
	name, _ := in.Attr(key)
	fc := c.m.Computation(strings.TrimPrefix(strings.TrimSpace(name), "%"))
	if fc == nil {
		return nil, c.fail(in, "%s=%s names no computation", key, name)
	}
	return fc, nil
}

// leaves lists a value's arrays in tuple order.
func leaves(v *value) []*value {
	if v.tuple == nil && (v.shape == nil || !v.shape.IsTuple) {
		return []*value{v}
	}
	var out []*value
	for _, t := range v.tuple {
		out = append(out, leaves(t)...)
	}
	return out
}

// copyInto copies src's arrays into dst's, one DMA kernel for all of them
// (skipping arrays that already are the destination). Sources that are
// destinations elsewhere go through temporaries first, so that a body that
// swaps two loop values reads each before it is overwritten.
func (c *compiler) copyInto(at *hlo.Instruction, dst, src *value, what string) error {
	return c.onCores(func() error { return c.copyIntoOnce(at, dst, src, what) })
}

func (c *compiler) copyIntoOnce(at *hlo.Instruction, dst, src *value, what string) error {
	d, s := leaves(dst), leaves(src)
	if len(d) != len(s) {
		return c.fail(at, "%s: %d arrays into %d", what, len(s), len(d))
	}
	skip := func(i int) bool {
		return d[i].empty || s[i].empty || d[i].tensor == s[i].tensor && d[i].addr == s[i].addr
	}
	// Only destinations that are written: one that already holds its
	// source (an array updated in place, a read-only loop value) is
	// not overwritten.
	isDst := map[string]bool{}
	for i, x := range d {
		if !skip(i) {
			isDst[x.tensor] = true
		}
	}
	type move struct{ to, from *value }
	var first, second []move
	var temps []*value
	defer func() {
		for _, t := range temps {
			c.heap.release(t.tensor) // only the kernels above read it
		}
	}()
	for i := range d {
		switch {
		case skip(i):
		case isDst[s[i].tensor]:
			tmp, err := c.alloc(at, s[i].shape, "")
			if err != nil {
				return err
			}
			temps = append(temps, tmp)
			first = append(first, move{tmp, s[i]})
			second = append(second, move{d[i], tmp})
		default:
			second = append(second, move{d[i], s[i]})
		}
	}
	for stage, ms := range [][]move{first, second} {
		if len(ms) == 0 {
			continue
		}
		if stage == 0 {
			what += "-save" // through temporaries
		} else {
			what = strings.TrimSuffix(what, "-save")
		}
		c.nlabel++
		var bytes int64
		for _, m := range ms {
			bytes += 2 * m.to.shape.Bytes()
		}
		// The kernel's instructions point at the while or conditional, under
		// the kernel's own name.
		k := &hlo.Instruction{Pos: at.Pos, Name: at.Name + "/" + what}
		c.res.Kernels = append(c.res.Kernels, Kernel{Name: k.Name, Kind: "copy", Pos: at.Pos, Bytes: bytes})
		fmt.Fprintf(&c.out, "\n; ---- kernel k%d: %s of %s (%s:%d), DMA only\n", c.nlabel, what, at.Name, c.file, at.Pos.Line)
		fmt.Fprintf(&c.out, ".origin %q\n", at.Name+"/"+what)
		for i, m := range ms {
			if m.to.dt != m.from.dt || m.to.shape.Elems() != m.from.shape.Elems() {
				return c.fail(at, "%s: %s into %s", what, m.from.shape, m.to.shape)
			}
			c.flatCopy(k, m.to, m.from, i%c.chip.DMA.Engines)
		}
		c.loc(k)
		fmt.Fprintln(&c.out, "        barrier")
	}
	return nil
}

// loadScalar brings a pred or s32 scalar into r1.
func (c *compiler) loadScalar(at *hlo.Instruction, v *value, what string) error {
	if v.tuple != nil || v.empty || v.shape.Elems() != 1 {
		return c.fail(at, "the %s is not a scalar", what)
	}
	emit := func(format string, a ...any) {
		c.loc(at)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	if !v.dt.IsInt() {
		return c.fail(at, "the %s is %s: it must be pred or an integer", what, v.dt)
	}
	emit("semset  s0, 0")
	emit("dma     smem[%#x]:%s[1], %s @0 signal s0", condWord, v.dt, view{v: v, strides: []int64{1}}.operand([]int64{1}))
	emit("wait    s0, 1")
	c.loadInt(at, condWord, v.dt)
	return nil
}

// loadInt loads the integer of dtype dt at smem[addr] into r1, saturated
// to the s32 range (an index past it is out of range either way). It uses
// r28 and r29.
func (c *compiler) loadInt(at *hlo.Instruction, addr int64, dt isa.DType) {
	c.loadIntFrom(at, "r0", addr, dt)
}

// loadIntFrom is loadInt from scalar memory at [base+addr].
func (c *compiler) loadIntFrom(at *hlo.Instruction, base string, addr int64, dt isa.DType) {
	emit := func(format string, a ...any) {
		c.loc(at)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	c.nlabel++
	done := fmt.Sprintf("li%d_done", c.nlabel)
	emit("ld      r1, [%s+%#x]", base, addr)
	switch dt {
	case isa.S8:
		emit("shli    r1, r1, 24")
		emit("srai    r1, r1, 24")
	case isa.S16:
		emit("shli    r1, r1, 16")
		emit("srai    r1, r1, 16")
	case isa.U16:
		emit("andi    r1, r1, 65535")
	case isa.U8, isa.Pred:
		emit("andi    r1, r1, 255")
	case isa.S4:
		emit("shli    r1, r1, 28")
		emit("srai    r1, r1, 28")
	case isa.U4:
		emit("andi    r1, r1, 15")
	case isa.U32:
		emit("bge     r1, r0, %s", done)
		emit("li      r1, 0x7fffffff")
	case isa.S64, isa.U64:
		// Fits s32 when the high word is the low word's sign extension.
		emit("ld      r28, [%s+%#x]", base, addr+4)
		emit("srai    r29, r1, 31")
		emit("beq     r28, r29, %s", done)
		emit("li      r1, 0x7fffffff")
		if dt == isa.S64 {
			emit("bge     r28, r0, %s", done)
			emit("li      r1, -2147483648")
		}
	}
	fmt.Fprintf(&c.out, "%s:\n", done)
}

// whileLoop: state = init; loop: if !cond(state) exit; state = body(state).
func (c *compiler) whileLoop(in *hlo.Instruction) error {
	if analysis.NeverEnds(c.m, in) {
		return c.fail(in, "the loop never ends: its condition is the constant true, and nothing in its body (no infeed or recv) can stop it")
	}
	cond, err := c.called(in, "condition")
	if err != nil {
		return err
	}
	body, err := c.called(in, "body")
	if err != nil {
		return err
	}
	init := c.bufs[in.Operands[0].Name]
	if init == nil {
		return c.fail(in, "the loop's initial value has no value")
	}
	readOnly := map[string]bool{}
	state, err := c.loopState(in, in.Shape, init, loopInvariant(body), c.slicedOnly(body), map[string]bool{}, readOnly)
	if err != nil {
		return err
	}
	c.bufs[in.Name] = state
	if err := c.copyInto(in, state, init, "loop-init"); err != nil {
		return err
	}
	c.nlabel++
	top, exit := fmt.Sprintf("w%d", c.nlabel), fmt.Sprintf("w%d_end", c.nlabel)
	trip := ""
	if n, ok := analysis.KnownTripCount(in); ok {
		trip = fmt.Sprintf(", known trip count %d", n)
	}
	fmt.Fprintf(&c.out, "\n; ==== while %s (%s:%d)%s: condition %s, body %s\n%s:\n", in.Name, c.file, in.Pos.Line, trip, cond.Name, body.Name, top)
	if scalar, err := c.scalarCondition(in, cond, state); err != nil {
		return err
	} else if !scalar {
		p, err := c.subComputation(cond, []*value{state}, in.Name+"/cond")
		if err != nil {
			return err
		}
		if err := c.loadScalar(in, p, "loop condition"); err != nil {
			return err
		}
		c.releaseResult(p, state)
	}
	c.loc(in)
	fmt.Fprintf(&c.out, "        beq     r1, r0, %s\n", exit)
	c.nextLoopOwned = c.stateOwned(state, readOnly)
	defer func(p map[string]string) { c.preferIn = p }(c.preferIn)
	c.preferIn = bodyReturns(body, state, in.Name+"/body")
	res, err := c.subComputation(body, []*value{state}, in.Name+"/body")
	if err != nil {
		return err
	}
	if err := c.copyInto(in, state, res, "loop-carry"); err != nil {
		return err
	}
	c.releaseResult(res, state)
	c.loc(in)
	fmt.Fprintf(&c.out, "        jmp     %s\n%s:\n", top, exit)
	return nil
}

// conditional: branch on a pred (true, false) or an s32 index (out of
// range runs the last branch, as XLA does); the taken branch's result is
// copied into the conditional's buffers.
func (c *compiler) conditional(in *hlo.Instruction) error {
	var branches []*hlo.Computation
	if v, ok := in.Attr("branch_computations"); ok {
		for _, n := range strings.Split(strings.Trim(v, "{}"), ",") {
			fc := c.m.Computation(strings.TrimPrefix(strings.TrimSpace(n), "%"))
			if fc == nil {
				return c.fail(in, "branch %s names no computation", n)
			}
			branches = append(branches, fc)
		}
	} else {
		t, err := c.called(in, "true_computation")
		if err != nil {
			return err
		}
		f, err := c.called(in, "false_computation")
		if err != nil {
			return err
		}
		branches = []*hlo.Computation{t, f}
	}
	if len(in.Operands) != len(branches)+1 {
		return c.fail(in, "%d branches, %d branch operands", len(branches), len(in.Operands)-1)
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	sel := c.bufs[in.Operands[0].Name]
	if sel == nil {
		return c.fail(in, "the selector has no value")
	}
	isPred := sel.dt.Size() == 1
	c.nlabel++
	base := fmt.Sprintf("c%d", c.nlabel)
	fmt.Fprintf(&c.out, "\n; ==== conditional %s (%s:%d): %d branches\n", in.Name, c.file, in.Pos.Line, len(branches))
	if err := c.loadScalar(in, sel, "branch selector"); err != nil {
		return err
	}
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	if isPred {
		// pred: true runs branch 0; make r1 the index.
		emit("seqi    r1, r1, 0")
	}
	for i, b := range branches {
		next := fmt.Sprintf("%s_%d", base, i+1)
		if i < len(branches)-1 {
			emit("li      r2, %d", i)
			emit("bne     r1, r2, %s", next)
		}
		arg := c.bufs[in.Operands[i+1].Name]
		res, err := c.subComputation(b, []*value{arg}, fmt.Sprintf("%s/branch%d", in.Name, i))
		if err != nil {
			return err
		}
		if err := c.copyInto(in, out, res, fmt.Sprintf("branch%d-result", i)); err != nil {
			return err
		}
		c.releaseResult(res, out)
		emit("jmp     %s_end", base)
		fmt.Fprintf(&c.out, "%s:\n", next)
	}
	fmt.Fprintf(&c.out, "%s_end:\n", base)
	return nil
}

// bodyReturns maps each value a while body's root tuple returns as an
// array of the state (scoped as subComputation scopes it) to that
// element's buffer (compiler.preferIn).
func bodyReturns(body *hlo.Computation, state *value, scope string) map[string]string {
	if body.Root == nil || body.Root.Opcode != hlo.OpTuple || len(body.Root.Operands) != len(state.tuple) {
		return nil
	}
	out := map[string]string{}
	for k, o := range body.Root.Operands {
		if e := state.tuple[k]; e != nil && e.tuple == nil && e.tensor != "" {
			out[scope+"/"+o.Name] = e.tensor
		}
	}
	return out
}
