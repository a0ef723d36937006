package runtime

import (
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/sim"
)

// KernelStats is one kernel's share of a run: its span from the first
// instruction any unit started to the last one completed (kernels are
// separated by barriers, so spans do not overlap), its FLOPs and HBM bytes
// as HLO counts them, and what bounds it on this chip.
type KernelStats struct {
	Name      string  // the HLO fusion or op
	Kind      string  // loop, output, input
	Cycles    int64   // span in core cycles
	FLOPs     int64   // HLO FLOPs of the kernel
	Bytes     int64   // HLO bytes read and written
	Intensity float64 // FLOPs per byte
	Bound     string  // compute or memory: which roof is lower at this intensity
	Achieved  float64 // fraction of that roof reached
}

// spans records, per kernel, the first start and last end of its
// instructions on any unit.
type spans struct {
	kernelOf []int // pc -> kernel index, -1 for none
	first    []sim.Time
	last     []sim.Time
	seen     []bool
}

func (s *spans) Func(ctx *sim.HookCtx) {
	if ctx.PC < 0 || ctx.PC >= len(s.kernelOf) {
		return
	}
	k := s.kernelOf[ctx.PC]
	if k < 0 {
		return
	}
	switch ctx.Pos {
	case sim.HookInstStart:
		if !s.seen[k] || ctx.Now < s.first[k] {
			s.first[k] = ctx.Now
		}
		s.seen[k] = true
	case sim.HookInstEnd:
		if ctx.Now > s.last[k] {
			s.last[k] = ctx.Now
		}
	}
}

func attachSpans(x *Executable, m *core.Model) *spans {
	s := &spans{kernelOf: make([]int, len(x.Program.Code)),
		first: make([]sim.Time, len(x.Kernels)), last: make([]sim.Time, len(x.Kernels)), seen: make([]bool, len(x.Kernels))}
	for i := range s.kernelOf {
		s.kernelOf[i] = -1
	}
	for k, kn := range x.Kernels {
		for pc := kn.FirstPC; pc >= 0 && pc < kn.EndPC && pc < len(s.kernelOf); pc++ {
			s.kernelOf[pc] = k
		}
	}
	for _, u := range m.Units {
		u.AcceptHook(s)
	}
	return s
}

// kernelStats turns the spans into the per-kernel table.
func kernelStats(x *Executable, m *core.Model, s *spans) []KernelStats {
	c := m.Chip
	peakFLOPs := 2 * float64(c.MXU.Count*c.MXU.Rows*c.MXU.Cols) * float64(c.ClockMHz) * 1e6
	peakBytes := c.HBM.BandwidthGBps * 1e9
	var out []KernelStats
	for k, kn := range x.Kernels {
		ks := KernelStats{Name: kn.Name, Kind: kn.Kind, FLOPs: kn.FLOPs, Bytes: kn.Bytes}
		if s.seen[k] {
			ks.Cycles = m.Clock.CyclesCeil(s.last[k] - s.first[k])
		}
		secs := float64(ks.Cycles) / (float64(c.ClockMHz) * 1e6)
		if ks.Bytes > 0 {
			ks.Intensity = float64(ks.FLOPs) / float64(ks.Bytes)
		}
		if peakBytes > 0 && float64(ks.FLOPs)/peakFLOPs >= float64(ks.Bytes)/peakBytes {
			ks.Bound = "compute"
			if secs > 0 {
				ks.Achieved = float64(ks.FLOPs) / secs / peakFLOPs
			}
		} else {
			ks.Bound = "memory"
			if secs > 0 && peakBytes > 0 {
				ks.Achieved = float64(ks.Bytes) / secs / peakBytes
			}
		}
		out = append(out, ks)
	}
	return out
}
