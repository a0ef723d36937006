package chip

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/energy"

	"github.com/olekukonko/tablewriter"
	"github.com/pulse-sim/pulse/core"
)

// SchemaVersion is the version of the JSON report (docs/report-schema.md).
const SchemaVersion = 2

// Report is the summary of a timed run. Its JSON form is documented in
// docs/report-schema.md. Everything in it is simulated, so two runs of the
// same input give byte-identical reports.
type Report struct {
	SchemaVersion int    `json:"schema_version"`
	Chip          string `json:"chip"`
	Program       string `json:"program"`
	TimingOnly    bool   `json:"timing_only"`
	// Slice says which values a timing-only run computed (absent for a
	// value run).
	Slice                  *SliceReport `json:"timing_only_slice,omitempty"`
	ClockMHz               float64      `json:"clock_mhz"`
	Cycles                 int64        `json:"cycles"`
	Seconds                float64      `json:"seconds"`
	Instructions           int64        `json:"instructions"`
	FLOPs                  int64        `json:"flops"`
	PeakFLOPsPerSecond     float64      `json:"peak_flops_per_second"`
	AchievedFLOPsPerSecond float64      `json:"achieved_flops_per_second"`
	MXUMacUtilization      float64      `json:"mxu_mac_utilization"`
	// MXUDataflow is the arrays' dataflow (ws, os, is); MXUDataflowModel
	// says how its timing is modelled.
	MXUDataflow      string                `json:"mxu_dataflow"`
	MXUDataflowModel string                `json:"mxu_dataflow_model"`
	Units            map[string]UnitReport `json:"units"`
	HBM              HBMReport             `json:"hbm"`
	// Host is the host link's traffic (infeed, outfeed), when there was
	// any.
	Host *HostReport `json:"host,omitempty"`
	// Interconnect is this device's link in a multi-device run: its
	// collectives, their bytes, the link's busy time and the time the
	// device waited for its group (docs/devices.md).
	Interconnect *core.LinkStats     `json:"interconnect,omitempty"`
	Stalls       map[string]StallsOf `json:"stalls"`
	// Bank-conflict stall cycles in on-chip memories: time requests waited
	// beyond what a perfect spread over the banks would take.
	SRAMBankConflictStallCycles int64 `json:"sram_bank_conflict_stall_cycles"`
	ACCBankConflictStallCycles  int64 `json:"acc_bank_conflict_stall_cycles"`
	// Energy and Area price the run and size the chip (docs/energy.md).
	Energy *energy.Report `json:"energy,omitempty"`
	Area   *energy.Area   `json:"area,omitempty"`
}

// SliceReport is what a timing-only run computed: the values that steer
// control flow (core.SliceInfo), so that its cycles are the value run's.
type SliceReport struct {
	ControlDependsOnData bool `json:"control_depends_on_data"`
	// Unit instructions of the program text whose values were computed,
	// of all unit instructions.
	ComputedInstructions int `json:"computed_instructions"`
	EagerInstructions    int `json:"eager_instructions"`
	UnitInstructions     int `json:"unit_instructions"`
	// Runs taken to find the slice (1 when no control depends on data).
	Runs int `json:"runs"`
}

// DataflowModel says how an MXU dataflow's timing is modelled.
func DataflowModel(df string) string {
	switch df {
	case "os":
		return "cycle-level output-stationary array (checked register by register; docs/dataflows.md)"
	case "is":
		return "cycle-level input-stationary array, the dual of ws (docs/dataflows.md)"
	}
	return "cycle-level weight-stationary wavefront (checked PE by PE)"
}

// UnitReport is one unit's activity.
type UnitReport struct {
	BusyCycles   int64   `json:"busy_cycles"`
	Utilization  float64 `json:"utilization"`
	Instructions int64   `json:"instructions"`
}

// StallsOf gives a unit's non-busy cycles by reason.
type StallsOf struct {
	Semaphore  int64 `json:"semaphore"`
	Structural int64 `json:"structural"`
	Memory     int64 `json:"memory"`
	// BankConflict: waiting for SRAM or accumulator banks beyond what a
	// perfect spread of the lines would take (vector and cross-lane units).
	BankConflict int64 `json:"bank_conflict"`
	Idle         int64 `json:"idle"`
}

