package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// WriteBenchstat writes results in Go's benchmark format, one line per
// repetition, which benchstat (golang.org/x/perf/cmd/benchstat) reads
// unchanged: the simulated metrics (identical on every line: benchstat
// shows them with no variation) and the host time as sec/op, allocations
// as B/op and allocs/op. Entry names become benchmark names with the chip,
// overrides and mode as keys (BenchmarkGemm/chip=tpuv4core).
func (r *Results) WriteBenchstat(w io.Writer) error {
	p := r.Provenance
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/pulse-sim/pulse/bench/%s\ncpu: %s\n", p.OS, p.Arch, r.Suite, p.CPU)
	if p.Revision != "" {
		fmt.Fprintf(w, "pulse-revision: %s\n", p.Revision)
	}
	for _, e := range r.Entries {
		if e.Status != "ok" {
			continue
		}
		name := benchName(e)
		sim := fmt.Sprintf("%s cycles %s sim-sec %s mxu-util %s hbm-B", num(e.Sim["cycles"]), strconv.FormatFloat(e.Sim["seconds"], 'g', 6, 64),
			strconv.FormatFloat(e.Sim["mxu_mac_utilization"], 'g', 6, 64), num(e.Sim["hbm_bytes"]))
		if j, ok := e.Sim["energy_joules"]; ok {
			sim += fmt.Sprintf(" %s sim-J", strconv.FormatFloat(j, 'g', 6, 64))
		}
		reps := len(e.Host.WallSeconds)
		if reps == 0 {
			fmt.Fprintf(w, "%s 1 %s\n", name, sim)
			continue
		}
		for i := 0; i < reps; i++ {
			fmt.Fprintf(w, "%s 1 %s %s sec/op %s B/op %s allocs/op\n", name, sim, strconv.FormatFloat(e.Host.WallSeconds[i], 'g', 6, 64),
				num(e.Host.AllocBytes[i]), num(e.Host.Allocs[i]))
		}
	}
	return nil
}

// benchName is "Benchmark" + the workload in CamelCase + /chip=... and
// the entry's own overrides and mode (not the run's --set: two runs that
// differ only in those compare row by row, as benchstat's A/B tables do).
func benchName(e *Result) string {
	parts := strings.Split(e.Name, "/") // file / chip [/ sets] [/ mode]
	var b strings.Builder
	b.WriteString("Benchmark")
	up := true
	for _, r := range parts[0] {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if up {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			up = false
		default:
			up = true
		}
	}
	fmt.Fprintf(&b, "/chip=%s", e.Chip)
	for _, p := range parts[min(2, len(parts)):] {
		if p == e.Mode {
			p = "mode=" + p
		}
		b.WriteString("/" + strings.ReplaceAll(p, " ", ""))
	}
	return b.String()
}
