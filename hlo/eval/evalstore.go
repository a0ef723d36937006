package eval

import (
	"github.com/pulse-sim/pulse/hlo"
	"unsafe"
)

// How the evaluator holds values between their definition and their last
// use.
//
// Every element travels as a float64 while an instruction computes, but most
// values a module keeps for later are f32, bf16 or pred arrays, which a
// float32 holds exactly. A training step keeps its forward activations and
// masks alive until the backward pass reads them: MobileNet-v2 at batch 96
// holds 2.2 G elements at once, 18 GB as float64 and 9 GB as float32. So a
// large array that the next instruction does not read, that no other value
// aliases, and whose every element is a float32, is packed; an instruction
// that reads it unpacks it into a float64 temporary, in place when that is
// its last read. Aliases (reshape, bitcast, copy, get-tuple-element, tuple)
// and the computations a value is passed to (call, fusion, while) take it
// packed. Packing changes no value: the tests run every case with every
// array packed (packMin = 1).
//
// The live budget (MaxLiveElements) counts float64 elements, temporaries
// included; a packed element counts a half. Buffers are counted once
// however many values alias them (a get-tuple-element of a tuple, a
// reshape), by reference counts on the buffers of packMin elements or more;
// smaller ones are counted per value, too small for double counting to
// matter.

// packMin is the fewest elements an array needs to be packed and
// reference-counted (a variable so tests can pack every array).
var packMin = 1 << 16

// buffer is a large buffer's reference count and the live units it added.
type buffer struct {
	refs  int32
	units int64
}

// leafKey identifies a large array's buffer, nil for a small one.
func (v *Value) leafKey() unsafe.Pointer {
	switch {
	case len(v.packed) >= packMin:
		return unsafe.Pointer(unsafe.SliceData(v.packed))
	case len(v.Data) >= packMin:
		return unsafe.Pointer(unsafe.SliceData(v.Data))
	}
	return nil
}

// units is what a leaf counts against the live budget.
func (v *Value) units() int64 {
	return int64(len(v.Data)) + (int64(len(v.packed))+1)/2
}

// retain counts v's buffers as live.
func (e *Evaluator) retain(v *Value) {
	if v.Tuple != nil {
		for _, t := range v.Tuple {
			e.retain(t)
		}
		return
	}
	k := v.leafKey()
	defer func() { e.peak = max(e.peak, e.live) }()
	if k == nil {
		e.live += v.units()
		return
	}
	if e.bufs == nil {
		e.bufs = map[unsafe.Pointer]*buffer{}
	}
	b := e.bufs[k]
	if b == nil {
		b = &buffer{units: v.units()}
		e.bufs[k] = b
		e.live += b.units
	}
	b.refs++
}

// PeakLiveElements is the most the last Run held at once, in float64
// elements (a packed element counts a half): what the host needed for the
// module's values, temporaries included.
func (e *Evaluator) PeakLiveElements() int64 { return e.peak }

// release undoes retain.
func (e *Evaluator) release(v *Value) {
	if v.Tuple != nil {
		for _, t := range v.Tuple {
			e.release(t)
		}
		return
	}
	k := v.leafKey()
	if k == nil {
		e.live -= v.units()
		return
	}
	if b := e.bufs[k]; b != nil {
		if b.refs--; b.refs == 0 {
			e.live -= b.units
			delete(e.bufs, k)
		}
	}
}

// packIdle packs the value named name, after instruction i, when it is a
// large array that only it holds, the next instruction does not read it,
// and every element is a float32 (NaNs included: their payload is not
// kept). A value the next instruction reads would only be unpacked again.
func (e *Evaluator) packIdle(vals map[string]*Value, pl *plan, c *hlo.Computation, i int, name string) {
	v := vals[name]
	if v == nil || v.Tuple != nil || len(v.Data) < packMin || pl.params[name] || c.Root != nil && name == c.Root.Name ||
		v.Shape == nil || hlo.ElemBits(v.Shape.Elem) > 32 || pl.next(name, i) == i+1 {
		return
	}
	if b := e.bufs[v.leafKey()]; b == nil || b.refs != 1 {
		return // aliased: packing one name would not free the buffer
	}
	p := make([]float32, len(v.Data))
	for k, x := range v.Data {
		f := float32(x)
		if float64(f) != x && x == x {
			return
		}
		p[k] = f
	}
	pv := &Value{Shape: v.Shape, packed: p}
	e.release(v)
	e.retain(pv)
	vals[name] = pv
}

