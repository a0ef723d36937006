package lowering

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
)

// One device: what moves no data.
//
// (A module of several devices is compiled by devices.go: its collectives
// go through the interconnect.) On one device every collective is the identity (XLA's own
// single-replica rewrite): all-reduce, all-gather, reduce-scatter, all-to-all
// and collective-broadcast return their operands, collective-permute its
// operand when the device sends to itself. The -start/-done halves of the
// asynchronous forms, copy-start/copy-done, add-dependency and the
// async-start/-update/-done wrappers only pass values along, and
// partition-id and replica-id are the constant 0. All of this is views of
// existing buffers: no kernel, no cycles — what XLA does when it removes them.

var oneDeviceCollectives = map[string]bool{
	"all-reduce": true, "all-gather": true, "reduce-scatter": true, "all-to-all": true,
	"collective-permute": true, "collective-broadcast": true,
	"all-reduce-start": true, "all-gather-start": true, "collective-permute-start": true,
	"all-reduce-done": true, "all-gather-done": true, "collective-permute-done": true,
}

// passThrough lowers the ops above; ok is false for any other op.
func (c *compiler) passThrough(in *hlo.Instruction) (ok bool, err error) {
	operand := func(i int) *value { return c.bufs[in.Operands[i].Name] }
	op := in.Opcode
	if c.onDevices() {
		if op == hlo.OpPartitionId || op == hlo.OpReplicaId {
			return true, c.deviceID(in)
		}
		if base, ok := isLinkCollective(op); ok {
			return true, c.linkCollective(in, base)
		}
	}
	switch {
	case oneDeviceCollectives[op]:
		return true, c.collective(in)
	case op == hlo.OpPartitionId || op == hlo.OpReplicaId:
		v, err := c.alloc(in, in.Shape, " = {0}")
		if err == nil {
			c.bufs[in.Name] = v
			c.literals[v] = "0"
		}
		return true, err
	case op == hlo.OpAddDependency || op == hlo.OpDomain: // a domain only marks a sharding boundary
		c.bufs[in.Name] = operand(0)
		return true, nil
	case op == hlo.OpCopyStart:
		// (destination, source, context): the copy is a view.
		v, err := c.startTuple(in, operand(0), operand(0))
		c.bufs[in.Name] = v
		return true, err
	case op == hlo.OpCopyDone:
		t := operand(0)
		if len(t.tuple) < 1 {
			return true, c.fail(in, "the operand is not a copy-start result")
		}
		c.bufs[in.Name] = t.tuple[0]
		return true, nil
	case op == hlo.OpAsyncStart:
		name, _ := in.Attr("calls")
		fc := c.m.Computation(strings.TrimPrefix(name, "%"))
		if fc == nil {
			return true, c.fail(in, "calls=%s names no computation", name)
		}
		args := make([]*value, len(in.Operands))
		for i := range in.Operands {
			args[i] = operand(i)
		}
		r, err := c.subComputation(fc, args, in.Name)
		if err != nil {
			return true, err
		}
		v, err := c.startTuple(in, &value{shape: in.Shape.Tuple[0], tuple: args}, r)
		c.bufs[in.Name] = v
		return true, err
	case op == hlo.OpAsyncUpdate:
		c.bufs[in.Name] = operand(0)
		return true, nil
	case op == hlo.OpAsyncDone:
		t := operand(0)
		if len(t.tuple) < 2 {
			return true, c.fail(in, "the operand is not an async-start result")
		}
		c.bufs[in.Name] = t.tuple[1]
		return true, nil
	}
	return false, nil
}