// HBMReport is off-chip traffic.
type HBMReport struct {
	Model                  string  `json:"model"`
	BytesRead              int64   `json:"bytes_read"`
	BytesWritten           int64   `json:"bytes_written"`
	AchievedBytesPerSecond float64 `json:"achieved_bytes_per_second"`
	PeakBytesPerSecond     float64 `json:"peak_bytes_per_second"`
	// DMABytesPerSecond is the DMA engines' combined cap (0: uncapped);
	// AttainableBytesPerSecond the lower of it and the peak: the memory
	// roof for "bound" and "achieved" in the kernel table.
	DMABytesPerSecond        float64 `json:"dma_bytes_per_second"`
	AttainableBytesPerSecond float64 `json:"attainable_bytes_per_second"`
	RowHitRate               float64 `json:"row_hit_rate"` // banked model; 0 for ideal
	Refreshes                int64   `json:"refreshes"`    // banked model
}

// HostReport is the host link's traffic: bytes read from host memory
// (in) and written to it (out).
type HostReport struct {
	BytesIn  int64 `json:"bytes_in"`
	BytesOut int64 `json:"bytes_out"`
}

// NewReport summarizes a finished model.
func NewReport(program string, m *core.Model, timingOnly bool) *Report {
	c := m.Chip
	cycles := m.Cycles()
	secs := float64(cycles) / (m.Clock.MHz() * 1e6)
	r := &Report{
		SchemaVersion: SchemaVersion, Chip: c.Name, Program: program, TimingOnly: timingOnly,
		ClockMHz: m.Clock.MHz(), Cycles: cycles, Seconds: secs, Instructions: m.Retired(), FLOPs: m.FLOPs(),
		PeakFLOPsPerSecond: 2 * float64(c.MXU.Rows*c.MXU.Cols*c.MXU.Count*c.NumCores()) * m.Clock.MHz() * 1e6,
		Units:              map[string]UnitReport{}, Stalls: map[string]StallsOf{},
	}
	if secs > 0 {
		r.AchievedFLOPsPerSecond = float64(r.FLOPs) / secs
	}
	r.MXUDataflow, r.MXUDataflowModel = c.MXU.Dataflow, DataflowModel(c.MXU.Dataflow)
	if sl := m.Slice; sl != nil {
		r.Slice = &SliceReport{ControlDependsOnData: sl.Steers, ComputedInstructions: sl.Computed, EagerInstructions: sl.Eager, UnitInstructions: sl.Units, Runs: sl.Runs}
	}
	cores := m.Cores // every core of a multi-core chip, core 0 first
	if len(cores) == 0 {
		cores = []*core.Model{m}
	}
	var macs int64
	r.Instructions, r.FLOPs = 0, 0
	for _, cm := range cores {
		for _, a := range cm.Arrays {
			macs += a.MACs
		}
		r.Instructions += cm.Retired()
		r.FLOPs += cm.FLOPs()
	}
	if secs > 0 {
		r.AchievedFLOPsPerSecond = float64(r.FLOPs) / secs
	}
	if cycles > 0 {
		r.MXUMacUtilization = float64(macs) / (float64(c.MXU.Rows*c.MXU.Cols*c.MXU.Count*c.NumCores()) * float64(cycles))
	}
	add := func(name string, a *core.Accounting, n int64) {
		// Whole cycles per state; idle takes the rounding so that the
		// states of every unit add up to the run's cycles exactly.
		cyc := func(s core.State) int64 { return m.Clock.Cycles(a.T[s]) }
		ur := UnitReport{BusyCycles: cyc(core.Busy), Instructions: n}
		if cycles > 0 {
			ur.Utilization = float64(ur.BusyCycles) / float64(cycles)
		}
		r.Units[name] = ur
		st := StallsOf{Semaphore: cyc(core.SemWait), Structural: cyc(core.Structural), Memory: cyc(core.Memory), BankConflict: cyc(core.BankConflict)}
		st.Idle = cycles - ur.BusyCycles - st.Semaphore - st.Structural - st.Memory - st.BankConflict
		r.Stalls[name] = st
	}
	for k, cm := range cores {
		scalar := "scalar"
		if k > 0 {
			scalar = fmt.Sprintf("core%d.scalar", k)
		}
		add(scalar, cm.Seq.Accounting(), 0)
		for _, u := range cm.Units {
			add(u.Name, u.Accounting(), u.Instructions)
		}
		r.SRAMBankConflictStallCycles += cm.SRAMBanks.ConflictCycles
		r.ACCBankConflictStallCycles += cm.ACCBanks.ConflictCycles
	}
	st := m.HBM.Stats()
	r.HBM = HBMReport{Model: c.HBM.Model, BytesRead: st.BytesRead, BytesWritten: st.BytesWritten, PeakBytesPerSecond: m.HBM.PeakBytesPerSecond(),
		DMABytesPerSecond: m.DMABytesPerSecond(), AttainableBytesPerSecond: m.AttainableBytesPerSecond(),
		RowHitRate: st.RowHitRate(), Refreshes: st.Refreshes}
	if secs > 0 {
		r.HBM.AchievedBytesPerSecond = float64(st.BytesRead+st.BytesWritten) / secs
	}
	if m.HostIn != nil {
		if in, out := m.HostIn.Stats().BytesRead, m.HostOut.Stats().BytesWritten; in+out > 0 {
			r.Host = &HostReport{BytesIn: in, BytesOut: out}
		}
	}
	busy := map[string]int64{}
	for name, u := range r.Units {
		busy[name] = u.BusyCycles
	}
	// A config without energy or area sections (one written before they
	// existed) gets no figures rather than zeros.
	if c.Energy != (config.Energy{}) {
		r.Energy = energy.NewReport(m, busy)
	}
	if c.Area != (config.Area{}) {
		r.Area = energy.AreaOf(c)
	}
	return r
}

