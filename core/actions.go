package core

import "github.com/pulse-sim/pulse/isa"

// Actions counts what instructions did, for the energy model (chip's
// energy report): multiply-accumulates by dtype, bytes read and written in
// each on-chip memory and moved by DMA, vector and cross-lane element-ops,
// sequencer instructions. The model keeps one per program counter, so a
// kernel's actions are the sum over its instructions. The timers count
// them as instructions start, in value and timing-only runs alike.
type Actions struct {
	MACs               [NumMACDTypes]int64 // by MXU input dtype (MACDTypes)
	SRAMRead           int64               // bytes
	SRAMWrite          int64
	ACCRead            int64
	ACCWrite           int64
	HBMRead            int64 // bytes DMA engines read from HBM
	HBMWrite           int64
	DMABytes           int64 // bytes moved by DMA engines
	VSimple            int64 // vector element-ops by cost class
	VTranscendental    int64
	VDivide            int64
	XLUElements        int64 // elements through the cross-lane units
	ScalarInstructions int64 // instructions through the sequencer
}

// MACDTypes are the MXU input dtypes Actions.MACs counts, in order.
var MACDTypes = [...]string{"s8", "u8", "f16", "bf16", "f32"}

// NumMACDTypes is len(MACDTypes).
const NumMACDTypes = 5

func macIndex(d isa.DType) int {
	for i, n := range MACDTypes {
		if n == d.String() {
			return i
		}
	}
	return NumMACDTypes - 1 // other dtypes are upcast to f32
}

// Add adds b's counts to a.
func (a *Actions) Add(b *Actions) {
	for i := range a.MACs {
		a.MACs[i] += b.MACs[i]
	}
	a.SRAMRead += b.SRAMRead
	a.SRAMWrite += b.SRAMWrite
	a.ACCRead += b.ACCRead
	a.ACCWrite += b.ACCWrite
	a.HBMRead += b.HBMRead
	a.HBMWrite += b.HBMWrite
	a.DMABytes += b.DMABytes
	a.VSimple += b.VSimple
	a.VTranscendental += b.VTranscendental
	a.VDivide += b.VDivide
	a.XLUElements += b.XLUElements
	a.ScalarInstructions += b.ScalarInstructions
}

// ActionsAt returns the actions counted for the instruction at pc.
func (m *Model) ActionsAt(pc int) *Actions { return &m.actions[pc] }

// TotalActions sums every instruction's actions.
func (m *Model) TotalActions() Actions {
	var t Actions
	for i := range m.actions {
		t.Add(&m.actions[i])
	}
	return t
}

func layoutBytes(l *isa.Layout) int64 { return l.Elems() * int64(l.DType.Size()) }

// access counts a tile read or written in its memory space.
func (a *Actions) access(l *isa.Layout, write bool) {
	n := layoutBytes(l)
	switch l.Space {
	case isa.SRAM:
		if write {
			a.SRAMWrite += n
		} else {
			a.SRAMRead += n
		}
	case isa.ACC:
		if write {
			a.ACCWrite += n
		} else {
			a.ACCRead += n
		}
	case isa.HBM:
		if write {
			a.HBMWrite += n
		} else {
			a.HBMRead += n
		}
	}
}

// UnitOf returns the unit that runs the instruction at pc, nil for the
// sequencer's own instructions (or a unit the chip does not have).
func (m *Model) UnitOf(pc int) *Unit {
	in := &m.Prog.Code[pc]
	c := in.Op.Info().Unit
	if c == isa.UnitScalar {
		return nil
	}
	us := m.byClass[c]
	if int(in.Unit) >= len(us) {
		return nil
	}
	return us[in.Unit]
}
