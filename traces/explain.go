package traces

import (
	"fmt"
	"io"
	"strings"

	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/sim"
)

// MaxExplainStretches caps the state stretches Explain keeps (about 32
// bytes each). Past it the phase breakdown is left out, and the summary
// says so, rather than printing figures from part of the run.
const MaxExplainStretches = 4_000_000

// Explain records each unit's states over a run (the HookState stretches
// the report's columns add up) and summarizes, for a student or anyone
// looking for the bound, where the time went (`--explain`): the
// bottleneck unit (the most busy cycles), the run split into prologue
// (before the bottleneck first starts work), steady state and tail (after
// it last finishes), what dominates each phase, and the attainable roof.
type Explain struct {
	m       *core.Model
	names   []string // by track: 0 the sequencer, unit i at i+1
	st      [][]stretch
	n       int
	dropped bool
}

type stretch struct {
	start, end sim.Time
	state      string
}

// NewExplain makes an Explain to attach through core.Options.Observers.
func NewExplain() *Explain { return &Explain{} }

// Attach hooks the sequencer and every unit.
func (e *Explain) Attach(m *core.Model) {
	e.m = m
	e.names = append(e.names, "scalar")
	m.Seq.AcceptHook(e)
	for _, u := range m.Units {
		e.names = append(e.names, u.Name)
		u.AcceptHook(e)
	}
	e.st = make([][]stretch, len(e.names))
}

// Wants selects the state stretches.
func (e *Explain) Wants(p sim.HookPos) bool { return p == sim.HookState }

// Func records a stretch, merging it with the track's last one when they
// continue each other in the same state.
func (e *Explain) Func(c *sim.HookCtx) {
	if e.dropped || c.Now <= c.Start {
		return
	}
	t := c.Unit + 1
	if t < 0 || t >= len(e.st) {
		return
	}
	s := e.st[t]
	if k := len(s) - 1; k >= 0 && s[k].state == c.Reason && s[k].end == c.Start {
		s[k].end = c.Now
		return
	}
	if e.n >= MaxExplainStretches {
		e.dropped, e.st = true, nil
		return
	}
	e.n++
	e.st[t] = append(s, stretch{c.Start, c.Now, c.Reason})
}

// phase is one part of the run, with each track's time by state.
type phase struct {
	name     string
	from, to sim.Time
	byState  []map[string]sim.Time
}

