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

// benchName is "Benchmark" + the workload in CamelCase + /chip=... keys.
func benchName(e *Result) string {
	parts := strings.Split(strings.Split(e.Name, "/")[0], ".")
	var b strings.Builder
	b.WriteString("Benchmark")
	up := true
	for _, r := range strings.Join(parts, "_") {
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
	for _, s := range e.Sets {
		b.WriteString("/" + strings.ReplaceAll(s, " ", ""))
	}
	if e.Mode != "timing-only" {
		b.WriteString("/mode=" + e.Mode)
	}
	return b.String()
}