// collective lowers a collective on one device.
func (c *compiler) collective(in *hlo.Instruction) error {
	if g := hlo.GroupSize(in); g > 1 {
		return c.fail(in, "replica_groups of %d devices, and the module is compiled for one: give the devices (--replicas, --partitions)", g)
	}
	base := strings.TrimSuffix(strings.TrimSuffix(in.Opcode, "-start"), "-done")
	first := c.bufs[in.Operands[0].Name]
	if strings.HasSuffix(in.Opcode, "-done") {
		// What the -start half computed: element 1 of its (operand,
		// result, contexts...) tuple, or the value itself.
		if t := first.tuple; len(t) >= 2 && first.shape != nil && t[1].shape != nil &&
			!hlo.SameShape(first.shape, in.Shape) && hlo.SameShape(t[1].shape, in.Shape) {
			c.bufs[in.Name] = t[1]
		} else {
			c.bufs[in.Name] = first
		}
		return nil
	}
	result := first
	if len(in.Operands) > 1 || base == "all-to-all" && in.Shape.IsTuple && first.tuple == nil {
		// (All-to-all's tuple form returns a tuple even of one operand.)
		result = &value{shape: &hlo.Shape{IsTuple: true}}
		for _, o := range in.Operands {
			result.tuple = append(result.tuple, c.bufs[o.Name])
		}
	}
	if base == "collective-permute" {
		pairs, _ := in.Attr("source_target_pairs")
		if n := hlo.CollectiveSpan(in, nil); n > 1 {
			return c.fail(in, "source_target_pairs name %d devices, and the module is compiled for one: give the devices (--replicas, --partitions)", n)
		}
		if !strings.Contains(strings.ReplaceAll(pairs, " ", ""), "{0,0}") {
			return c.fail(in, "a collective-permute in which device 0 receives nothing is not lowered (its result is zeros)")
		}
	}
	if eval.WrapsOperands(in, base, len(in.Operands), first.tuple != nil) {
		// ((operands), result, contexts...): an all-gather-start's.
		operands := first
		if len(in.Operands) > 1 {
			operands = &value{shape: in.Shape.Tuple[0], tuple: result.tuple}
		}
		r := *result // the same buffers, under the result's shape
		r.shape = in.Shape.Tuple[1]
		v, err := c.startTuple(in, operands, &r)
		c.bufs[in.Name] = v
		return err
	}
	if result.tuple == nil && result.shape != nil && result.shape.Elems() != in.Shape.Elems() {
		return c.fail(in, "on one device the result %s should hold as many elements as the operand %s", in.Shape, result.shape)
	}
	if result.tuple == nil {
		result = &value{tensor: result.tensor, addr: result.addr, shape: in.Shape, dt: result.dt, empty: result.empty}
	}
	c.bufs[in.Name] = result
	return nil
}

// multiDeviceCollective finds a collective that names several devices in
// a module whose header claims one (SPMD dumps often leave replica_count
// and num_partitions out). It is checked before lowering so that such a
// module is reported as what it is, not as whatever it runs out of first
// (HBM for a model's per-device shard, say).
func multiDeviceCollective(file string, m *hlo.Module) error {
	for _, comp := range m.Computations {
		shapes := map[string]*hlo.Shape{}
		for _, in := range comp.Instructions {
			shapes[in.Name] = in.Shape
			base := strings.TrimSuffix(strings.TrimSuffix(in.Opcode, "-start"), "-done")
			if !oneDeviceCollectives[base] && base != "ragged-all-to-all" || strings.HasSuffix(in.Opcode, "-done") {
				continue
			}
			var ops []*hlo.Shape
			for _, o := range in.Operands {
				ops = append(ops, shapes[o.Name])
			}
			n := hlo.CollectiveSpan(in, ops)
			if n > 1 {
				return &Error{File: file, Pos: in.Pos, Op: in.Name, Opcode: in.Opcode,
					Reason: fmt.Sprintf("the module runs on several devices (this %s spans %d) and is compiled for one: give the devices (--replicas, --partitions; lowering.CompileDevices)", in.Opcode, n)}
			}
		}
	}
	return nil
}

// startTuple builds a -start op's (a, b, contexts...) tuple; the contexts
// are small buffers nothing reads.
func (c *compiler) startTuple(in *hlo.Instruction, a, b *value) (*value, error) {
	if !in.Shape.IsTuple || len(in.Shape.Tuple) < 2 {
		return nil, c.fail(in, "%s should return a tuple", in.Opcode)
	}
	t := &value{shape: in.Shape, tuple: []*value{a, b}}
	for _, s := range in.Shape.Tuple[2:] {
		v, err := c.alloc(in, s, "")
		if err != nil {
			return nil, err
		}
		t.tuple = append(t.tuple, v)
	}
	return t, nil
}