// JSON encodes the report, indented, with a final newline.
func (r *Report) JSON() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}

func si(v float64, unit string) string {
	if v != 0 && v < 1 && v > -1 {
		small := []string{"m", "µ", "n", "p"}
		i := -1
		for (v < 1 && v > -1) && i < len(small)-1 {
			v *= 1000
			i++
		}
		return fmt.Sprintf("%.3g %s%s", v, small[i], unit)
	}
	prefixes := []string{"", "K", "M", "G", "T", "P"}
	i := 0
	for v >= 1000 && i < len(prefixes)-1 {
		v /= 1000
		i++
	}
	return fmt.Sprintf("%.3g %s%s", v, prefixes[i], unit)
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// WriteTable prints the summary and the per-unit table.
func (r *Report) WriteTable(w io.Writer) error {
	sum := tablewriter.NewTable(w)
	sum.Header("metric", "value")
	rows := [][]string{
		{"chip", r.Chip},
		{"cycles", fmt.Sprint(r.Cycles)},
		{"time", si(r.Seconds, "s") + fmt.Sprintf(" at %.0f MHz", r.ClockMHz)},
		{"instructions", fmt.Sprint(r.Instructions)},
		{"FLOPs", si(float64(r.FLOPs), "")},
		{"achieved / peak FLOP/s", si(r.AchievedFLOPsPerSecond, "FLOP/s") + " / " + si(r.PeakFLOPsPerSecond, "FLOP/s") +
			fmt.Sprintf(" (%s)", pct(safeDiv(r.AchievedFLOPsPerSecond, r.PeakFLOPsPerSecond)))},
		{"MXU MAC utilization", pct(r.MXUMacUtilization)},
		{"HBM read / written", si(float64(r.HBM.BytesRead), "B") + " / " + si(float64(r.HBM.BytesWritten), "B")},
		{"HBM achieved / peak", si(r.HBM.AchievedBytesPerSecond, "B/s") + " / " + si(r.HBM.PeakBytesPerSecond, "B/s") +
			fmt.Sprintf(" (%s)", pct(safeDiv(r.HBM.AchievedBytesPerSecond, r.HBM.PeakBytesPerSecond)))},
	}
	if a := r.HBM.AttainableBytesPerSecond; a < r.HBM.PeakBytesPerSecond {
		rows = append(rows, []string{"HBM achieved / attainable", si(r.HBM.AchievedBytesPerSecond, "B/s") + " / " + si(a, "B/s") +
			fmt.Sprintf(" (%s; the DMA engines move at most %s)", pct(safeDiv(r.HBM.AchievedBytesPerSecond, a)), si(r.HBM.DMABytesPerSecond, "B/s"))})
	}
	if r.MXUDataflow != "ws" {
		rows = append(rows, []string{"MXU dataflow", r.MXUDataflow})
	}
	rows = append(rows, []string{"SRAM / acc bank-conflict stalls", fmt.Sprintf("%d / %d cycles", r.SRAMBankConflictStallCycles, r.ACCBankConflictStallCycles)})
	if h := r.Host; h != nil {
		rows = append(rows, []string{"host link in / out", si(float64(h.BytesIn), "B") + " / " + si(float64(h.BytesOut), "B")})
	}
	if r.HBM.Model == "banked" {
		rows = append(rows, []string{"HBM row-hit rate / refreshes", fmt.Sprintf("%s / %d", pct(r.HBM.RowHitRate), r.HBM.Refreshes)})
	}
	if e := r.Energy; e != nil {
		rows = append(rows,
			[]string{"energy (static / dynamic)", si(e.TotalJoules, "J") + fmt.Sprintf(" (%s / %s)", si(e.StaticJoules, "J"), si(e.DynamicJoules, "J"))},
			[]string{"average power", si(e.AverageWatts, "W")},
			[]string{"energy per MAC / FLOP/s per W", fmt.Sprintf("%.3g pJ / %s (%.3g TOPS/W)", e.PJPerMAC, si(e.FLOPsPerJoule, "FLOP/J"), e.TOPSPerWatt)})
	}
	if a := r.Area; a != nil {
		rows = append(rows, []string{"chip area", fmt.Sprintf("%.1f mm^2 at %d nm", a.TotalMM2, a.TechnologyNM)})
	}
	if r.TimingOnly {
		v := "not computed (--timing-only)"
		if sl := r.Slice; sl != nil && sl.ControlDependsOnData {
			runs := "1 run"
			if sl.Runs != 1 {
				runs = fmt.Sprintf("%d runs", sl.Runs)
			}
			v = fmt.Sprintf("computed for %d of %d unit instructions, the ones control flow depends on (--timing-only; slice found in %s)",
				sl.ComputedInstructions, sl.UnitInstructions, runs)
			if sl.EagerInstructions > 0 {
				v += fmt.Sprintf(", and %d small ones whose inputs had been computed", sl.EagerInstructions)
			}
		}
		rows = append(rows, []string{"values", v})
	}
	if err := sum.Bulk(rows); err != nil {
		return err
	}
	if err := sum.Render(); err != nil {
		return err
	}
	units := tablewriter.NewTable(w)
	units.Header("unit", "instructions", "busy cycles", "utilization", "semaphore wait", "structural stall", "memory stall", "bank conflict", "idle")
	for _, name := range r.unitOrder() {
		u, s := r.Units[name], r.Stalls[name]
		n := fmt.Sprint(u.Instructions)
		if name == "scalar" {
			n = "-"
		}
		if err := units.Append(name, n, fmt.Sprint(u.BusyCycles), pct(u.Utilization), fmt.Sprint(s.Semaphore), fmt.Sprint(s.Structural), fmt.Sprint(s.Memory), fmt.Sprint(s.BankConflict), fmt.Sprint(s.Idle)); err != nil {
			return err
		}
	}
	return units.Render()
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// unitOrder lists units as the chip does: scalar, DMA engines, MXUs, VPU, XLUs.
func (r *Report) unitOrder() []string {
	rank := func(n string) string {
		core := "00" // a multi-core chip's core<k>.<unit> after core 0's units, in core order
		if c, unit, ok := strings.Cut(n, "."); ok && strings.HasPrefix(c, "core") {
			core, n = fmt.Sprintf("%02s", strings.TrimPrefix(c, "core")), unit
		}
		for i, p := range []string{"scalar", "dma", "mxu", "vpu", "xlu"} {
			if strings.HasPrefix(n, p) {
				return fmt.Sprintf("%s%d%s%04s", core, i, p, strings.TrimPrefix(n, p))
			}
		}
		return core + "9" + n
	}
	names := make([]string, 0, len(r.Units))
	for n := range r.Units {
		names = append(names, n)
	}
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && rank(names[j]) < rank(names[j-1]); j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
	return names
}
