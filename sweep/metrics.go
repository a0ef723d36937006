package sweep

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/ref"
	"github.com/pulse-sim/pulse/runtime"
)

// DefaultMetrics are results.csv's metric columns when a spec names none;
// the per-unit utilizations (util.mxu0, util.dma0, ...) follow them.
var DefaultMetrics = []string{"cycles", "seconds", "flops", "mxu_mac_utilization", "hbm_bytes", "hbm_achieved_fraction", "hbm_attainable_fraction",
	"energy_joules", "average_watts", "area_mm2"}

// metricDocs lists every metric a point records (besides util.UNIT).
var metricDocs = map[string]string{
	"cycles":                          "the run's cycles",
	"seconds":                         "cycles at the chip's clock",
	"instructions":                    "instructions retired",
	"flops":                           "floating-point (and integer MAC) operations",
	"achieved_flops_per_second":       "flops / seconds",
	"peak_flops_per_second":           "the MXUs' peak",
	"mxu_mac_utilization":             "MACs done / (array PEs x cycles)",
	"hbm_bytes":                       "HBM bytes read and written",
	"hbm_bytes_read":                  "HBM bytes read",
	"hbm_bytes_written":               "HBM bytes written",
	"hbm_achieved_fraction":           "achieved HBM bandwidth / HBM peak",
	"hbm_attainable_fraction":         "achieved HBM bandwidth / min(HBM peak, DMA engines' cap)",
	"hbm_row_hit_rate":                "banked HBM: row-buffer hit rate",
	"sram_bank_conflict_stall_cycles": "SRAM bank-conflict stall cycles",
	"acc_bank_conflict_stall_cycles":  "accumulator bank-conflict stall cycles",
	"energy_joules":                   "the run's energy (static and dynamic)",
	"static_joules":                   "static energy",
	"dynamic_joules":                  "dynamic energy",
	"average_watts":                   "energy / seconds",
	"pj_per_mac":                      "energy per multiply-accumulate, all in",
	"flops_per_joule":                 "performance per watt: FLOP/s per W",
	"area_mm2":                        "the chip's area",
	"flops_per_second_per_mm2":        "performance per area: achieved FLOP/s per mm^2",
}

// checkMetrics refuses metric names no point records.
func checkMetrics(names []string) error {
	for _, n := range names {
		if _, ok := metricDocs[n]; !ok && !strings.HasPrefix(n, "util.") {
			var known []string
			for k := range metricDocs {
				known = append(known, k)
			}
			sort.Strings(known)
			return fmt.Errorf("metric %q: not a metric (%s, util.UNIT)", n, strings.Join(known, ", "))
		}
	}
	return nil
}

// metricsOf reads a point's metrics off its report.
func metricsOf(r *chip.Report) map[string]float64 {
	m := map[string]float64{
		"cycles":                          float64(r.Cycles),
		"seconds":                         r.Seconds,
		"instructions":                    float64(r.Instructions),
		"flops":                           float64(r.FLOPs),
		"achieved_flops_per_second":       r.AchievedFLOPsPerSecond,
		"peak_flops_per_second":           r.PeakFLOPsPerSecond,
		"mxu_mac_utilization":             r.MXUMacUtilization,
		"hbm_bytes":                       float64(r.HBM.BytesRead + r.HBM.BytesWritten),
		"hbm_bytes_read":                  float64(r.HBM.BytesRead),
		"hbm_bytes_written":               float64(r.HBM.BytesWritten),
		"hbm_row_hit_rate":                r.HBM.RowHitRate,
		"sram_bank_conflict_stall_cycles": float64(r.SRAMBankConflictStallCycles),
		"acc_bank_conflict_stall_cycles":  float64(r.ACCBankConflictStallCycles),
	}
	if r.HBM.PeakBytesPerSecond > 0 {
		m["hbm_achieved_fraction"] = r.HBM.AchievedBytesPerSecond / r.HBM.PeakBytesPerSecond
	}
	if r.HBM.AttainableBytesPerSecond > 0 {
		m["hbm_attainable_fraction"] = r.HBM.AchievedBytesPerSecond / r.HBM.AttainableBytesPerSecond
	}
	for name, u := range r.Units {
		m["util."+name] = u.Utilization
	}
	if e := r.Energy; e != nil {
		m["energy_joules"], m["static_joules"], m["dynamic_joules"] = e.TotalJoules, e.StaticJoules, e.DynamicJoules
		m["average_watts"], m["pj_per_mac"], m["flops_per_joule"] = e.AverageWatts, e.PJPerMAC, e.FLOPsPerJoule
	}
	if a := r.Area; a != nil {
		m["area_mm2"] = a.TotalMM2
		if a.TotalMM2 > 0 {
			m["flops_per_second_per_mm2"] = r.AchievedFLOPsPerSecond / a.TotalMM2
		}
	}
	return m
}

// Statuses a point can end with.
const (
	StatusOK           = "ok"
	StatusCompileError = "compile_error"
	StatusNeedsInput   = "needs_input"
	StatusCycleLimit   = "cycle_limit"
	StatusDeadlock     = "deadlock"
	StatusFault        = "fault"
	StatusStuck        = "stuck"
	StatusError        = "error"
)

// statusOf classifies a run's error.
func statusOf(err error) string {
	var (
		ni *runtime.NeedsInputError
		mc *core.MaxCyclesError
		dl *ref.Deadlock
		ft *ref.Fault
		st *core.StuckError
		el *core.EndlessLoopError
	)
	switch {
	case errors.As(err, &ni):
		return StatusNeedsInput
	case errors.As(err, &mc):
		return StatusCycleLimit
	case errors.As(err, &dl):
		return StatusDeadlock
	case errors.As(err, &ft):
		return StatusFault
	case errors.As(err, &st), errors.As(err, &el):
		return StatusStuck
	}
	return StatusError
}

// fmtMetric prints a metric for CSV and tables: whole numbers as
// integers, others with Go's shortest exact representation.
func fmtMetric(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
