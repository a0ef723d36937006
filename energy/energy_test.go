package energy_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/energy"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/traces"
	"github.com/stretchr/testify/require"
)

// run simulates an assembly file or source on a chip and returns the
// report and the per-kernel table.
func run(t *testing.T, chipName string, sets []string, path, src string, timingOnly bool) (*chip.Report, []traces.KernelStats) {
	t.Helper()
	c, err := config.Load(chipName, sets)
	require.NoError(t, err)
	prog := mustProgram(t, path, src)
	k := traces.NewKernels(traces.ProgramSource(prog, path))
	m, err := chip.Simulate(c, prog, nil, chip.Options{TimingOnly: timingOnly, Observers: []core.Observer{k}})
	require.NoError(t, err)
	return chip.NewReport(path, m, timingOnly), k.Stats()
}

func mustProgram(t *testing.T, path, src string) *exe.Program {
	t.Helper()
	if src == "" {
		p, err := pulse.LoadProgram(path)
		require.NoError(t, err)
		return p
	}
	p, err := asm.Assemble(path, []byte(src), asm.Options{})
	require.NoError(t, err)
	return p
}

// Units add up to the total, actions to the dynamic part, and the
// program's one kernel holds all the instructions' dynamic energy.
func TestConservation(t *testing.T) {
	for _, c := range []struct{ chip, file string }{
		{"tpuv4core", "../examples/kernels/gemm256.s"},
		{"teach16", "../examples/kernels/softmax.s"},
		{"tpuv4core", "../examples/kernels/layernorm.s"},
		{"tpuv1", "../examples/kernels/tpuv1_weights.s"},
	} {
		for _, banked := range []bool{false, true} {
			name := fmt.Sprintf("%s on %s banked=%v", c.file, c.chip, banked)
			var sets []string
			if banked {
				sets = []string{"hbm.model=banked"}
			}
			r, ks := run(t, c.chip, sets, c.file, "", true)
			e := r.Energy
			require.NotNil(t, e, name)
			var units, static, dynamic float64
			for _, u := range e.Units {
				require.InDelta(t, u.Joules, u.StaticJoules+u.DynamicJoules, 1e-15, name)
				units += u.Joules
				static += u.StaticJoules
				dynamic += u.DynamicJoules
			}
			require.InEpsilon(t, e.TotalJoules, units, 1e-12, name)
			require.InEpsilon(t, e.StaticJoules, static, 1e-12, name)
			require.InEpsilon(t, e.DynamicJoules, dynamic, 1e-12, name)
			var actions float64
			for _, j := range e.ByAction {
				actions += j
			}
			require.InEpsilon(t, e.DynamicJoules, actions, 1e-12, name)
			require.Len(t, ks, 1)
			require.InEpsilon(t, e.DynamicJoules-e.ByAction["hbm_activate"]-e.ByAction["hbm_refresh"], ks[0].EnergyJoules, 1e-12, name)
			if banked {
				require.Greater(t, e.ByAction["hbm_activate"], 0.0, name)
			}
			require.InEpsilon(t, e.TotalJoules, e.AverageWatts*r.Seconds, 1e-12, name)
		}
	}
}

// The same work twice costs twice the dynamic energy.
func TestDoublingWorkDoublesDynamicEnergy(t *testing.T) {
	prog := func(n int) string {
		var b strings.Builder
		b.WriteString(".tensor x sram 0x0 f32[4096] = random(1)\n")
		for i := 0; i < n; i++ {
			b.WriteString("        vexp sram[0x10000]:f32[4096], sram[0x0]:f32[4096]\n")
			b.WriteString("        vadd sram[0x20000]:f32[4096], sram[0x10000]:f32[4096], sram[0x0]:f32[4096]\n")
		}
		b.WriteString("        halt\n")
		return b.String()
	}
	for _, chipName := range []string{"teach16", "tpuv4core"} {
		r1, _ := run(t, chipName, nil, "a.s", prog(8), false)
		r2, _ := run(t, chipName, nil, "b.s", prog(16), false)
		d1, d2 := r1.Energy.DynamicJoules, r2.Energy.DynamicJoules
		// Only the halt is not doubled: 1 of 17 sequencer instructions,
		// at 70 pJ (scaled) against thousands of element-ops.
		require.InEpsilon(t, 2.0, d2/d1, 0.002, chipName)
		require.InEpsilon(t, 2*r1.Energy.ByAction["vpu"], r2.Energy.ByAction["vpu"], 1e-12, chipName)
		require.InEpsilon(t, 2*r1.Energy.ByAction["sram"], r2.Energy.ByAction["sram"], 1e-12, chipName)
	}
}

// A unit that does nothing draws only its static power, at the idle factor.
func TestIdleUnitsDrawOnlyStaticPower(t *testing.T) {
	r, _ := run(t, "tpuv4core", nil, "v.s", ".tensor x sram 0x0 f32[1024] = random(1)\n        vexp sram[0x1000]:f32[1024], sram[0x0]:f32[1024]\n        halt\n", false)
	c, _ := config.Load("tpuv4core", nil)
	for _, name := range []string{"mxu0", "mxu3", "xlu1", "dma2"} {
		u := r.Energy.Units[name]
		require.Zero(t, u.DynamicJoules, name)
		w := c.Energy.StaticW.MXU
		switch name[:3] {
		case "xlu":
			w = c.Energy.StaticW.XLU
		case "dma":
			w = c.Energy.StaticW.DMA
		}
		require.InEpsilon(t, w*c.Energy.IdleFactor*r.Seconds, u.StaticJoules, 1e-12, name)
	}
	require.Zero(t, r.Energy.ByAction["mac"])
	require.Greater(t, r.Energy.Units["vpu"].DynamicJoules, 0.0)
}

