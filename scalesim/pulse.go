package scalesim

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/runtime"
)

// The same layers on Pulse's cycle-level chip (--pulse-model): a chip
// built from the cfg, each layer compiled from HLO and simulated, beside
// SCALE-Sim's figures.

// PulseChip builds a Pulse chip from a SCALE-Sim configuration: teach16
// (one MXU at 1 GHz) with the cfg's array, dataflow and SRAM (the three
// SCALE-Sim SRAMs together), and its bandwidth: CALC asks for as much as
// the layer needs, so HBM and DMA are left practically unlimited (1 PB/s);
// USER gives Bandwidth words (bytes) per cycle.
func PulseChip(c *Config) (*config.Chip, error) {
	// CALC: memory that never holds the array back (HBM at 1 PB/s, DMA
	// engines with enough requests in flight to cover its latency, wide
	// SRAM banks). USER: the cfg's words (bytes) per cycle at 1 GHz.
	gbps := 1e6
	if c.UserBandwidth {
		gbps = float64(c.Bandwidths[0])
	}
	sram := (c.IfmapSRAMkB + c.FilterSRAMkB + c.OfmapSRAMkB) * 1024
	sets := []string{
		"name=scalesim-" + c.RunName,
		"mxu.rows=" + strconv.FormatInt(c.ArrayHeight, 10), "mxu.cols=" + strconv.FormatInt(c.ArrayWidth, 10),
		"mxu.dataflow=" + c.Dataflow, "memory.sram_bytes=" + strconv.FormatInt(sram, 10),
		"hbm.bandwidth_gbps=" + strconv.FormatFloat(gbps, 'g', -1, 64), "dma.engine_gbps=0", "dma.engines=4",
		"dma.burst_bytes=512", "dma.max_outstanding=64", "sram.banks=32", "sram.bank_width_bytes=64",
		"vpu.lanes=" + strconv.FormatInt(max(c.ArrayWidth, 16), 10),
	}
	ch, err := config.Load("teach16", sets)
	if err != nil {
		return nil, fmt.Errorf("%s: --pulse-model: %w", c.file, err)
	}
	return ch, nil
}

// LayerHLO is a layer as Pulse compiles it: the im2col GEMM SCALE-Sim
// models (int8 operands, 1 byte words, int32 results), M x K times K x N.
func LayerHLO(l *Layer) string {
	m, n, k := l.M(), l.N(), l.K()
	return fmt.Sprintf(`HloModule %s
ENTRY e {
  ifmap = s8[%d,%d] parameter(0)
  filter = s8[%d,%d] parameter(1)
  ROOT ofmap = s32[%d,%d] dot(ifmap, filter), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`, hloName(l.Name), m, k, k, n, m, n)
}

func hloName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "layer"
	}
	return b.String()
}

// PulseResult is one layer on Pulse's chip.
type PulseResult struct {
	Layer  *Layer
	Result *runtime.Result
}

// RunPulse simulates every layer on ch (timing only: the cycles are the
// value run's) and writes each layer's Pulse report as JSON into dir.
func RunPulse(ch *config.Chip, layers []Layer, dir string, progress func(done int, p *PulseResult)) ([]*PulseResult, error) {
	client := &runtime.Client{Chip: ch}
	var out []*PulseResult
	for i := range layers {
		l := &layers[i]
		text := LayerHLO(l)
		file := fmt.Sprintf("layer%d.hlo", i)
		m, err := hlo.Parse(file, text)
		if err != nil {
			return out, err
		}
		if err := verify.Verify(file, m); err != nil {
			return out, err
		}
		x, err := client.Compile(file, m)
		if err != nil {
			return out, fmt.Errorf("layer %d (%s): %w", i, l.Name, err)
		}
		r, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true})
		if err != nil {
			return out, fmt.Errorf("layer %d (%s): %w", i, l.Name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("layer%d.json", i)), r.JSON(), 0o644); err != nil {
			return out, err
		}
		p := &PulseResult{Layer: l, Result: r}
		out = append(out, p)
		if progress != nil {
			progress(i+1, p)
		}
	}
	return out, nil
}

// PulseReport is PULSE_REPORT.csv: each layer's SCALE-Sim and Pulse
// figures side by side (sim may be nil when only Pulse ran).
func PulseReport(sim []*Result, pulse []*PulseResult) string {
	var b strings.Builder
	b.WriteString("LayerID, Layer, M, N, K, SCALE-Sim Total Cycles, Pulse Cycles, Pulse / SCALE-Sim, SCALE-Sim Overall Util %, Pulse MXU MAC Util %, Pulse HBM Bytes, Pulse HBM Achieved GB/s,\n")
	for i, p := range pulse {
		rep := p.Result.Report
		simCycles, ratio, simUtil := "", "", ""
		if i < len(sim) && sim[i] != nil {
			simCycles = pyInt(sim[i].TotalCycles)
			ratio = pyFloat(float64(rep.Cycles) / float64(sim[i].TotalCycles))
			simUtil = pyFloat(sim[i].OverallUtil)
		}
		fmt.Fprintf(&b, "%d, %s, %d, %d, %d, %s, %d, %s, %s, %s, %d, %s,\n", i, p.Layer.Name, p.Layer.M(), p.Layer.N(), p.Layer.K(),
			simCycles, rep.Cycles, ratio, simUtil, pyFloat(rep.MXUMacUtilization*100),
			rep.HBM.BytesRead+rep.HBM.BytesWritten, pyFloat(rep.HBM.AchievedBytesPerSecond/1e9))
	}
	return b.String()
}
