package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/pulse-sim/pulse/lowering"
	"io"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"time"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/stablehlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/host"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/pulse-sim/pulse/traces"
)

// SchemaVersion is the results file's version: compare refuses others.
const SchemaVersion = 1

// Results is what `pulse bench run` writes.
type Results struct {
	SchemaVersion int        `json:"schema_version"`
	Suite         string     `json:"suite"`
	Sets          []string   `json:"sets,omitempty"` // --set applied to every entry
	Provenance    Provenance `json:"provenance"`
	Entries       []*Result  `json:"entries"`
}

// Provenance says which Pulse, Go and host produced results.
type Provenance struct {
	PulseVersion string    `json:"pulse_version"`
	Revision     string    `json:"revision,omitempty"` // VCS revision from the build info
	RevisionTime time.Time `json:"revision_time,omitzero"`
	Modified     bool      `json:"modified,omitempty"` // built from a modified tree
	GoVersion    string    `json:"go_version"`
	OS           string    `json:"os"`
	Arch         string    `json:"arch"`
	CPU          string    `json:"cpu"`
	GOMAXPROCS   int       `json:"gomaxprocs"`
	Date         time.Time `json:"date"`
}

// Result is one entry's measurements.
type Result struct {
	Name     string   `json:"name"`
	Workload string   `json:"workload"`
	Hash     string   `json:"workload_hash"` // of the workload's text
	Chip     string   `json:"chip"`
	Sets     []string `json:"sets,omitempty"`
	Mode     string   `json:"mode"`
	Status   string   `json:"status"` // ok, failed, skipped
	Error    string   `json:"error,omitempty"`
	// Sim are the simulated metrics (identical on every repetition):
	// cycles, seconds, instructions, flops, mxu_mac_utilization, hbm_bytes,
	// energy_joules, util.UNIT; roof_fraction for an HLO workload (its
	// kernel-roof efficiency: traces.RoofFraction).
	Sim     map[string]float64 `json:"sim,omitempty"`
	Kernels []Kernel           `json:"kernels,omitempty"`
	// NotModelled is the workload's work its cycles leave out (host
	// offload transfers): absent when none.
	NotModelled []lowering.NotModelled `json:"not_modelled,omitempty"`
	Host        Host                   `json:"host"`
	// MeasuredUs is the silicon's time for the workload (the suite
	// entry's measured_us; 0: none), Measured where it comes from, and
	// SiliconError the simulated time's error against it: (sim + host -
	// measured) / measured, HostUs the host overhead the measured time
	// holds (the suite entry's host_us).
	MeasuredUs   float64 `json:"measured_us,omitempty"`
	Measured     string  `json:"measured,omitempty"`
	HostUs       float64 `json:"host_us,omitempty"`
	SiliconError float64 `json:"silicon_error,omitempty"`
}

// Kernel is a row of an entry's per-kernel table.
type Kernel struct {
	Name         string  `json:"name"` // the HLO fusion or op
	Kind         string  `json:"kind"`
	Runs         int64   `json:"runs"`
	Cycles       int64   `json:"cycles"`
	EnergyJoules float64 `json:"energy_joules,omitempty"`
}

// Host are the host metrics, one value per repetition.
type Host struct {
	ParseSeconds   []float64 `json:"parse_seconds"`
	CompileSeconds []float64 `json:"compile_seconds"`
	SimSeconds     []float64 `json:"sim_seconds"`
	WallSeconds    []float64 `json:"wall_seconds"` // parse + compile + simulate
	Allocs         []float64 `json:"allocs"`
	AllocBytes     []float64 `json:"alloc_bytes"`
	// PeakRSSBytes is the process's peak resident set after the entry (a
	// high-water mark: entries run in one process, so it never falls).
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
}

// Options tune a run.
type Options struct {
	Sets     []string // applied to every entry's chip
	Count    int      // repetitions per entry (default 1)
	SimOnly  bool     // one repetition, no host metrics (the CI gate)
	Progress func(done, total int, r *Result)
}

// Run runs a suite.
func Run(s *Suite, opt Options) (*Results, error) {
	entries, err := s.Expand(opt.Sets, opt.Count)
	if err != nil {
		return nil, err
	}
	res := &Results{SchemaVersion: SchemaVersion, Suite: s.Name, Sets: opt.Sets, Provenance: provenance()}
	for i, e := range entries {
		if opt.SimOnly {
			e.Count = 1
		}
		r := runEntry(e)
		if opt.SimOnly {
			r.Host = Host{}
		}
		res.Entries = append(res.Entries, r)
		if opt.Progress != nil {
			opt.Progress(i+1, len(entries), r)
		}
	}
	return res, nil
}

