package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
)

// Host offloading (MoveToHost, MoveToDevice, annotate_device_placement to
// host memory): each array moved to the host gets its own place at the
// bottom of host memory (below the infeed and outfeed queues) and a
// kernel that copies it there through the host link; a move back to the
// device copies it from that place into a fresh HBM buffer. The array
// also stays in HBM (Pulse does not free HBM for it), so memory capacity
// is not what offloading would make it, but the link transfers are in the
// cycles. A move to the device whose array's place is not known at that
// point (it came through a loop's state, a tuple or a call) is listed as
// not modelled, as is every move on a chip without a host link.

// offloadBytes is the host memory the module's moves to the host take,
// counted once per compilation.
func (c *compiler) offloadBytes() int64 {
	if c.offloadTotal < 0 {
		c.offloadTotal = countOffloadBytes(c.m)
	}
	return c.offloadTotal
}

func countOffloadBytes(m *hlo.Module) int64 {
	var n int64
	for _, comp := range m.Computations {
		for _, in := range comp.Instructions {
			if in.Opcode == hlo.OpCustomCall && eval.HostOffload(in) == "host" && in.Shape != nil && !in.Shape.IsTuple {
				n += alignUp(in.Shape.Bytes(), feedAlign)
			}
		}
	}
	return n
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }

// hostOffload lowers a move to or from host memory of operand v (dir
// "host" or "device"): it returns the result's value, or, when the move is
// left unmodelled, why (the caller lists it). A move to the host of an
// array already there moves nothing.
func (c *compiler) hostOffload(in *hlo.Instruction, v *value, dir string) (*value, string, error) {
	const kept = "Pulse keeps it in HBM, so its host-link transfer is not in the cycles"
	if c.chip.Host.LinkGBps <= 0 {
		return nil, fmt.Sprintf("moves the array to %s memory, and the chip has no host link (host.link_gbps %g): %s", dir, c.chip.Host.LinkGBps, kept), nil
	}
	if v == nil || v.tuple != nil || v.shape == nil || v.shape.IsTuple {
		return nil, fmt.Sprintf("moves a tuple to %s memory: %s", dir, kept), nil
	}
	if c.offloaded == nil {
		c.offloaded = map[*value]int64{}
	}
	addr, there := c.offloaded[v]
	if dir == "host" {
		if there || v.empty || v.shape.Elems() == 0 {
			return v, "", nil
		}
		total := c.offloadBytes()
		if total > c.chip.Memory.HostBytes {
			return nil, "", c.fail(in, "the arrays moved to the host take %d bytes, more than memory.host_bytes (%d)", total, c.chip.Memory.HostBytes)
		}
		size := alignUp(v.shape.Bytes(), feedAlign)
		if c.offloadNext+size > total {
			// (Only if an instruction were lowered twice: the region holds
			// one place per move.)
			return nil, "moves the array to host memory, beyond the host memory set aside for moves: " + kept, nil
		}
		addr := c.offloadNext
		c.offloadNext += size
		c.offloadKernel(in, v, addr, true)
		c.offloaded[v] = addr
		return v, "", nil
	}
	if !there {
		return nil, "moves the array to device memory from a place in host memory not known here (it came through a loop's state, a tuple or a call): " + kept, nil
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return nil, "", err
	}
	c.offloadKernel(in, out, addr, false)
	return out, "", nil
}

// offloadKernel emits the copy of v to (out) or from host memory at addr.
func (c *compiler) offloadKernel(in *hlo.Instruction, v *value, addr int64, out bool) {
	c.nlabel++
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: "copy", Pos: in.Pos, Bytes: v.shape.Bytes()})
	way := "from the host"
	if out {
		way = "to the host"
	}
	fmt.Fprintf(&c.out, "\n; ---- kernel k%d: %s %s (%s:%d), %d bytes %s through the host link\n", c.nlabel, in.Opcode, in.Name, c.file, in.Pos.Line, v.shape.Bytes(), way)
	fmt.Fprintf(&c.out, ".origin %q\n", in.Name)
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	emit("semset  s0, 0")
	emit("li      r1, 0")
	if n := c.hostCopy(emit, v, addr, out); n > 0 {
		emit("wait    s0, %d", n)
	}
	emit("barrier")
}
