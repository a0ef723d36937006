package cli

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/traces"
	"github.com/spf13/pflag"
)

// observeFlags are the outputs run and simulate share for seeing where the
// cycles went: a Perfetto timeline, a pprof profile, a roofline chart and
// the per-kernel rows as CSV.
type observeFlags struct {
	trace     string
	window    string
	maxEvents int
	pprof     string
	roofline  string
	csv       string
	explain   bool

	start, end int64
	explainer  *traces.Explain
	timeline   *traces.Timeline
	profile    *traces.Profile
}

func (f *observeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.trace, "trace", "", "write a Perfetto timeline (Chrome Trace Event JSON) to this file")
	fs.StringVar(&f.window, "trace-window", "", "record only cycles START:END in the timeline (either may be left out)")
	fs.IntVar(&f.maxEvents, "trace-max-events", traces.DefaultMaxEvents, "stop recording the timeline after this many events")
	fs.StringVar(&f.pprof, "pprof", "", "write a pprof cycle profile (busy and stall cycles per instruction) to this file")
	fs.StringVar(&f.roofline, "roofline", "", "draw the roofline chart of the run's kernels to this file (.svg or .png)")
	fs.StringVar(&f.csv, "csv", "", "write the per-kernel table as CSV to this file")
	fs.BoolVar(&f.explain, "explain", false, "print where the time went: prologue, steady state and tail, the bottleneck unit and its stalls, the attainable roof")
}

// validate checks the flags before anything runs.
func (f *observeFlags) validate() error {
	if f.window != "" {
		if f.trace == "" {
			return usagef("--trace-window needs --trace")
		}
		a, b, ok := strings.Cut(f.window, ":")
		if !ok {
			return usagef("--trace-window %s: want START:END in cycles", f.window)
		}
		var err error
		if a != "" {
			if f.start, err = strconv.ParseInt(a, 10, 64); err != nil || f.start < 0 {
				return usagef("--trace-window %s: START must be a cycle number", f.window)
			}
		}
		if b != "" {
			if f.end, err = strconv.ParseInt(b, 10, 64); err != nil || f.end <= f.start {
				return usagef("--trace-window %s: END must be a cycle number after START", f.window)
			}
		}
	}
	if f.maxEvents <= 0 {
		return usagef("--trace-max-events must be positive")
	}
	// A file that cannot be written fails now, not after a long run.
	for _, p := range []struct{ flag, path string }{{"--trace", f.trace}, {"--pprof", f.pprof}, {"--roofline", f.roofline}, {"--csv", f.csv}} {
		if err := checkOutputFile(p.flag, p.path); err != nil {
			return err
		}
	}
	if f.roofline != "" {
		if err := traces.CheckChartPath(f.roofline); err != nil {
			return usagef("--roofline %v", err)
		}
	}
	return nil
}

// observers makes the recorders the flags ask for, on src.
func (f *observeFlags) observers(src *traces.Source) []core.Observer {
	var obs []core.Observer
	if f.trace != "" {
		f.timeline = traces.NewTimeline(src, traces.TimelineOptions{Start: f.start, End: f.end, MaxEvents: f.maxEvents})
		obs = append(obs, f.timeline)
	}
	if f.pprof != "" {
		f.profile = traces.NewProfile(src)
		obs = append(obs, f.profile)
	}
	if f.explain {
		f.explainer = traces.NewExplain()
		obs = append(obs, f.explainer)
	}
	return obs
}

// write writes every requested output of the finished run; notes (a
// truncated trace) go to stderr.
func (f *observeFlags) write(stderr io.Writer, r *chip.Report, kernels []traces.KernelStats) error {
	if f.timeline != nil {
		if err := writeFile(f.trace, f.timeline.WriteJSON); err != nil {
			return err
		}
		if ok, note := f.timeline.Truncated(); ok {
			fmt.Fprintf(stderr, "note: %s\n", note)
		}
	}
	if f.profile != nil {
		if err := writeFile(f.pprof, func(w io.Writer) error { return f.profile.Write(w, r) }); err != nil {
			return err
		}
	}
	if f.csv != "" {
		if err := writeFile(f.csv, func(w io.Writer) error { return writeKernelCSV(w, kernels) }); err != nil {
			return err
		}
	}
	if f.roofline != "" {
		rl := &traces.Roofline{Title: fmt.Sprintf("%s on %s", filepath.Base(r.Program), r.Chip), PeakFLOPs: r.PeakFLOPsPerSecond, PeakBytes: r.HBM.PeakBytesPerSecond,
			AttainableBytes: r.HBM.AttainableBytesPerSecond}
		for _, k := range kernels {
			rl.Points = append(rl.Points, traces.RooflinePoint{Label: k.Name, FLOPs: k.FLOPs, Bytes: k.Bytes, Seconds: float64(k.Cycles) / (r.ClockMHz * 1e6)})
		}
		if err := rl.Save(f.roofline); err != nil {
			return err
		}
	}
	return nil
}

// writeExplain prints the --explain summary after the report.
func (f *observeFlags) writeExplain(w io.Writer, r *chip.Report) error {
	if f.explainer == nil {
		return nil
	}
	fmt.Fprintln(w)
	return f.explainer.Write(w, r)
}

// failed is the run's error, after writing the timeline of the run up to
// the failure (a deadlock or the --max-cycles limit is when it helps most).
func (f *observeFlags) failed(stderr io.Writer, runErr error) error {
	if f.timeline == nil || !f.timeline.Attached() {
		return runErr
	}
	if err := writeFile(f.trace, f.timeline.WriteJSON); err != nil {
		fmt.Fprintf(stderr, "note: the trace could not be written: %v\n", err)
		return runErr
	}
	fmt.Fprintf(stderr, "note: %s holds the timeline up to the failure\n", f.trace)
	return runErr
}

// writeFile writes path with fn; if the file cannot be written, the output
// goes to a temporary file the error names.
func writeFile(path string, fn func(io.Writer) error) error {
	return writeOutputWith("output", path, fn)
}

// writeKernelCSV writes the per-kernel rows with the JSON report's keys as
// the header.
func writeKernelCSV(w io.Writer, ks []traces.KernelStats) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "kind", "runs", "cycles", "flops", "bytes", "vmem_bytes", "intensity", "bound", "achieved", "energy_joules", "source"})
	for _, k := range ks {
		cw.Write([]string{k.Name, k.Kind, fmt.Sprint(k.Runs), fmt.Sprint(k.Cycles), fmt.Sprint(k.FLOPs), fmt.Sprint(k.Bytes), fmt.Sprint(k.VMEMBytes),
			strconv.FormatFloat(k.Intensity, 'g', 6, 64), k.Bound, strconv.FormatFloat(k.Achieved, 'f', 4, 64), strconv.FormatFloat(k.EnergyJoules, 'g', 6, 64), k.Source})
	}
	cw.Flush()
	return cw.Error()
}