func runEntry(e *Entry) *Result {
	r := &Result{Name: e.Name, Workload: e.Workload, Chip: e.Chip, Sets: e.Sets, Mode: e.Mode, Status: "ok"}
	if e.src == nil {
		r.Status, r.Error = "skipped", "workload not present (optional entry)"
		return r
	}
	h := sha256.Sum256(e.src)
	r.Hash = hex.EncodeToString(h[:8])
	c, err := config.Load(e.Chip, e.Sets)
	if err != nil {
		r.Status, r.Error = "failed", err.Error()
		return r
	}
	for rep := 0; rep < e.Count; rep++ {
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		sim, kernels, nm, t, err := measure(e, c)
		goruntime.ReadMemStats(&after)
		if err != nil {
			r.Status, r.Error = "failed", err.Error()
			return r
		}
		if rep == 0 {
			r.Sim, r.Kernels, r.NotModelled = sim, kernels, nm
		} else if sim["cycles"] != r.Sim["cycles"] {
			r.Status, r.Error = "failed", fmt.Sprintf("repetition %d gave %v cycles, the first %v: the simulation is not deterministic (please report)", rep+1, sim["cycles"], r.Sim["cycles"])
			return r
		}
		r.Host.ParseSeconds = append(r.Host.ParseSeconds, t[0].Seconds())
		r.Host.CompileSeconds = append(r.Host.CompileSeconds, t[1].Seconds())
		r.Host.SimSeconds = append(r.Host.SimSeconds, t[2].Seconds())
		r.Host.WallSeconds = append(r.Host.WallSeconds, (t[0] + t[1] + t[2]).Seconds())
		r.Host.Allocs = append(r.Host.Allocs, float64(after.Mallocs-before.Mallocs))
		r.Host.AllocBytes = append(r.Host.AllocBytes, float64(after.TotalAlloc-before.TotalAlloc))
	}
	r.Host.PeakRSSBytes = host.PeakRSS()
	if e.MeasuredUs > 0 {
		r.MeasuredUs, r.Measured, r.HostUs = e.MeasuredUs, e.Measured, e.HostUs
		r.SiliconError = (r.Sim["seconds"]*1e6 + e.HostUs - e.MeasuredUs) / e.MeasuredUs
	}
	return r
}

// measure parses, compiles and simulates an entry once: its simulated
// metrics, kernels, the work its cycles leave out, and the three phases'
// wall times.
func measure(e *Entry, c *config.Chip) (map[string]float64, []Kernel, []lowering.NotModelled, [3]time.Duration, error) {
	var t [3]time.Duration
	timingOnly := e.Mode != "values"
	if strings.HasSuffix(e.file, ".s") || strings.HasSuffix(e.file, ".pulse") {
		t0 := time.Now()
		prog, err := pulse.ParseProgram(e.file, e.src)
		t[0] = time.Since(t0)
		if err != nil {
			return nil, nil, nil, t, err
		}
		k := traces.NewKernels(traces.ProgramSource(prog, e.file))
		t0 = time.Now()
		m, err := chip.Simulate(c, prog, nil, chip.Options{TimingOnly: timingOnly, Observers: []core.Observer{k}})
		t[2] = time.Since(t0)
		if err != nil {
			return nil, nil, nil, t, err
		}
		return simMetrics(chip.NewReport(e.file, m, timingOnly)), kernelsOf(k.Stats()), nil, t, nil
	}
	t0 := time.Now()
	mod, err := stablehlo.ParseFile(e.file, e.src)
	if err == nil {
		err = verify.Verify(e.file, mod)
	}
	t[0] = time.Since(t0)
	if err != nil {
		return nil, nil, nil, t, err
	}
	client := &runtime.Client{Chip: c} // no executable cache: compile time is measured
	t0 = time.Now()
	x, err := client.Compile(e.file, mod)
	t[1] = time.Since(t0)
	if err != nil {
		return nil, nil, nil, t, err
	}
	var args []*eval.Value
	if !timingOnly || e.RandomInputs {
		if args, err = eval.RandomArgsWithin(mod, 1, 1<<30); err != nil {
			return nil, nil, nil, t, err
		}
	}
	t0 = time.Now()
	res, err := client.Execute(x, args, runtime.ExecOptions{TimingOnly: timingOnly})
	t[2] = time.Since(t0)
	if err != nil {
		return nil, nil, nil, t, err
	}
	m := simMetrics(res.Report)
	m["roof_fraction"] = traces.RoofFraction(res.Kernels, res.Report.Cycles)
	return m, kernelsOf(res.Kernels), res.NotModelled, t, nil
}

func simMetrics(r *chip.Report) map[string]float64 {
	m := map[string]float64{
		"cycles": float64(r.Cycles), "seconds": r.Seconds, "instructions": float64(r.Instructions), "flops": float64(r.FLOPs),
		"mxu_mac_utilization": r.MXUMacUtilization, "hbm_bytes": float64(r.HBM.BytesRead + r.HBM.BytesWritten),
	}
	if r.Energy != nil {
		m["energy_joules"] = r.Energy.TotalJoules
	}
	for name, u := range r.Units {
		m["util."+name] = u.Utilization
	}
	return m
}

func kernelsOf(ks []traces.KernelStats) []Kernel {
	var out []Kernel
	for _, k := range ks {
		out = append(out, Kernel{Name: k.Name, Kind: k.Kind, Runs: k.Runs, Cycles: k.Cycles, EnergyJoules: k.EnergyJoules})
	}
	return out
}

// Version is the Pulse version results record (set by the command).
var Version = "devel"

func provenance() Provenance {
	p := Provenance{PulseVersion: Version, GoVersion: goruntime.Version(), OS: goruntime.GOOS, Arch: goruntime.GOARCH,
		CPU: cpuModel(), GOMAXPROCS: goruntime.GOMAXPROCS(0), Date: time.Now().UTC().Truncate(time.Second)}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				p.Revision = s.Value
			case "vcs.time":
				p.RevisionTime, _ = time.Parse(time.RFC3339, s.Value)
			case "vcs.modified":
				p.Modified = s.Value == "true"
			}
		}
	}
	return p
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return goruntime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return goruntime.GOARCH
}

// Encode writes results as indented JSON.
func (r *Results) Encode(w io.Writer) error {
	b, _ := json.MarshalIndent(r, "", "  ")
	_, err := w.Write(append(b, '\n'))
	return err
}

// ReadResults reads a results file, refusing other schema versions.
func ReadResults(path string) (*Results, error) {
	b, err := inputs.ReadFile(path, inputs.Sources)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a bench results file: %v", path, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: results schema version %d; this Pulse reads version %d (rerun the suite)", path, r.SchemaVersion, SchemaVersion)
	}
	if r.Suite == "" {
		return nil, fmt.Errorf("%s: not a bench results file (no suite)", path)
	}
	return &r, nil
}
