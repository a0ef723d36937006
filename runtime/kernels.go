package runtime

import (
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/sim"
)

// KernelStats is one kernel's share of a run: the sum over its runs (a
// kernel in a while loop runs once per iteration) of the span from the
// first instruction any unit started to the last one completed (kernels are
// separated by barriers, so spans do not overlap), its FLOPs and HBM bytes
// as HLO counts them, and what bounds it on this chip.
type KernelStats struct {
	Name      string  `json:"name"`      // the HLO fusion or op
	Kind      string  `json:"kind"`      // loop, output, input, copy
	Runs      int64   `json:"runs"`      // how many times it ran
	Cycles    int64   `json:"cycles"`    // spans in core cycles, summed over runs
	FLOPs     int64   `json:"flops"`     // HLO FLOPs of the kernel, times its runs
	Bytes     int64   `json:"bytes"`     // HLO bytes read and written, times its runs
	Intensity float64 `json:"intensity"` // FLOPs per byte
	Bound     string  `json:"bound"`     // compute or memory: which roof is lower at this intensity
	Achieved  float64 `json:"achieved"`  // fraction of that roof reached
}

// spans records, per kernel, the first start and last end of its
// instructions on any unit in each run, and sums the runs: a run starts
// when an instruction of another kernel than the current one starts.
type spans struct {
	kernelOf []int // pc -> kernel index, -1 for none
	first    []sim.Time
	last     []sim.Time
	seen     []bool
	total    []sim.Time
	runs     []int64
	cur      int // the kernel running, -1 before the first
}

// close ends the current kernel's run.
func (s *spans) close() {
	if s.cur >= 0 {
		s.total[s.cur] += s.last[s.cur] - s.first[s.cur]
		s.cur = -1
	}
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
		if k != s.cur {
			s.close()
			s.cur = k
			s.first[k], s.last[k] = ctx.Now, ctx.Now
			s.runs[k]++
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
		first: make([]sim.Time, len(x.Kernels)), last: make([]sim.Time, len(x.Kernels)), seen: make([]bool, len(x.Kernels)),
		total: make([]sim.Time, len(x.Kernels)), runs: make([]int64, len(x.Kernels)), cur: -1}
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
	s.close()
	var out []KernelStats
	for k, kn := range x.Kernels {
		ks := KernelStats{Name: kn.Name, Kind: kn.Kind, Runs: s.runs[k], FLOPs: kn.FLOPs * s.runs[k], Bytes: kn.Bytes * s.runs[k]}
		if s.seen[k] {
			ks.Cycles = m.Clock.CyclesCeil(s.total[k])
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
