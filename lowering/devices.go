package lowering

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/isa"
)

// Several devices.
//
// A module of several devices (replica_count x num_partitions, or what its
// collectives imply) compiles to one program that every device runs, as
// XLA compiles an SPMD module once. What differs between devices is data:
// replica-id and partition-id read a buffer of their own that the runtime
// fills for each device before the run (DeviceIDs), and a collective is a
// kernel that hands the chip's interconnect port the collective's number
// and waits for it (isa.SemLink, isa.SemLinkDone):
//
//	barrier                 ; the operands are written
//	li      r1, N           ; collective N of Compiled.Collectives
//	st      r1, [r0+LinkWord]
//	signal  s31, 1          ; ring the link
//	wait    s30, 1          ; until this device's part is done
//
// The interconnect (runtime's fabric) knows from Collectives which
// buffers each one reads and writes; when every device of a group has
// rung, it moves the values (the HLO semantics of spmd.Exchange)
// and times the transfer on its link model.

// Collective is one collective op of a program of several devices.
type Collective struct {
	// Op is the instruction in Compiled.Fused: its opcode, groups and
	// reduction computation.
	Op *hlo.Instruction
	// Operands are the arrays it reads, Results those it writes, in the
	// order of the op's operands and of its base op's result leaves.
	Operands, Results []Array
}

// Array is one HBM array of a collective or a device id.
type Array struct {
	Addr  int64
	Shape *hlo.Shape
	DType isa.DType
}

// DeviceID is a buffer holding a device's replica or partition number.
type DeviceID struct {
	Array
	Partition bool // the partition id (else the replica id)
}

// DeviceCount is the devices a module runs on when nothing else says: its
// header's counts, or, when the header names one device and the
// collectives span more (a dump of a test whose harness sets the count),
// the fewest devices they need.
func DeviceCount(m *hlo.Module) (hlo.Devices, error) {
	d, err := hlo.ModuleDevices(m)
	if err != nil {
		return d, err
	}
	if d.N() == 1 {
		if need := hlo.ImpliedDevices(m); need.N() > 1 {
			return need, nil
		}
	}
	return d, nil
}

// deviceID lowers replica-id or partition-id on several devices: a u32
// the runtime fills per device, loaded with the program, never reused.
func (c *compiler) deviceID(in *hlo.Instruction) error {
	v, err := c.alloc(in, in.Shape, zeroInit)
	if err != nil {
		return err
	}
	c.bufs[in.Name] = v
	if !v.empty {
		c.res.DeviceIDs = append(c.res.DeviceIDs, DeviceID{Array{v.addr, in.Shape, v.dt}, in.Opcode == hlo.OpPartitionId})
	}
	return nil
}

// linkCollective lowers a collective across devices: fresh buffers for
// its result, and the kernel that rings the interconnect.
func (c *compiler) linkCollective(in *hlo.Instruction, base string) error {
	var ops []*value
	for _, o := range in.Operands {
		ops = append(ops, c.bufs[o.Name])
	}
	firstTuple := len(ops) > 0 && (ops[0].tuple != nil || ops[0].shape != nil && ops[0].shape.IsTuple)
	if firstTuple {
		return c.fail(in, "a %s of tuple operands is not lowered on several devices", in.Opcode)
	}
	if base == "collective-permute" && len(ops) != 1 {
		return c.fail(in, "a collective-permute of %d operands (the combined or in-place form) is not lowered on several devices", len(ops))
	}
	wraps := eval.WrapsOperands(in, base, len(ops), false)
	resShape := in.Shape
	if wraps {
		resShape = in.Shape.Tuple[1]
	}
	res, err := c.alloc(in, resShape, "")
	if err != nil {
		return err
	}
	coll := Collective{Op: in}
	arrays := func(vs []*value) ([]Array, error) {
		var out []Array
		for _, v := range vs {
			for _, l := range leaves(v) {
				if l.shape != nil && l.shape.Elem == hlo.Token {
					continue
				}
				if l.shape == nil || l.shape.IsTuple {
					return nil, c.fail(in, "an operand or result without an array shape")
				}
				out = append(out, Array{l.addr, l.shape, l.dt})
			}
		}
		return out, nil
	}
	if coll.Operands, err = arrays(ops); err != nil {
		return err
	}
	if coll.Results, err = arrays([]*value{res}); err != nil {
		return err
	}
	id := len(c.res.Collectives)
	c.res.Collectives = append(c.res.Collectives, coll)
	var bytes int64
	for _, a := range slices.Concat(coll.Operands, coll.Results) {
		bytes += a.Shape.Elems() * int64(a.DType.Size())
	}
	c.nlabel++
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: "collective", Pos: in.Pos, Bytes: bytes})
	fmt.Fprintf(&c.out, "\n; ---- kernel k%d: %s %s (%s:%d) -> %s, collective %d through the interconnect\n", c.nlabel, in.Opcode, in.Name, c.file, in.Pos.Line, resShape, id)
	fmt.Fprintf(&c.out, ".origin %q\n", in.Name)
	for _, line := range []string{"barrier", fmt.Sprintf("li      r1, %d", id), fmt.Sprintf("st      r1, [r0+%#x]", isa.LinkWord),
		fmt.Sprintf("signal  s%d, 1", isa.SemLink), fmt.Sprintf("wait    s%d, 1", isa.SemLinkDone)} {
		c.loc(in)
		fmt.Fprintf(&c.out, "        %s\n", line)
	}
	if wraps {
		operands := ops[0]
		if len(ops) > 1 {
			operands = &value{shape: in.Shape.Tuple[0], tuple: ops}
		}
		v, err := c.startTuple(in, operands, res)
		c.bufs[in.Name] = v
		return err
	}
	if res.tuple == nil {
		res = &value{tensor: res.tensor, addr: res.addr, shape: in.Shape, dt: res.dt, empty: res.empty}
	}
	c.bufs[in.Name] = res
	return nil
}

// onDevices reports whether the program runs on several devices.
func (c *compiler) onDevices() bool { return c.devs.N() > 1 }

// isLinkCollective reports whether in is a collective the interconnect
// runs (its -done halves only pass the -start's value on).
func isLinkCollective(op string) (base string, ok bool) {
	if strings.HasSuffix(op, "-done") {
		return "", false
	}
	base = strings.TrimSuffix(op, "-start")
	return base, oneDeviceCollectives[base] || base == "ragged-all-to-all"
}
