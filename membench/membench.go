// Package membench drives a chip's HBM model directly with a request
// pattern, as DRAMSim3's library drivers do: no core, no DMA engines, only
// requests issued as fast as the memory controller accepts them, and the
// figures a memory-system study reads (bandwidth against peak, read
// latency, row-hit rate). `pulse membench` is its command line.
package membench

import (
	"fmt"
	"math/rand/v2"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/memory"
	"github.com/pulse-sim/pulse/sim"
)

// Patterns are the request patterns: seq reads consecutive addresses;
// random reads addresses uniform over 1 GiB; mix walks consecutive
// addresses alternating a read and a write.
var Patterns = []string{"seq", "random", "mix"}

// Options choose the run.
type Options struct {
	Pattern  string
	Requests int   // default 100,000
	Bytes    int64 // per request, default 64
	Seed     uint64
	// PerClock caps the requests issued in one controller clock (0: as
	// many as the controller accepts). DRAMSim3's own CPU models issue one
	// a clock, which caps an 8-channel HBM2 stack at a quarter of its peak.
	PerClock int
}

// Result is a run's figures (JSON keys as docs/membench.md lists them).
type Result struct {
	Chip                 string  `json:"chip"`
	Model                string  `json:"model"`
	Pattern              string  `json:"pattern"`
	Requests             int     `json:"requests"`
	BytesPerRequest      int64   `json:"bytes_per_request"`
	Cycles               int64   `json:"cycles"` // memory clock cycles from the first request to the last completion
	BytesPerSecond       float64 `json:"bytes_per_second"`
	PeakBytesPerSecond   float64 `json:"peak_bytes_per_second"`
	FractionOfPeak       float64 `json:"fraction_of_peak"`
	AvgReadLatencyCycles float64 `json:"avg_read_latency_cycles"`
	RowHitRate           float64 `json:"row_hit_rate"`
	Refreshes            int64   `json:"refreshes"`
}

// randomSpan is the address range random requests cover.
const randomSpan = 1 << 30

type driver struct {
	eng      *sim.Engine
	hbm      memory.HBM
	banked   *memory.Banked
	tck      sim.Time
	opt      Options
	rng      *rand.Rand
	next     int   // requests issued
	addr     int64 // the next request's address
	write    bool
	queued   bool
	done     int
	last     sim.Time
	readLat  sim.Time
	reads    int
	onIssued func(int)
}

type completion struct {
	d     *driver
	start sim.Time
	read  bool
}

func (c *completion) Complete(now sim.Time) {
	d := c.d
	d.done++
	d.last = max(d.last, now)
	if c.read {
		d.reads++
		d.readLat += now - c.start
	}
}

func (d *driver) pick() {
	i := int64(d.next)
	switch d.opt.Pattern {
	case "seq":
		d.addr, d.write = i*d.opt.Bytes, false
	case "random":
		d.addr, d.write = d.rng.Int64N(randomSpan/d.opt.Bytes)*d.opt.Bytes, false
	case "mix":
		d.addr, d.write = i*d.opt.Bytes, i%2 == 1
	}
}

// Handle is one controller clock of the driver: it issues requests, in
// order, while the controller accepts them.
func (d *driver) Handle(now sim.Time) {
	d.queued = false
	for n := 0; d.next < d.opt.Requests && (d.opt.PerClock == 0 || n < d.opt.PerClock); n++ {
		if d.banked != nil && !d.banked.Accepts(d.addr, d.write) {
			break
		}
		d.hbm.Request(now, d.addr, d.opt.Bytes, d.write, &completion{d, now, !d.write})
		d.next++
		if d.next < d.opt.Requests {
			d.pick()
		}
	}
	if d.next < d.opt.Requests {
		d.eng.Schedule(now+d.tck, d)
		d.queued = true
	}
}

// Run drives chip's HBM model (its hbm.model, usually banked) with the
// pattern.
func Run(chip *config.Chip, opt Options) (*Result, error) {
	if opt.Requests == 0 {
		opt.Requests = 100_000
	}
	if opt.Bytes == 0 {
		opt.Bytes = 64
	}
	if opt.PerClock < 0 {
		return nil, fmt.Errorf("--per-clock %d: want 0 (no cap) or a positive count", opt.PerClock)
	}
	if opt.Requests < 0 || opt.Bytes < 0 || opt.Bytes > 1<<20 || randomSpan%opt.Bytes != 0 && opt.Pattern == "random" {
		return nil, fmt.Errorf("--requests %d, --bytes %d: want a positive count and a size up to 1 MiB that divides 1 GiB", opt.Requests, opt.Bytes)
	}
	ok := false
	for _, p := range Patterns {
		ok = ok || p == opt.Pattern
	}
	if !ok {
		return nil, fmt.Errorf("--pattern %q: want seq, random or mix", opt.Pattern)
	}
	d := &driver{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 0x6d656d62656e6368))}
	d.eng = &sim.Engine{}
	h, err := core.NewHBM(d.eng, chip)
	if err != nil {
		return nil, err
	}
	d.hbm, d.tck = h, sim.Time(1000) // the ideal and streaming buses count in nanoseconds
	if b, ok := h.(*memory.Banked); ok {
		d.banked, d.tck = b, b.TCK()
	}
	d.pick()
	d.eng.Schedule(0, d)
	d.eng.Run(-1)
	if d.done != opt.Requests {
		return nil, fmt.Errorf("internal error: %d of %d requests completed", d.done, opt.Requests)
	}
	st := d.hbm.Stats()
	r := &Result{Chip: chip.Name, Model: chip.HBM.Model, Pattern: opt.Pattern, Requests: opt.Requests, BytesPerRequest: opt.Bytes,
		Cycles: int64((d.last + d.tck - 1) / d.tck), PeakBytesPerSecond: d.hbm.PeakBytesPerSecond(),
		RowHitRate: st.RowHitRate(), Refreshes: st.Refreshes}
	if d.last > 0 {
		r.BytesPerSecond = float64(int64(opt.Requests)*opt.Bytes) / (float64(d.last) * 1e-12)
	}
	if r.PeakBytesPerSecond > 0 {
		r.FractionOfPeak = r.BytesPerSecond / r.PeakBytesPerSecond
	}
	if d.reads > 0 {
		r.AvgReadLatencyCycles = float64(d.readLat) / float64(d.reads) / float64(d.tck)
	}
	return r, nil
}
