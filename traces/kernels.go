package traces

import (
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/energy"
	"github.com/pulse-sim/pulse/sim"
)

// runTracker follows kernel runs from the units' instruction hooks: a run
// starts when an instruction of another kernel than the current one starts
// and spans to the last completion of its instructions (kernels are
// separated by barriers, so runs do not overlap).
type runTracker struct {
	src        *Source
	cur        int
	start, end sim.Time
	onClose    func(k int, start, end sim.Time)
}

func (r *runTracker) init(src *Source, onClose func(k int, start, end sim.Time)) {
	r.src, r.cur, r.onClose = src, -1, onClose
}

// inst observes an instruction start or end; it reports whether a new run began.
func (r *runTracker) inst(ctx *sim.HookCtx) bool {
	k := r.src.KernelOf(ctx.PC)
	if k < 0 {
		return false
	}
	switch ctx.Pos {
	case sim.HookInstStart:
		if k != r.cur {
			r.close()
			r.cur, r.start, r.end = k, ctx.Now, ctx.Now
			return true
		}
	case sim.HookInstEnd:
		if k == r.cur && ctx.Now > r.end {
			r.end = ctx.Now
		}
	}
	return false
}

func (r *runTracker) close() {
	if r.cur >= 0 {
		r.onClose(r.cur, r.start, r.end)
		r.cur = -1
	}
}

// KernelStats is one kernel's share of a run: the sum over its runs (a
// kernel in a while loop runs once per iteration) of the span from the
// first instruction any unit started to the last one completed, its FLOPs
// and HBM bytes, and what bounds it on this chip.
type KernelStats struct {
	Name   string `json:"name"`   // the HLO fusion or op (the file, for a hand-written kernel)
	Kind   string `json:"kind"`   // loop, output, input, copy (program, for a hand-written kernel)
	Runs   int64  `json:"runs"`   // how many times it ran
	Cycles int64  `json:"cycles"` // spans in core cycles, summed over runs
	FLOPs  int64  `json:"flops"`  // HLO FLOPs of the kernel, times its runs
	Bytes  int64  `json:"bytes"`  // HLO bytes read and written, times its runs
	// VMEMBytes are the part of Bytes in arrays kept in VMEM
	// (docs/memory.md), times its runs: the roof takes them at the
	// SRAM banks' rate, not HBM's.
	VMEMBytes int64   `json:"vmem_bytes,omitempty"`
	Intensity float64 `json:"intensity"` // FLOPs per byte
	Bound     string  `json:"bound"`     // compute or memory: which roof is lower at this intensity; interconnect for a collective
	Achieved  float64 `json:"achieved"`  // fraction of that roof reached (0 for a collective: no roof of the chip's)
	// EnergyJoules is the dynamic energy of the kernel's instructions
	// (docs/energy.md); static energy and DRAM activations and refreshes
	// belong to the run, not to a kernel. Absent without an energy model.
	EnergyJoules float64 `json:"energy_joules,omitempty"`
	// Source is where the model's program wrote the kernel's work: the
	// Python file and line of its HLO's metadata (absent when unknown).
	Source string `json:"source,omitempty"`
}

// Kernels records the per-kernel table of a run.
type Kernels struct {
	src   *Source
	m     *core.Model
	runs  runTracker
	total []sim.Time
	count []int64
}

// NewKernels makes the per-kernel recorder for a run of src's program.
func NewKernels(src *Source) *Kernels {
	k := &Kernels{src: src, total: make([]sim.Time, len(src.Kernels)), count: make([]int64, len(src.Kernels))}
	k.runs.init(src, func(i int, start, end sim.Time) { k.total[i] += end - start })
	return k
}

// Attach implements core.Observer.
func (k *Kernels) Attach(m *core.Model) {
	// A run begun again (a timing-only search's) starts the table anew.
	k.m = m
	clear(k.total)
	clear(k.count)
	k.runs.cur = -1
	m.Seq.AcceptHook(k) // a collective's time (core/link.go)
	for _, u := range m.Units {
		u.AcceptHook(k)
	}
}

// Restartable: the table watches a timing-only search's runs, each from
// the start, so that its first run, when that needs no more values, is the
// final one (core.RestartableObserver).
func (k *Kernels) Restartable() {}

// Func implements sim.Hook.
func (k *Kernels) Func(ctx *sim.HookCtx) {
	if (ctx.Pos == sim.HookInstStart || ctx.Pos == sim.HookInstEnd) && k.runs.inst(ctx) {
		k.count[k.runs.cur]++
	}
}

