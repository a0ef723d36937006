package energy

import (
	"fmt"
	"sort"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/isa"
)

// Report is a run's energy: the "energy" object of the JSON report
// (docs/report-schema.md).
type Report struct {
	TechnologyNM  int     `json:"technology_nm"`
	TotalJoules   float64 `json:"total_joules"`
	AverageWatts  float64 `json:"average_watts"`
	StaticJoules  float64 `json:"static_joules"`
	DynamicJoules float64 `json:"dynamic_joules"`
	// PJPerMAC is all the run's energy over its multiply-accumulates (0
	// without any); FLOPsPerJoule is FLOP/s per watt, TOPSPerWatt the same
	// in 10^12.
	PJPerMAC      float64               `json:"pj_per_mac"`
	FLOPsPerJoule float64               `json:"flops_per_joule"`
	TOPSPerWatt   float64               `json:"tops_per_watt"`
	Units         map[string]UnitEnergy `json:"units"`
	// ByAction is the dynamic energy by kind of action, in joules: mac,
	// sram, acc, hbm_transfer, hbm_activate, hbm_refresh, dma, vpu, xlu,
	// scalar.
	ByAction map[string]float64 `json:"dynamic_joules_by_action"`
}

// UnitEnergy is one unit's (or memory's) share.
type UnitEnergy struct {
	Joules        float64 `json:"joules"`
	StaticJoules  float64 `json:"static_joules"`
	DynamicJoules float64 `json:"dynamic_joules"`
}

// NewReport prices a finished run: busy gives each unit's busy cycles by
// name (scalar, mxu0, vpu, dma1, ...), as the chip report counts them.
func NewReport(m *core.Model, busy map[string]int64) *Report {
	c := m.Chip
	p := PricesOf(c)
	cycles := m.Cycles()
	secs := float64(cycles) / (m.Clock.MHz() * 1e6)
	r := &Report{TechnologyNM: c.TechnologyNM, Units: map[string]UnitEnergy{}, ByAction: map[string]float64{}}
	units := map[string]*UnitEnergy{}
	unit := func(name string) *UnitEnergy {
		u := units[name]
		if u == nil {
			u = &UnitEnergy{}
			units[name] = u
		}
		return u
	}
	// Dynamic: each instruction's actions, to the unit that ran it and the
	// memories it touched; static: compute units by their busy time, the
	// rest always. On a chip of several cores each core's are its own
	// (named core<k>.<name> beyond core 0), and its static powers are a
	// core's share of the chip (docs/energy.md).
	cores := m.Cores
	if len(cores) == 0 {
		cores = []*core.Model{m}
	}
	var total Dynamic
	e := c.Energy
	seconds := func(cyc int64) float64 { return float64(cyc) / (m.Clock.MHz() * 1e6) }
	for k, cm := range cores {
		pre := ""
		if k > 0 {
			pre = fmt.Sprintf("core%d.", k)
		}
		for pc := range cm.Prog.Code {
			a := cm.ActionsAt(pc)
			d := p.Of(a)
			total.MXU += d.MXU
			total.SRAM += d.SRAM
			total.ACC += d.ACC
			total.HBM += d.HBM
			total.DMA += d.DMA
			total.VPU += d.VPU
			total.XLU += d.XLU
			total.Scalar += d.Scalar
			if u := cm.UnitOf(pc); u != nil {
				unit(u.Name).DynamicJoules += (d.MXU + d.DMA + d.VPU + d.XLU) * 1e-12
			}
			unit(pre + "scalar").DynamicJoules += d.Scalar * 1e-12
			unit(pre + "sram").DynamicJoules += d.SRAM * 1e-12
			unit(pre + "acc").DynamicJoules += d.ACC * 1e-12
			unit("hbm").DynamicJoules += d.HBM * 1e-12
		}
		gated := func(name string, w float64) {
			b := min(seconds(busy[name]), secs)
			unit(name).StaticJoules += w * (b + e.IdleFactor*(secs-b))
		}
		gated(pre+"scalar", e.StaticW.Scalar)
		for _, u := range cm.Units {
			switch u.ID.Class {
			case isa.UnitMXU:
				gated(u.Name, e.StaticW.MXU)
			case isa.UnitVPU:
				gated(u.Name, e.StaticW.VPU)
			case isa.UnitXLU:
				gated(u.Name, e.StaticW.XLU)
			case isa.UnitDMA:
				gated(u.Name, e.StaticW.DMA)
			}
		}
		for name, w := range map[string]float64{pre + "sram": e.StaticW.SRAM, pre + "acc": e.StaticW.ACC, "hbm": e.StaticW.HBM, "other": e.StaticW.Other} {
			unit(name).StaticJoules += w * secs
		}
	}
	st := m.HBM.Stats()
	var activations int64
	if c.HBM.Model == "banked" {
		activations = st.Accesses - st.RowHits
	}
	act := p.HBMActivate * float64(activations) * 1e-12
	ref := p.HBMRefresh * float64(st.Refreshes) * 1e-12
	unit("hbm").DynamicJoules += act + ref
	r.ByAction = map[string]float64{"mac": total.MXU * 1e-12, "sram": total.SRAM * 1e-12, "acc": total.ACC * 1e-12,
		"hbm_transfer": total.HBM * 1e-12, "hbm_activate": act, "hbm_refresh": ref, "dma": total.DMA * 1e-12,
		"vpu": total.VPU * 1e-12, "xlu": total.XLU * 1e-12, "scalar": total.Scalar * 1e-12}

	// Summed in name order: floating-point sums in map order would differ
	// in the last digit from run to run.
	names := make([]string, 0, len(units))
	for name := range units {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		u := units[name]
		u.Joules = u.StaticJoules + u.DynamicJoules
		r.Units[name] = *u
		r.StaticJoules += u.StaticJoules
		r.DynamicJoules += u.DynamicJoules
	}
	r.TotalJoules = r.StaticJoules + r.DynamicJoules
	if secs > 0 {
		r.AverageWatts = r.TotalJoules / secs
	}
	var macs, flops int64
	for _, cm := range cores {
		for _, n := range cm.TotalActions().MACs {
			macs += n
		}
		flops += cm.FLOPs()
	}
	if macs > 0 {
		r.PJPerMAC = r.TotalJoules * 1e12 / float64(macs)
	}
	if r.TotalJoules > 0 {
		r.FLOPsPerJoule = float64(flops) / r.TotalJoules
		r.TOPSPerWatt = r.FLOPsPerJoule / 1e12
	}
	return r
}