// Energy is the same bytes on every rerun, and timing-only runs price
// the same actions as value runs.
func TestDeterministicAndModeIndependent(t *testing.T) {
	enc := func(r *chip.Report) string {
		b, _ := json.Marshal(r.Energy)
		return string(b)
	}
	a, _ := run(t, "tpuv4core", nil, "../examples/kernels/gemm256.s", "", false)
	b, _ := run(t, "tpuv4core", nil, "../examples/kernels/gemm256.s", "", false)
	c, _ := run(t, "tpuv4core", nil, "../examples/kernels/gemm256.s", "", true)
	require.Equal(t, enc(a), enc(b))
	require.Equal(t, enc(a), enc(c))
}

// The tpuv1 preset against Jouppi et al., ISCA 2017: measured busy 40 W and
// idle 28 W (Table 2), die area <= 331 mm^2 with the MXU ~24% and the
// Unified Buffer ~29% (Fig. 2).
func TestTPUv1Calibration(t *testing.T) {
	r, _ := run(t, "tpuv1", nil, "../examples/kernels/tpuv1_gemm.s", "", true)
	require.Greater(t, r.MXUMacUtilization, 0.7, "the calibration kernel must be compute-bound")
	require.InEpsilon(t, 40.0, r.Energy.AverageWatts, 0.15, "busy power %.1f W", r.Energy.AverageWatts)
	idle, _ := run(t, "tpuv1", nil, "idle.s", "        li r1, 1000\ntop:    addi r1, r1, -1\n        bne r1, r0, top\n        halt\n", true)
	require.InEpsilon(t, 28.0, idle.Energy.AverageWatts, 0.15, "idle power %.1f W", idle.Energy.AverageWatts)
	a := r.Area
	require.InEpsilon(t, 331.0, a.TotalMM2, 0.01)
	require.InDelta(t, 0.24, a.Components["mxu"]/a.TotalMM2, 0.01)
	require.InDelta(t, 0.29, a.Components["sram"]/a.TotalMM2, 0.01)
}

// A 4096^3 bf16 GEMM on tpuv4core: between 0.1 and 10 pJ per MAC all in,
// and within one TensorCore's share of TPU v4's measured 90..192 W per chip
// (two TensorCores; Google Cloud TPU v4 documentation).
func TestTPUv4Plausibility(t *testing.T) {
	r, _ := run(t, "tpuv4core", nil, "../examples/kernels/gemm4096.s", "", true)
	e := r.Energy
	require.GreaterOrEqual(t, e.PJPerMAC, 0.1)
	require.LessOrEqual(t, e.PJPerMAC, 10.0)
	require.GreaterOrEqual(t, e.AverageWatts, 45.0)
	require.LessOrEqual(t, e.AverageWatts, 96.0)
}

func TestScalingRules(t *testing.T) {
	require.Equal(t, 1.0, energy.EnergyScale(45, 45))
	require.InDelta(t, 28.0/45, energy.EnergyScale(45, 28), 1e-12)
	require.InDelta(t, 7.0/45*(0.7/0.9)*(0.7/0.9), energy.EnergyScale(45, 7), 1e-12)
	require.InDelta(t, 1/16.0, energy.AreaScale(28, 7), 1e-12)
	// Re-costing a preset in another node scales every dynamic energy
	// except off-chip memory's.
	src := ".tensor x sram 0x0 f32[4096] = random(1)\n        vexp sram[0x10000]:f32[4096], sram[0x0]:f32[4096]\n        halt\n"
	a, _ := run(t, "tpuv4core", nil, "a.s", src, false)
	b, _ := run(t, "tpuv4core", []string{"technology_nm=16"}, "a.s", src, false)
	require.InEpsilon(t, energy.EnergyScale(7, 16), b.Energy.ByAction["vpu"]/a.Energy.ByAction["vpu"], 1e-9)
	require.InEpsilon(t, energy.AreaScale(7, 16), b.Area.Components["mxu"]/a.Area.Components["mxu"], 1e-9)
	require.Equal(t, a.Area.Components["fixed"], b.Area.Components["fixed"])
}

func TestBadValues(t *testing.T) {
	for _, c := range []struct{ set, msg string }{
		{"energy.mac_pj.bf16=-1", "energy.mac_pj.bf16: -1 out of range"},
		{"energy.static_w.mxu=-0.5", "energy.static_w.mxu: -0.5 out of range"},
		{"energy.idle_factor=1.5", "energy.idle_factor: 1.5 out of range"},
		{"area.sram_mm2_per_mib=-3", "area.sram_mm2_per_mib: -3 out of range"},
		{"energy.hbm_read_pj_per_bit=lots", "energy.hbm_read_pj_per_bit"},
		{"technology_nm=-7", "technology_nm: -7 out of range"},
	} {
		_, err := config.Load("tpuv4core", []string{c.set})
		require.ErrorContains(t, err, c.msg, c.set)
	}
	// A config without energy and area sections has no figures, not zeros.
	c, err := config.Load("../examples/chips/hbm2-dramsim3.yaml", nil)
	require.NoError(t, err)
	prog := mustProgram(t, "h.s", "        halt\n")
	m, err := chip.Simulate(c, prog, nil, chip.Options{})
	require.NoError(t, err)
	r := chip.NewReport("h.s", m, false)
	require.Nil(t, r.Energy)
	require.Nil(t, r.Area)
}