// Stats is the table, in kernel order, after the run. A kernel's FLOPs
// and bytes are the source's (the HLO's counts); a hand-written program's
// one kernel takes the run's measured FLOPs and HBM traffic.
func (k *Kernels) Stats() []KernelStats {
	k.runs.close()
	m := k.m
	c := m.Chip
	peakFLOPs := 2 * float64(c.MXU.Count*c.MXU.Rows*c.MXU.Cols*c.NumCores()) * float64(c.ClockMHz) * 1e6
	peakBytes := m.AttainableBytesPerSecond()                                            // the memory roof: HBM, or the DMA engines when they move less
	sramBytes := float64(c.SRAM.Banks*c.SRAM.BankWidthBytes) * float64(c.ClockMHz) * 1e6 // a line from every bank each cycle
	kernelPJ := make([]float64, len(k.src.Kernels))
	if c.Energy != (config.Energy{}) {
		prices := energy.PricesOf(c)
		cores := m.Cores // every core's share of a kernel on a multi-core chip
		if len(cores) == 0 {
			cores = []*core.Model{m}
		}
		for _, cm := range cores {
			for pc := range cm.Prog.Code {
				if i := k.src.KernelOf(pc); i >= 0 {
					kernelPJ[i] += prices.PJ(cm.ActionsAt(pc))
				}
			}
		}
	}
	var out []KernelStats
	for i, kn := range k.src.Kernels {
		ks := KernelStats{Name: kn.Name, Kind: kn.Kind, Runs: k.count[i], FLOPs: kn.FLOPs * k.count[i], Bytes: kn.Bytes * k.count[i],
			VMEMBytes: kn.VMEMBytes * k.count[i], Source: kn.Origin.String()}
		if !k.src.HLO {
			st := m.HBM.Stats()
			ks.FLOPs, ks.Bytes = m.FLOPs(), st.BytesRead+st.BytesWritten
		}
		ks.Cycles = m.Clock.CyclesCeil(k.total[i])
		secs := float64(ks.Cycles) / (float64(c.ClockMHz) * 1e6)
		if ks.Bytes > 0 {
			ks.Intensity = float64(ks.FLOPs) / float64(ks.Bytes)
		}
		if kn.Kind == "collective" {
			// Its time is the interconnect's (and the group's): the
			// chip's roofs do not bound it. The devices table has the
			// link's figures.
			ks.Bound = "interconnect"
		} else if memSecs := memorySeconds(ks.Bytes, ks.VMEMBytes, peakBytes, sramBytes); peakBytes > 0 && float64(ks.FLOPs)/peakFLOPs >= memSecs {
			ks.Bound = "compute"
			if secs > 0 {
				ks.Achieved = float64(ks.FLOPs) / secs / peakFLOPs
			}
		} else {
			ks.Bound = "memory"
			if secs > 0 && peakBytes > 0 {
				ks.Achieved = memSecs / secs
			}
		}
		ks.EnergyJoules = kernelPJ[i] * 1e-12
		out = append(out, ks)
	}
	return out
}

// Wants implements sim.HookFilter: only instruction starts and ends.
func (k *Kernels) Wants(p sim.HookPos) bool { return p == sim.HookInstStart || p == sim.HookInstEnd }

// RoofFraction is a run's kernel-roof efficiency: the cycles its kernels
// would take each at its roof (the lower of the compute and memory roofs
// at its intensity: Achieved 1) over the run's cycles; 1 when every kernel
// ran at its roof. Collectives have no roof of the chip's and count as
// taking none. The issues about generated code measure by it
// (../shared/tools/kernel-roof computes it from a --json report).
func RoofFraction(ks []KernelStats, cycles int64) float64 {
	if cycles <= 0 {
		return 0
	}
	roof := 0.0
	for _, k := range ks {
		roof += k.Achieved * float64(k.Cycles)
	}
	return roof / float64(cycles)
}

// memorySeconds is the memory roof's time for a kernel of bytes, vmem of
// them in VMEM: the HBM part at HBM's peak, the VMEM part at the SRAM
// banks', whichever takes longer (they move side by side).
func memorySeconds(bytes, vmem int64, hbm, sram float64) float64 {
	t := float64(bytes-vmem) / hbm
	if vmem > 0 && sram > 0 {
		t = max(t, float64(vmem)/sram)
	}
	return t
}