// soleHolder reports whether no value but v holds v's packed buffers.
func (e *Evaluator) soleHolder(v *Value) bool {
	if v.Tuple != nil {
		for _, t := range v.Tuple {
			if !e.soleHolder(t) {
				return false
			}
		}
		return true
	}
	b := e.bufs[v.leafKey()]
	return v.packed == nil || b != nil && b.refs == 1
}

// unpacked returns v with every packed array expanded to float64: v itself
// when nothing in it is packed, else a new value sharing its unpacked parts.
func Unpacked(v *Value) *Value {
	if v == nil {
		return nil
	}
	if v.packed != nil {
		d := make([]float64, len(v.packed))
		for i, f := range v.packed {
			d[i] = float64(f)
		}
		return &Value{Shape: v.Shape, Data: d}
	}
	if v.Tuple == nil {
		return v
	}
	var t []*Value
	for i, x := range v.Tuple {
		u := Unpacked(x)
		if u != x && t == nil {
			t = append([]*Value(nil), v.Tuple...)
		}
		if t != nil {
			t[i] = u
		}
	}
	if t == nil {
		return v
	}
	return &Value{Shape: v.Shape, Tuple: t}
}

// takesPacked lists the opcodes that read their operands' values only
// through other instructions: they are given packed arrays as they are.
var takesPacked = map[string]bool{
	"tuple": true, "get-tuple-element": true, "call": true, "fusion": true, "while": true,
}

// aliasPacked is a reshape, bitcast, copy or opt-barrier of a packed array:
// the same elements under the instruction's shape, still packed; nil when
// the instruction is not one of those or its operand is not packed.
func aliasPacked(in *hlo.Instruction, ops []*Value) *Value {
	switch in.Opcode {
	case hlo.OpReshape, hlo.OpBitcast, hlo.OpCopy, hlo.OpOptBarrier:
		if in.Opcode == hlo.OpBitcast && len(ops) == 1 && ops[0].Shape != nil && in.Shape.Elem != ops[0].Shape.Elem {
			return nil // the bits are read as another type (eval.go)
		}
		if len(ops) == 1 && ops[0].packed != nil && int64(len(ops[0].packed)) == in.Shape.Elems() {
			return &Value{Shape: in.Shape, packed: ops[0].packed}
		}
	}
	return nil
}

// allocatesNothing lists the opcodes whose value is (or aliases) a value
// that exists already, or is a computation's result, whose instructions
// each checked the budget as they ran: the live budget is not checked
// before them. (A while checked for its whole state would count a state it
// takes over, and updates in place, twice.)
var allocatesNothing = map[string]bool{
	"parameter": true, "tuple": true, "get-tuple-element": true,
	"reshape": true, "bitcast": true, "copy": true, "opt-barrier": true,
	"while": true, "call": true, "fusion": true, "conditional": true,
}

// updatable reports whether the dynamic-update-slice in, instruction i
// of c, may write into its operand: a large unpacked array read for the
// last time, not the computation's root, not a parameter its caller still
// holds (held), whose buffer no other value holds (the reference counts
// see tuples, get-tuple-elements and reshapes that share it) and which is
// not also the update.
func (e *Evaluator) updatable(in *hlo.Instruction, ops []*Value, i int, pl *plan, c *hlo.Computation, held func(string) bool) bool {
	name := in.Operands[0].Name
	o := ops[0]
	if len(ops) < 2 || o.Tuple != nil || o.packed != nil || len(o.Data) < packMin ||
		pl.last[name] != i || held(name) || c.Root != nil && name == c.Root.Name ||
		o.Shape == nil || in.Shape == nil || o.Shape.Elem != in.Shape.Elem ||
		unsafe.SliceData(ops[1].Data) == unsafe.SliceData(o.Data) {
		return false
	}
	b := e.bufs[o.leafKey()]
	return b != nil && b.refs == 1
}
