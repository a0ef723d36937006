package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// infeed and outfeed talk to the host program through two queues: infeed
// takes the next record of Evaluator.Infeed (which must have its data
// shape), outfeed appends a copy of its data to Evaluator.Outfeed. The
// chips read the same records from host memory in the same order
// (docs/lowering.md, "Infeed and outfeed").

// hostTransfer evaluates a host send (its data onto the outfeed queue),
// recv (the next infeed record) and their -done ops. A send and a recv
// return (data, u32[] context, token); send-done a token, recv-done
// (data, token).
func (e *Evaluator) hostTransfer(in *hlo.Instruction, ops []*Value) (*Value, error) {
	s := in.Shape
	switch in.Opcode {
	case hlo.OpSend:
		if len(ops) < 1 || s == nil || !s.IsTuple || len(s.Tuple) < 2 {
			return nil, e.Fail(in, "a host send takes its data and a token and returns (data, context, token)")
		}
		e.Outfeed = append(e.Outfeed, CopyValue(Unpacked(ops[0])))
		return TransferTuple(s, ops[0]), nil
	case hlo.OpRecv:
		if s == nil || !s.IsTuple || len(s.Tuple) < 2 {
			return nil, e.Fail(in, "a host recv returns (data, context, token)")
		}
		r, err := e.nextRecord(in, s.Tuple[0])
		if err != nil {
			return nil, err
		}
		return TransferTuple(s, r), nil
	case hlo.OpRecvDone:
		if len(ops) < 1 || len(ops[0].Tuple) < 1 || s == nil || !s.IsTuple || len(s.Tuple) != 2 {
			return nil, e.Fail(in, "recv-done takes a recv and returns (data, token)")
		}
		return &Value{Shape: s, Tuple: []*Value{ops[0].Tuple[0], {Shape: s.Tuple[1]}}}, nil
	}
	return &Value{Shape: s}, nil // send-done: a token
}

// transferTuple is (data, zeros for the context, a token) of shape s.
func TransferTuple(s *hlo.Shape, data *Value) *Value {
	v := &Value{Shape: s, Tuple: []*Value{data}}
	for _, t := range s.Tuple[1:] {
		v.Tuple = append(v.Tuple, ZerosOf(t))
	}
	return v
}

// nextRecord takes the next infeed record, which must have shape want.
func (e *Evaluator) nextRecord(in *hlo.Instruction, want *hlo.Shape) (*Value, error) {
	k := e.infeedNext
	if k >= len(e.Infeed) {
		return nil, e.Fail(in, "the infeed queue is empty: this reads record %d, and %d were supplied", k, len(e.Infeed))
	}
	r := e.Infeed[k]
	if r == nil || r.Shape == nil || !hlo.SameShape(r.Shape, want) {
		var got *hlo.Shape
		if r != nil {
			got = r.Shape
		}
		return nil, e.Fail(in, "infeed record %d is %s, and this reads %s", k, shapeText(got), want)
	}
	e.infeedNext++
	return CopyValue(r), nil
}

// infeed returns (the next record, a token).
func (e *Evaluator) infeed(in *hlo.Instruction) (*Value, error) {
	s := in.Shape
	if s == nil || !s.IsTuple || len(s.Tuple) != 2 {
		return nil, e.Fail(in, "infeed returns a (data, token) tuple, not %s", s)
	}
	r, err := e.nextRecord(in, s.Tuple[0])
	if err != nil {
		return nil, err
	}
	return &Value{Shape: s, Tuple: []*Value{r, {Shape: s.Tuple[1]}}}, nil
}

// outfeed records a copy of its data (the evaluator may later update an
// array in place) and returns a token.
func (e *Evaluator) outfeed(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) < 1 {
		return nil, e.Fail(in, "outfeed takes its data and a token")
	}
	e.Outfeed = append(e.Outfeed, CopyValue(Unpacked(ops[0])))
	return &Value{Shape: in.Shape}, nil
}

