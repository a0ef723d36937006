// Package energy is Pulse's energy and area model: an accounting layer over
// the actions the cycle-level model counts (core.Actions) and the time each
// unit spends busy, priced with the chip config's energy and area sections
// (docs/energy.md).
//
// Dynamic energy is per action: a multiply-accumulate by dtype, a byte read
// or written in SRAM, accumulator memory or HBM, a byte moved by DMA, a
// vector or cross-lane element-op, a sequencer instruction, a DRAM row
// activation or refresh. Static power is per unit: compute units draw their
// static power while busy and idle_factor of it while idle; memories and the
// rest of the chip draw it all the time.
package energy

import (
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
)

// Vdd is the supply voltage assumed for a node in the first-order scaling
// rule (docs/energy.md): the nominal core voltage of each generation.
func Vdd(nm int) float64 {
	switch {
	case nm >= 90:
		return 1.2
	case nm >= 65:
		return 1.1
	case nm >= 28:
		return 0.9
	case nm >= 20:
		return 0.85
	case nm >= 14:
		return 0.8
	case nm >= 10:
		return 0.75
	case nm >= 7:
		return 0.7
	}
	return 0.65
}

// EnergyScale is the factor from dynamic energy per operation at node
// from to node to: capacitance shrinks with the feature size and energy
// goes with CV^2.
func EnergyScale(from, to int) float64 {
	if from <= 0 || to <= 0 || from == to {
		return 1
	}
	v := Vdd(to) / Vdd(from)
	return float64(to) / float64(from) * v * v
}

// AreaScale is the factor from area at node from to node to: the square of
// the feature size ratio.
func AreaScale(from, to int) float64 {
	if from <= 0 || to <= 0 || from == to {
		return 1
	}
	r := float64(to) / float64(from)
	return r * r
}

// Prices are a chip's per-action energies in pJ at its technology node.
type Prices struct {
	MAC                     [core.NumMACDTypes]float64
	SRAMRead, SRAMWrite     float64 // per byte
	ACCRead, ACCWrite       float64
	HBMRead, HBMWrite       float64 // per byte (config: per bit; off-chip, not scaled)
	HBMActivate, HBMRefresh float64
	DMA                     float64 // per byte
	VSimple, VTrans, VDiv   float64
	XLU                     float64
	Scalar                  float64
}

// PricesOf scales a chip's energy section to its technology node.
func PricesOf(c *config.Chip) *Prices {
	e := c.Energy
	s := EnergyScale(e.ValuesNM, c.TechnologyNM)
	p := &Prices{
		SRAMRead: s * e.SRAMReadPJPerByte, SRAMWrite: s * e.SRAMWritePJPerByte,
		ACCRead: s * e.ACCReadPJPerByte, ACCWrite: s * e.ACCWritePJPerByte,
		HBMRead: 8 * e.HBMReadPJPerBit, HBMWrite: 8 * e.HBMWritePJPerBit,
		HBMActivate: e.HBMActivatePJ, HBMRefresh: e.HBMRefreshPJ,
		DMA: s * e.DMAPJPerByte, VSimple: s * e.VPUSimplePJ, VTrans: s * e.VPUTranscendentalPJ, VDiv: s * e.VPUDividePJ,
		XLU: s * e.XLUPJPerElement, Scalar: s * e.ScalarPJPerInst,
	}
	for i, d := range core.MACDTypes {
		p.MAC[i] = s * e.MACpJ.Of(d)
	}
	return p
}

// Dynamic is dynamic energy in pJ by the component that spends it.
type Dynamic struct {
	MXU, SRAM, ACC, HBM, DMA, VPU, XLU, Scalar float64
}

// Total is the sum of the components.
func (d Dynamic) Total() float64 {
	return d.MXU + d.SRAM + d.ACC + d.HBM + d.DMA + d.VPU + d.XLU + d.Scalar
}

// Of prices a set of actions (activations and refreshes are the memory's,
// not an instruction's: see Report).
func (p *Prices) Of(a *core.Actions) Dynamic {
	var d Dynamic
	for i, n := range a.MACs {
		d.MXU += p.MAC[i] * float64(n)
	}
	d.SRAM = p.SRAMRead*float64(a.SRAMRead) + p.SRAMWrite*float64(a.SRAMWrite)
	d.ACC = p.ACCRead*float64(a.ACCRead) + p.ACCWrite*float64(a.ACCWrite)
	d.HBM = p.HBMRead*float64(a.HBMRead) + p.HBMWrite*float64(a.HBMWrite)
	d.DMA = p.DMA * float64(a.DMABytes)
	d.VPU = p.VSimple*float64(a.VSimple) + p.VTrans*float64(a.VTranscendental) + p.VDiv*float64(a.VDivide)
	d.XLU = p.XLU * float64(a.XLUElements)
	d.Scalar = p.Scalar * float64(a.ScalarInstructions)
	return d
}

// PJ is the dynamic energy of a set of actions, in pJ.
func (p *Prices) PJ(a *core.Actions) float64 {
	d := p.Of(a)
	return d.Total()
}
