package lowering

import (
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// loopState gives a while loop its state buffers. An initial array that
// nothing reads after the while (its tensor held only by entry values
// dying at it, not a parameter, constant or output) becomes the loop's
// own buffer as it is, as XLA's buffer assignment shares a while's operand
// and result: no loop-init copy, and no second array of its size live.
// So does an array the body passes through unchanged (pass lists those
// tuple indices: a scan's weights, read by every iteration and written by
// none), read-only whoever else reads it; readOnly collects their tensors.
// A small such array in HBM that the body reads whole (not only slices of
// it: a scan's stacked weights, a layer an iteration) is copied into VMEM
// once instead (hoistsToVMEM), as XLA's memory-space assignment keeps a
// loop's invariant operands on chip: the body's kernels then read it
// there every iteration.
// Every other array gets a buffer of its own, which the loop-init kernel
// fills. taken keeps two state arrays from sharing a tensor.
func (c *compiler) loopState(in *hlo.Instruction, s *hlo.Shape, init *value, pass, sliced map[int]bool, taken, readOnly map[string]bool) (*value, error) {
	if !s.IsTuple {
		return c.stateArray(in, s, init, taken)
	}
	if init.tuple == nil || len(init.tuple) != len(s.Tuple) {
		return c.alloc(in, s, "")
	}
	v := &value{shape: s, tuple: make([]*value, len(s.Tuple))}
	for i, t := range s.Tuple {
		if e := init.tuple[i]; pass[i] && sameArray(t, e) && (sliced[i] || !c.hoistsToVMEM(e)) {
			v.tuple[i] = &value{tensor: e.tensor, addr: e.addr, shape: t, dt: e.dt}
			taken[e.tensor], readOnly[e.tensor] = true, true
		}
	}
	for i, t := range s.Tuple {
		if v.tuple[i] != nil {
			continue
		}
		e, err := c.stateArray(in, t, init.tuple[i], taken)
		if err != nil {
			return nil, err
		}
		for _, name := range distinctTensors(e) {
			if o := c.heap.origin[name]; o.in == in && len(o.index) == 0 {
				o.index = []int{i} // the peak report names the element
				c.heap.origin[name] = o
			}
		}
		v.tuple[i] = e
	}
	return v, nil
}

// stateArray is one state array (or nested tuple) of a loop.
func (c *compiler) stateArray(in *hlo.Instruction, s *hlo.Shape, init *value, taken map[string]bool) (*value, error) {
	if s.IsTuple {
		if init.tuple == nil || len(init.tuple) != len(s.Tuple) {
			return c.alloc(in, s, "")
		}
		v := &value{shape: s}
		for i, t := range s.Tuple {
			e, err := c.stateArray(in, t, init.tuple[i], taken)
			if err != nil {
				return nil, err
			}
			v.tuple = append(v.tuple, e)
		}
		return v, nil
	}
	if c.ownsAfter(init) && !taken[init.tensor] && sameArray(s, init) {
		taken[init.tensor] = true
		return &value{tensor: init.tensor, addr: init.addr, shape: s, dt: init.dt}, nil
	}
	return c.alloc(in, s, "")
}

// sameArray reports whether v is a whole array in memory that can stand
// for an array of shape s: the same element type and count.
func sameArray(s *hlo.Shape, v *value) bool {
	if s.IsTuple || v == nil || v.empty || v.tuple != nil || v.tensor == "" || v.shape == nil {
		return false
	}
	dt, ok := dtypeOf(s.Elem)
	return ok && dt == v.dt && v.shape.Elems() == s.Elems()
}

// loopInvariant lists the tuple indices of a while body's state that the
// body returns as it got them (root element i is get-tuple-element i of
// the parameter), as XLA's copy insertion finds the read-only indices of
// a while, which need no copy.
func loopInvariant(body *hlo.Computation) map[int]bool {
	out := map[int]bool{}
	r := body.Root
	if r == nil || r.Opcode != hlo.OpTuple {
		return out
	}
	byName := map[string]*hlo.Instruction{}
	for _, b := range body.Instructions {
		byName[b.Name] = b
	}
	for i, o := range r.Operands {
		g := byName[o.Name]
		if g == nil || g.Opcode != hlo.OpGetTupleElement || len(g.Operands) != 1 {
			continue
		}
		p := byName[g.Operands[0].Name]
		idx, err := hlo.IntAttr(g, "index")
		if p != nil && p.Opcode == hlo.OpParameter && p.ParamNumber == 0 && err == nil && idx == int64(i) {
			out[i] = true
		}
	}
	return out
}

// slicedOnly lists the tuple indices of a while body's state that the
// body reads only through slices and dynamic slices, or not at all
// (get-tuple-element i of the parameter read by nothing else, through
// reshapes, bitcasts and fusions whose own computation slices it): a VMEM
// copy of such an array would not pay for itself.
func (c *compiler) slicedOnly(body *hlo.Computation) map[int]bool {
	out := map[int]bool{}
	for _, b := range body.Instructions {
		if b.Opcode != hlo.OpGetTupleElement || len(b.Operands) != 1 {
			continue
		}
		idx, err := hlo.IntAttr(b, "index")
		if err != nil {
			continue
		}
		only := c.readsOnlySlices(body, b.Name, 0)
		if prev, seen := out[int(idx)]; seen {
			only = only && prev
		}
		out[int(idx)] = only
	}
	return out
}

// readsOnlySlices reports whether comp reads the value name only through
// slices and dynamic slices of it, if at all (depth bounds the fusions
// followed).
func (c *compiler) readsOnlySlices(comp *hlo.Computation, name string, depth int) bool {
	for _, u := range comp.Instructions {
		for i, o := range u.Operands {
			if o.Name != name {
				continue
			}
			switch {
			case u == comp.Root && u.Opcode == hlo.OpTuple && depth == 0:
				// The body hands it on to the next iteration.
			case (u.Opcode == hlo.OpSlice || u.Opcode == hlo.OpDynamicSlice) && i == 0:
			case u.Opcode == hlo.OpReshape || u.Opcode == hlo.OpBitcast:
				if !c.readsOnlySlices(comp, u.Name, depth) {
					return false
				}
			case u.Opcode == hlo.OpFusion && depth < 4:
				callee, _ := u.Attr("calls")
				fc := c.m.Computation(strings.TrimPrefix(callee, "%"))
				if fc == nil {
					return false
				}
				var param *hlo.Instruction
				for _, p := range fc.Instructions {
					if p.Opcode == hlo.OpParameter && p.ParamNumber == int64(i) {
						param = p
					}
				}
				if param == nil || !c.readsOnlySlices(fc, param.Name, depth+1) {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// stateOwned lists the tensors of a loop's state that its body may
// overwrite in place (all but the read-only ones it shares), each with
// the holds on it that do not stop the body from doing so: the loop's own
// and those of the entry values dying at the while, whose array became
// the loop's buffer.
func (c *compiler) stateOwned(state *value, readOnly map[string]bool) map[string]int {
	out := map[string]int{}
	for _, t := range distinctTensors(state) {
		if !readOnly[t] {
			out[t] = c.heap.refs[t] + 1
		}
	}
	return out
}

// releaseResult gives back the HBM of a called computation's result once
// it has been copied into keep (a loop's state, a conditional's result):
// the body's temporaries that nothing else holds. Later code may reuse
// the bytes; the loop's iterations are all done by then.
func (c *compiler) releaseResult(res, keep *value) {
	kept := map[string]bool{}
	for _, t := range distinctTensors(keep) {
		kept[t] = true
	}
	for _, t := range distinctTensors(res) {
		if !kept[t] && c.heap.refs[t] <= 0 {
			c.heap.release(t)
		}
	}
}

// ownsAfter reports whether the array v is a whole tensor that no entry
// value holds once the instruction being lowered is done: every holder
// of it dies there.
func (c *compiler) ownsAfter(v *value) bool {
	if v.empty || v.tuple != nil || v.tensor == "" || c.heap.pinned[v.tensor] || len(c.dyingNow) == 0 {
		return false
	}
	if isResident(v.tensor) && c.lowering != nil && c.lowering.Opcode != hlo.OpWhile && c.resultNames[c.lowering.Name] {
		return false // a result written into a VMEM array would need evicting
	}
	span, ok := c.heap.spans[v.tensor]
	if c.heap.vmem != nil && isResident(v.tensor) {
		span, ok = c.heap.vmem.spans[v.tensor]
		span.size = v.shape.Elems() * int64(v.dt.Size()) // the arena rounds sizes up
	}
	if !ok || span.addr != v.addr || span.size != v.shape.Elems()*int64(v.dt.Size()) {
		return false
	}
	dying := 0
	for _, name := range c.dyingNow {
		if d := c.bufs[name]; d != nil {
			for _, t := range distinctTensors(d) {
				if t == v.tensor {
					dying++
				}
			}
		}
	}
	// A while body's loop state is held by the loop as well; the body
	// may still overwrite it (loopOwned).
	held := c.heap.refs[v.tensor] - c.loopOwned[v.tensor]
	return dying > 0 && dying == held
}

// elementwiseInPlace is the operand a loop kernel may write its result
// into, as XLA's buffer assignment runs an elementwise fusion in place
// into an operand that dies at it (an optimizer's update into its donated
// parameter, a chain of activations): an array of the result's shape and
// type that nothing reads after this kernel (ownsAfter), read by the body
// only elementwise at the result's own indices, and passed as no other
// operand. nil when there is none.
func (c *compiler) elementwiseInPlace(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) *value {
	if in.Shape == nil || in.Shape.IsTuple || root == nil || root.Shape == nil || !slices.Equal(root.Shape.Dims, in.Shape.Dims) {
		return nil
	}
	return c.inPlaceFor(in, body, in.Shape, nil, "")
}

// inPlaceFor is elementwiseInPlace for one result of the given shape
// (a multi-output fusion's: multiloop.go), passing over the tensors in
// taken (given to its other results).
//
// A result the loop body returns as its state element k (preferIn)
// prefers the operand in that element's buffer: given another one, the
// loop would copy the two through temporaries to swap them back.
func (c *compiler) inPlaceFor(in *hlo.Instruction, body []*hlo.Instruction, shape *hlo.Shape, taken map[string]bool, prefer string) *value {
	users := map[string][]*hlo.Instruction{}
	for _, b := range body {
		for _, o := range b.Operands {
			users[o.Name] = append(users[o.Name], b)
		}
	}
	uses := map[string]int{}
	for _, o := range in.Operands {
		if v := c.bufs[o.Name]; v != nil && v.tensor != "" {
			uses[v.tensor]++
		}
	}
	var found *value // an operand other than the one preferred
	for _, b := range body {
		if b.Opcode != hlo.OpParameter || int(b.ParamNumber) >= len(in.Operands) || b.Shape == nil || !slices.Equal(b.Shape.Dims, shape.Dims) {
			continue
		}
		v := c.bufs[in.Operands[b.ParamNumber].Name]
		if v == nil || taken[v.tensor] || uses[v.tensor] != 1 || !sameArray(shape, v) || !slices.Equal(v.shape.Dims, shape.Dims) || !c.ownsAfter(v) {
			continue
		}
		if !readAtOwnIndex(b.Name, users, shape.Dims) {
			continue
		}
		if prefer == "" || v.tensor == prefer {
			return &value{tensor: v.tensor, addr: v.addr, shape: shape, dt: v.dt}
		}
		if found == nil {
			found = &value{tensor: v.tensor, addr: v.addr, shape: shape, dt: v.dt}
		}
	}
	return found
}

// readAtOwnIndex reports whether every use of name, and of what it flows
// into, is an elementwise op over arrays of dims: each element of the
// result is computed from the same element of name.
func readAtOwnIndex(name string, users map[string][]*hlo.Instruction, dims []int64) bool {
	seen := map[string]bool{}
	var walk func(n string) bool
	walk = func(n string) bool {
		if seen[n] {
			return true
		}
		seen[n] = true
		for _, u := range users[n] {
			if !(hlo.IsElementwise(u.Opcode) || u.Opcode == hlo.OpCopy) || u.Shape == nil || !slices.Equal(u.Shape.Dims, dims) {
				return false
			}
			if !walk(u.Name) {
				return false
			}
		}
		return true
	}
	return walk(name)
}
