package scalesim

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The report files, byte for byte as SCALE-Sim v3 writes them
// (scalesim/simulator.py generate_reports): a header, then per layer its
// id and the figures as Python's str() prints them, each followed by ", "
// and the line by ",".
const (
	computeHeader   = "LayerID, Total Cycles (incl. prefetch), Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n"
	bandwidthHeader = "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, Avg FILTER DRAM BW, Avg OFMAP DRAM BW,\n"
	detailHeader    = "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, SRAM Filter Start Cycle, SRAM Filter Stop Cycle, SRAM Filter Reads, SRAM OFMAP Start Cycle, SRAM OFMAP Stop Cycle, SRAM OFMAP Writes, DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM IFMAP Reads, DRAM Filter Start Cycle, DRAM Filter Stop Cycle, DRAM Filter Reads, DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n"
)

// ReportFiles are the names of the reports, in the order written.
var ReportFiles = []string{"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"}

// Reports renders the three reports of a run.
func Reports(results []*Result) map[string]string {
	var comp, bw, det strings.Builder
	comp.WriteString(computeHeader)
	bw.WriteString(bandwidthHeader)
	det.WriteString(detailHeader)
	for i, r := range results {
		line := func(b *strings.Builder, items ...string) {
			b.WriteString(strconv.Itoa(i) + ", " + strings.Join(items, ", ") + ",\n")
		}
		// USER mode: what depends on the bandwidth is left out.
		user := func(s string) string {
			if r.User {
				return ""
			}
			return s
		}
		line(&comp, user(pyInt(r.TotalInclPrefetch)), pyInt(r.TotalCycles), user(pyInt(r.StallCycles)),
			pyFloat(r.OverallUtil), pyFloat(r.MappingEff), pyFloat(r.ComputeUtil))
		dramBW := func(op int) string {
			if op != opOfmap && !r.DRAMReads || r.User {
				return ""
			}
			return pyFloat(pyDivF(float64(r.DRAMAccesses[op]), float64(r.DRAMStop[op]-r.DRAMStart[op]+1)))
		}
		line(&bw, pyFloat(pyDiv(r.SRAMAccesses[opIfmap], r.TotalCycles)), pyFloat(pyDiv(r.SRAMAccesses[opFilter], r.TotalCycles)),
			pyFloat(pyDiv(r.SRAMAccesses[opOfmap], r.TotalCycles)), dramBW(opIfmap), dramBW(opFilter), dramBW(opOfmap))
		var items []string
		for op := opIfmap; op <= opOfmap; op++ {
			items = append(items, pyFloat(float64(r.SRAMStart[op])), user(pyFloat(float64(r.SRAMStop[op]))), pyInt(r.SRAMAccesses[op]))
		}
		for op := opIfmap; op <= opOfmap; op++ {
			stop, n := pyFloat(float64(r.DRAMStop[op])), pyInt(r.DRAMAccesses[op])
			if op != opOfmap && !r.DRAMReads {
				stop, n = "", ""
			}
			items = append(items, user(pyFloat(float64(r.DRAMStart[op]))), user(stop), user(n))
		}
		line(&det, items...)
	}
	return map[string]string{ReportFiles[0]: comp.String(), ReportFiles[1]: bw.String(), ReportFiles[2]: det.String()}
}

// WriteReports writes the reports into dir (which must exist), each
// through a temporary file renamed into place.
func WriteReports(dir string, results []*Result) error {
	reps := Reports(results)
	for _, name := range ReportFiles {
		path := filepath.Join(dir, name)
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(reps[name]), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	return nil
}

func pyInt(x int64) string { return strconv.FormatInt(x, 10) }

func pyDivF(a, b float64) float64 { return a / b }

// pyFloat prints x as Python's str(float) does: the shortest digits that
// read back as x, with ".0" on whole numbers and an exponent (e+XX, e-XX)
// below 1e-4 and from 1e16 on.
func pyFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	if a := math.Abs(x); a != 0 && (a < 1e-4 || a >= 1e16) {
		s := strconv.FormatFloat(x, 'e', -1, 64) // 1.5e-05
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		digits := strings.TrimLeft(exp[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return fmt.Sprintf("%se%c%s", mant, sign, digits)
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