// Area is a chip's silicon area: the "area" object of the report and of
// `pulse chip show`.
type Area struct {
	TechnologyNM int                `json:"technology_nm"`
	TotalMM2     float64            `json:"total_mm2"`
	Components   map[string]float64 `json:"components"` // mxu, sram, acc, vpu, xlu, dma, scalar, fixed
}

// AreaOf sizes a chip from its area section, scaled to its node.
func AreaOf(c *config.Chip) *Area {
	a := c.Area
	s := AreaScale(a.ValuesNM, c.TechnologyNM)
	pe := 0.0
	width := 0
	for _, d := range c.MXU.DTypes {
		dt, ok := isa.ParseDType(d)
		if !ok {
			continue
		}
		switch {
		case dt.Size() > width:
			width, pe = dt.Size(), a.PEmm2.Of(d)
		case dt.Size() == width:
			pe = max(pe, a.PEmm2.Of(d))
		}
	}
	const mib = 1 << 20
	comp := map[string]float64{
		"mxu":    float64(c.MXU.Count*c.MXU.Rows*c.MXU.Cols) * pe * s,
		"sram":   float64(c.Memory.SRAMBytes) / mib * a.SRAMmm2PerMiB * s,
		"acc":    float64(c.Memory.ACCBytes) / mib * a.ACCmm2PerMiB * s,
		"vpu":    float64(c.VPU.Lanes*c.VPU.Sublanes) * a.VPULanemm2 * s,
		"xlu":    float64(c.XLU.Count) * a.XLUmm2 * s,
		"dma":    float64(c.DMA.Engines) * a.DMAmm2 * s,
		"scalar": a.Scalarmm2 * s,
		"fixed":  a.Fixedmm2,
	}
	// A chip of several cores: every component is per core (fixed_mm2 is
	// a core's share of I/O, PHYs and control).
	for k, v := range comp {
		comp[k] = v * float64(c.NumCores())
	}
	r := &Area{TechnologyNM: c.TechnologyNM, Components: comp}
	for _, k := range []string{"mxu", "sram", "acc", "vpu", "xlu", "dma", "scalar", "fixed"} {
		r.TotalMM2 += comp[k]
	}
	return r
}