// copyValue copies v's arrays, unpacking them.
func CopyValue(v *Value) *Value {
	v = Unpacked(v)
	if v.Tuple != nil {
		out := &Value{Shape: v.Shape, Tuple: make([]*Value, len(v.Tuple))}
		for i, t := range v.Tuple {
			out.Tuple[i] = CopyValue(t)
		}
		return out
	}
	return &Value{Shape: v.Shape, Data: append([]float64(nil), v.Data...)}
}

func shapeText(s *hlo.Shape) string {
	if s == nil {
		return "no value"
	}
	return fmt.Sprint(s)
}

// InfeedShapes lists the distinct data shapes the module's infeeds (and
// host recvs) read, in the order they first appear.
func InfeedShapes(m *hlo.Module) []*hlo.Shape {
	var out []*hlo.Shape
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			isRecv := in.Opcode == hlo.OpRecv && hlo.IsHostTransfer(in)
			if in.Opcode != hlo.OpInfeed && !isRecv || in.Shape == nil || !in.Shape.IsTuple || len(in.Shape.Tuple) < 2 {
				continue
			}
			s := in.Shape.Tuple[0]
			if !slices.ContainsFunc(out, func(o *hlo.Shape) bool { return hlo.SameShape(o, s) }) {
				out = append(out, s)
			}
		}
	}
	return out
}

// RandomInfeed makes n random infeed records for a module whose infeeds
// all read one shape, from seed (as RandomArgs does, in a stream of its
// own): a pred in a record (a loop's go-on flag) is true half the time.
func RandomInfeed(m *hlo.Module, seed uint64, n int) ([]*Value, error) {
	shapes := InfeedShapes(m)
	switch {
	case len(shapes) == 0:
		return nil, fmt.Errorf("the module has no infeed")
	case len(shapes) > 1:
		return nil, fmt.Errorf("the module's infeeds read %d shapes (%s, %s, ...): random records cannot know their order; give them", len(shapes), shapes[0], shapes[1])
	}
	r := rand.New(rand.NewPCG(seed, 0x1f33d))
	out := make([]*Value, n)
	for i := range out {
		v, err := randomValue(shapes[0], r)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Assemble builds a value of shape s from its arrays, depth first (the
// inverse of Leaves).
func Assemble(s *hlo.Shape, leaves []*Value) *Value {
	var build func(s *hlo.Shape) *Value
	build = func(s *hlo.Shape) *Value {
		if !s.IsTuple {
			if s.Elem == hlo.Token {
				return &Value{Shape: s}
			}
			v := leaves[0]
			leaves = leaves[1:]
			return v
		}
		v := &Value{Shape: s, Tuple: make([]*Value, len(s.Tuple))}
		for i, t := range s.Tuple {
			v.Tuple[i] = build(t)
		}
		return v
	}
	return build(s)
}

// deviceTransfer evaluates a send, recv or their -done between devices.
func (e *Evaluator) deviceTransfer(in *hlo.Instruction, ops []*Value) (*Value, error) {
	s := in.Shape
	switch in.Opcode {
	case hlo.OpSendDone:
		return &Value{Shape: s}, nil
	case hlo.OpRecvDone:
		if len(ops) < 1 || len(ops[0].Tuple) < 1 || s == nil || !s.IsTuple || len(s.Tuple) != 2 {
			return nil, e.Fail(in, "recv-done takes a recv and returns (data, token)")
		}
		return &Value{Shape: s, Tuple: []*Value{ops[0].Tuple[0], {Shape: s.Tuple[1]}}}, nil
	}
	if s == nil || !s.IsTuple || len(s.Tuple) < 2 || in.Opcode == hlo.OpSend && len(ops) < 1 {
		return nil, e.Fail(in, "a %s returns (data, context, token)", in.Opcode)
	}
	if e.Device == nil {
		return nil, e.Fail(in, "a send or recv between devices: evaluate it on them (pulse hlo eval --replicas N --partitions P; spmd.RunDevices); is_host_transfer=true ones use the host queues")
	}
	return e.Device.Transfer(e, in, ops)
}
