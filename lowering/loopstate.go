package lowering

import "github.com/pulse-sim/pulse/hlo"

// loopState gives a while loop its state buffers. An initial array that
// nothing reads after the while (its tensor held only by entry values
// dying at it, not a parameter, constant or output) becomes the loop's
// own buffer as it is, as XLA's buffer assignment shares a while's operand
// and result: no loop-init copy, and no second array of its size live.
// Every other array gets a buffer of its own, which the loop-init kernel
// fills. taken keeps two state arrays from sharing a tensor.
func (c *compiler) loopState(in *hlo.Instruction, s *hlo.Shape, init *value, taken map[string]bool) (*value, error) {
	if s.IsTuple {
		if init.tuple == nil || len(init.tuple) != len(s.Tuple) {
			return c.alloc(in, s, "")
		}
		v := &value{shape: s}
		for i, t := range s.Tuple {
			e, err := c.loopState(in, t, init.tuple[i], taken)
			if err != nil {
				return nil, err
			}
			v.tuple = append(v.tuple, e)
		}
		return v, nil
	}
	if c.ownsAfter(init) && !taken[init.tensor] {
		if dt, ok := dtypeOf(s.Elem); ok && dt == init.dt && init.shape != nil && init.shape.Elems() == s.Elems() {
			taken[init.tensor] = true
			return &value{tensor: init.tensor, addr: init.addr, shape: s, dt: dt}, nil
		}
	}
	return c.alloc(in, s, "")
}

// ownsAfter reports whether the array v is a whole tensor that no entry
// value holds once the instruction being lowered is done: every holder
// of it dies there.
func (c *compiler) ownsAfter(v *value) bool {
	if v.empty || v.tuple != nil || v.tensor == "" || c.heap.pinned[v.tensor] || len(c.dyingNow) == 0 {
		return false
	}
	span, ok := c.heap.spans[v.tensor]
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
	return dying > 0 && dying == c.heap.refs[v.tensor]
}