// Write prints the summary for the finished run r.
func (e *Explain) Write(w io.Writer, r *chip.Report) error {
	var b strings.Builder
	clk := e.m.Clock
	cycles := func(t sim.Time) int64 { return clk.Cycles(t) }
	fmt.Fprintf(&b, "where the time went (%d cycles on %s):\n", r.Cycles, r.Chip)
	if e.dropped {
		fmt.Fprintf(&b, "  (the run had more than %d state changes: phases are left out; the table above has the whole-run figures)\n", MaxExplainStretches)
		e.writeRoof(&b, r)
		_, err := io.WriteString(w, b.String())
		return err
	}
	// The bottleneck: the unit (not the sequencer) with the most busy time.
	bott, bestBusy := -1, sim.Time(0)
	for t := 1; t < len(e.st); t++ {
		var busy sim.Time
		for _, s := range e.st[t] {
			if s.state == "busy" {
				busy += s.end - s.start
			}
		}
		if busy > bestBusy {
			bott, bestBusy = t, busy
		}
	}
	end := e.m.End()
	if bott < 0 || end <= 0 {
		b.WriteString("  no unit did any work.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	var first, last sim.Time = -1, 0
	for _, s := range e.st[bott] {
		if s.state == "busy" {
			if first < 0 {
				first = s.start
			}
			last = s.end
		}
	}
	bn := e.names[bott]
	fmt.Fprintf(&b, "  bottleneck: %s, busy %d cycles (%.1f%% of the run)\n", bn, cycles(bestBusy), pct(cycles(bestBusy), r.Cycles))
	phases := []*phase{{name: "prologue", from: 0, to: first}, {name: "steady", from: first, to: last}, {name: "tail", from: last, to: end}}
	for _, p := range phases {
		p.byState = make([]map[string]sim.Time, len(e.st))
		for t, ss := range e.st {
			p.byState[t] = map[string]sim.Time{}
			for _, s := range ss {
				lo, hi := max(s.start, p.from), min(s.end, p.to)
				if hi > lo {
					p.byState[t][s.state] += hi - lo
				}
			}
		}
	}
	for _, p := range phases {
		n := cycles(p.to) - cycles(p.from)
		fmt.Fprintf(&b, "  %-9s cycles %d..%d (%d, %.1f%%): ", p.name, cycles(p.from), cycles(p.to), n, pct(n, r.Cycles))
		if n <= 0 {
			b.WriteString("none\n")
			continue
		}
		var parts []string
		switch p.name {
		case "prologue":
			parts = append(parts, fmt.Sprintf("before %s's first work it is %s", bn, dominant(p.byState[bott], false)))
		case "tail":
			parts = append(parts, fmt.Sprintf("after %s's last work", bn))
		default:
			busy := p.byState[bott]["busy"]
			parts = append(parts, fmt.Sprintf("%s busy %.0f%%", bn, pct(cycles(busy), n)))
			if st := dominant(p.byState[bott], true); st != "" {
				parts = append(parts, fmt.Sprintf("its main stall: %s", st))
			}
		}
		// The other units that worked most in the phase.
		type tb struct {
			t    int
			busy sim.Time
		}
		var others []tb
		for t := range e.st {
			if t != bott && p.byState[t]["busy"] > 0 {
				others = append(others, tb{t, p.byState[t]["busy"]})
			}
		}
		for i := 1; i < len(others); i++ {
			for j := i; j > 0 && (others[j].busy > others[j-1].busy || others[j].busy == others[j-1].busy && others[j].t < others[j-1].t); j-- {
				others[j], others[j-1] = others[j-1], others[j]
			}
		}
		var ob []string
		for i, o := range others {
			if i == 3 {
				break
			}
			ob = append(ob, fmt.Sprintf("%s %.0f%%", e.names[o.t], pct(cycles(o.busy), n)))
		}
		if len(ob) > 0 {
			parts = append(parts, "also busy: "+strings.Join(ob, ", "))
		} else if p.name != "steady" {
			parts = append(parts, "no unit busy (latency: the first transfer in flight, or the last one draining)")
		}
		b.WriteString(strings.Join(parts, "; ") + "\n")
	}
	e.writeRoof(&b, r)
	steady := phases[1]
	span := cycles(steady.to) - cycles(steady.from)
	busy := pct(cycles(steady.byState[bott]["busy"]), span)
	// An MXU stalled by its own weight loads (a load waits until the
	// last stream's weights have passed the rows it overwrites) is busy
	// little and yet binds.
	weights := 0.0
	for t := 1; t < len(e.st); t++ {
		if strings.HasPrefix(e.names[t], "mxu") {
			weights = max(weights, pct(cycles(steady.byState[t]["structural"]), span))
		}
	}
	if key, why := Binding(bn, busy, weights, r); key != "" {
		fmt.Fprintf(&b, "  binds: %s: %s\n", key, why)
	} else {
		fmt.Fprintf(&b, "  binds: latency: %s\n", why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Binding names the chip config key whose change moves a run's time, from
// its bottleneck unit, how busy that unit is in the steady state
// (percent), how long the MXUs stall on their weight loads (percent) and
// the run's figures, with the figure that shows it; "" when
// no unit is busy enough to bind (latency: the units wait on each other).
// A DMA engine binds through HBM when HBM moves at least 60% of what the
// memory roof allows (the DMA engines' cap when that is lower), else
// through its capped rate (dma.engine_gbps set) or else the bursts it
// keeps in flight.
func Binding(unit string, busy, mxuWeights float64, r *chip.Report) (key, why string) {
	if mxuWeights >= 50 && busy < mxuWeights {
		return "mxu.ldw_cycles_per_row", fmt.Sprintf("the MXUs wait on their own weight loads %.0f%% of the steady state (a load waits until the last stream's weights have left the rows it overwrites); %s is busy %.0f%%", mxuWeights, unit, busy)
	}
	if busy < 50 {
		return "", fmt.Sprintf("the busiest unit, %s, works %.0f%% of the steady state; the others wait on it and it on them", unit, busy)
	}
	switch {
	case strings.HasPrefix(unit, "dma"):
		moved := float64(r.HBM.BytesRead+r.HBM.BytesWritten) / max(r.Seconds, 1e-30)
		peak, att := r.HBM.PeakBytesPerSecond, r.HBM.AttainableBytesPerSecond
		if att <= 0 {
			att = peak
		}
		switch {
		case moved >= 0.6*att && att < peak:
			return "dma.engine_gbps", fmt.Sprintf("the DMA engines move %s of the %s their caps allow (HBM peak %s)", gbps(moved), gbps(att), gbps(peak))
		case moved >= 0.6*att:
			return "hbm.bandwidth_gbps", fmt.Sprintf("HBM moves %s of its %s peak; %s is busy %.0f%%", gbps(moved), gbps(peak), unit, busy)
		case r.HBM.DMABytesPerSecond > 0:
			// The kernel's engines are fewer than the chip's: each is
			// capped, and the busiest moves at its cap half the time.
			return "dma.engine_gbps", fmt.Sprintf("%s, at its capped rate, is busy %.0f%% while HBM moves %s of its %s peak", unit, busy, gbps(moved), gbps(peak))
		}
		return "dma.max_outstanding", fmt.Sprintf("%s is busy %.0f%% while HBM moves %s of its %s peak: the bursts in flight (dma.max_outstanding of dma.burst_bytes over hbm.latency_ns) bound it", unit, busy, gbps(moved), gbps(peak))
	case strings.HasPrefix(unit, "mxu"):
		return "mxu.count", fmt.Sprintf("%s is busy %.0f%% of the steady state (MXU MAC utilization %.0f%%)", unit, busy, 100*r.MXUMacUtilization)
	case strings.HasPrefix(unit, "xlu"):
		return "xlu.count", fmt.Sprintf("%s is busy %.0f%% of the steady state", unit, busy)
	case unit == "vpu":
		return "vpu.lanes", fmt.Sprintf("the vector unit is busy %.0f%% of the steady state", busy)
	}
	return "", fmt.Sprintf("%s is busy %.0f%%", unit, busy)
}

// dominant names the state with the most time (stall only: not busy).
func dominant(m map[string]sim.Time, stallOnly bool) string {
	best, bt := "", sim.Time(0)
	for _, s := range []string{"semaphore", "structural", "memory", "bank_conflict", "idle", "busy"} {
		if stallOnly && (s == "busy" || s == "idle") {
			continue
		}
		if m[s] > bt {
			best, bt = s, m[s]
		}
	}
	if best == "semaphore" {
		return "waiting on a semaphore"
	}
	if best == "memory" {
		return "waiting for memory"
	}
	if best == "bank_conflict" {
		return "bank conflicts"
	}
	return best
}

// writeRoof places the run under its roofline: the compute roof, the
// memory roof (the HBM peak or, when lower, what the DMA engines can move),
// and which one bounds it at its arithmetic intensity.
func (e *Explain) writeRoof(b *strings.Builder, r *chip.Report) {
	bytes := float64(r.HBM.BytesRead + r.HBM.BytesWritten)
	memRoof := r.HBM.AttainableBytesPerSecond
	if memRoof <= 0 {
		memRoof = r.HBM.PeakBytesPerSecond
	}
	ceiling := "HBM peak"
	if r.HBM.AttainableBytesPerSecond > 0 && r.HBM.AttainableBytesPerSecond < r.HBM.PeakBytesPerSecond {
		ceiling = "the DMA engines' ceiling, below the HBM peak"
	}
	if r.Seconds <= 0 {
		return
	}
	achievedBW := bytes / r.Seconds
	if r.FLOPs == 0 {
		fmt.Fprintf(b, "  roof: no arithmetic; memory roof %s (%s); achieved %s = %.1f%% of it\n",
			gbps(memRoof), ceiling, gbps(achievedBW), 100*achievedBW/memRoof)
		return
	}
	ai := float64(r.FLOPs) / max(bytes, 1)
	attain := min(r.PeakFLOPsPerSecond, ai*memRoof)
	bound := "compute-bound (the MXU/vector roof)"
	if ai*memRoof < r.PeakFLOPsPerSecond {
		bound = fmt.Sprintf("memory-bound: at %.2f FLOP/byte the memory roof (%s, %s) allows %s", ai, gbps(memRoof), ceiling, flops(attain))
	}
	fmt.Fprintf(b, "  roof: %s; achieved %s = %.1f%% of the attainable %s\n",
		bound, flops(r.AchievedFLOPsPerSecond), 100*r.AchievedFLOPsPerSecond/attain, flops(attain))
}

func pct(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func gbps(x float64) string { return fmt.Sprintf("%.3g GB/s", x/1e9) }

func flops(x float64) string {
	switch {
	case x >= 1e12:
		return fmt.Sprintf("%.3g TFLOP/s", x/1e12)
	case x >= 1e9:
		return fmt.Sprintf("%.3g GFLOP/s", x/1e9)
	}
	return fmt.Sprintf("%.3g MFLOP/s", x/1e6)
}
