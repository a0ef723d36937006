package lowering

import "github.com/pulse-sim/pulse/config"

// Target is the part of a chip the compiler reads: its cores, the arrays' count,
// shape, dtypes and dataflow, the number of DMA engines and cross-lane
// units, the vector unit's lanes and sublanes (register-resident chains
// run in chunks of whole vregs: streamchunks.go), and whether the engines' rates are capped (dma.engine_gbps > 0:
// a dot then spreads its loads over them; the cap's value is timing
// only), the memory sizes, whether the vector unit has f64 arithmetic
// (vpu.f64_cost > 0; its value is timing only) and whether the chip has a
// host link (host.link_gbps > 0; infeed and outfeed need one). Compile sees only this projection, so two
// chips with the same Target get the same program by construction: a
// sweep over timing knobs (bandwidths, latencies, DRAM timings, clocks)
// compiles once, and the executable cache keys on it.
func Target(c *config.Chip) *config.Chip {
	return &config.Chip{
		Name: c.Name, Cores: c.NumCores(),
		MXU: config.MXU{Count: c.MXU.Count, Rows: c.MXU.Rows, Cols: c.MXU.Cols,
			DTypes: c.MXU.DTypes, Dataflow: c.MXU.Dataflow},
		VPU:    config.VPU{F64Cost: min(c.VPU.F64Cost, 1), Lanes: c.VPU.Lanes, Sublanes: c.VPU.Sublanes},
		XLU:    config.XLU{Count: c.XLU.Count},
		DMA:    config.DMA{Engines: c.DMA.Engines, EngineGBps: capped(c.DMA.EngineGBps)},
		Memory: c.Memory,
		Host:   config.Host{LinkGBps: min(c.Host.LinkGBps, 1)},
	}
}

// capped is 1 for a positive rate cap, else 0.
func capped(gbps float64) float64 {
	if gbps > 0 {
		return 1
	}
	return 0
}
