// Package runtime runs HLO modules on simulated chips, with the contract of
// PJRT (XLA's device runtime): a Client for a chip, Compile from HLO to a
// loaded Executable (cached on disk), and Execute on argument buffers,
// returning result buffers — plus what only a simulator can give: the cycle
// count and where the time went.
//
// The pulse command line uses this package and nothing private.
package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/ref"
	"github.com/pulse-sim/pulse/traces"
)

// Client is one simulated device: a chip configuration.
type Client struct {
	Chip *config.Chip
	// CacheDir holds compiled executables ("" disables the cache).
	CacheDir string
	// CacheBytes bounds the cache: beyond it the least recently used
	// executables are removed (0: DefaultCacheBytes).
	CacheBytes int64
	// Options are the compiler's: verification after every pass, dumps.
	Options lowering.Options
}

// NewClient makes a client for chip, caching under the user cache
// directory (pulse/executables) when it can be found.
func NewClient(c *config.Chip) *Client {
	cl := &Client{Chip: c}
	if d, err := os.UserCacheDir(); err == nil {
		cl.CacheDir = filepath.Join(d, "pulse", "executables")
	}
	return cl
}

// Executable is a compiled module, ready to run.
type Executable struct {
	*lowering.Compiled
	Key         string        // cache key: module text + chip config + compiler version
	CacheHit    bool          // the program came from the cache
	CompileTime time.Duration // lowering and assembly (or the cache lookup)
}

// Compile lowers module m (parsed from file and verified) for the client's
// chip, on the devices its header declares (CompileDevices for others;
// ExecuteDevices runs a program of several). The lowering always runs (it is what maps results to tensors); the
// assembled program is taken from the cache when the same module was
// compiled for the same chip by the same compiler version.
func (c *Client) Compile(file string, m *hlo.Module) (*Executable, error) {
	d, err := hlo.ModuleDevices(m)
	if err != nil {
		return nil, fmt.Errorf("%s:1:1: %v", file, err)
	}
	return c.CompileDevices(file, m, d)
}

// CompileDevices is Compile for the devices d (lowering.CompileDevices):
// the program every device runs, for ExecuteDevices.
func (c *Client) CompileDevices(file string, m *hlo.Module, d hlo.Devices) (*Executable, error) {
	start := time.Now()
	key := cacheKey(m, c.Chip, d)
	comp, err := lowering.CompileWith(file, m, c.Chip, d, c.Options)
	if err != nil {
		return nil, err
	}
	x := &Executable{Compiled: comp, Key: key}
	if c.CacheDir != "" {
		if p := c.cacheGet(key); p != nil {
			x.Program, x.CacheHit = p, true
		} else {
			c.cachePut(key, x.Program)
		}
	}
	x.CompileTime = time.Since(start)
	return x, nil
}

func cacheKey(m *hlo.Module, c *config.Chip, d hlo.Devices) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n", lowering.Version, buildID(), d, m.String())
	h.Write(lowering.Target(c).YAML()) // timing knobs do not change the program
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// MachineValues carries HLO values as values of machine dtype d: the
// same float64s, 64-bit integers included, which both carry as their
// bits (hlo.IsWide, isa.DType.IsWide).
func MachineValues(d isa.DType, data []float64) []float64 { return data }

// ExecOptions tune a run.
type ExecOptions struct {
	// TimingOnly computes only the values that steer control flow: the
	// same cycles and report as a value run, no outputs. An argument may
	// be nil (or have no Data) when control flow does not depend on it;
	// when it does, Execute returns a *NeedsInputError.
	TimingOnly bool
	MaxCycles  int64 // stop after this many cycles (0: core.DefaultMaxCycles; negative: no limit)
	// Observers watch the run: traces.Timeline, traces.Profile (built on
	// x.Source). Runs without them pay nothing for observation.
	Observers []core.Observer
	// Infeed is the host's infeed queue: the records the program's
	// infeeds read, in order (feed.go).
	Infeed []*eval.Value
	// Representative (ExecuteDevices, timing-only) simulates device 0
	// alone for all of an SPMD program's devices: they run one program,
	// and on symmetric shards the same timeline, so each of device 0's
	// collectives starts when it arrives (every member arriving with it)
	// and lasts the interconnect model's time for its group. Exact when
	// the devices' timelines are symmetric; a run whose control flow
	// reads a collective's results is refused.
	Representative bool
}

// KernelStats is a row of the per-kernel table (traces.KernelStats).
type KernelStats = traces.KernelStats

// Source describes x's program for the recorders of traces/: its kernels,
// and its assembly, which is (or will be) written to asmFile.
func (x *Executable) Source(hloFile, asmFile string) *traces.Source {
	c := x.Compiled
	kernels := make([]traces.Kernel, 0, len(c.Kernels))
	for i, k := range c.Kernels {
		kernels = append(kernels, traces.Kernel{Name: k.Name, Label: fmt.Sprintf("k%d", i+1), Kind: k.Kind, File: hloFile, Line: k.Pos.Line,
			FLOPs: k.FLOPs, Bytes: k.Bytes, VMEMBytes: k.VMEMBytes, FirstPC: k.FirstPC, EndPC: k.EndPC, Origin: origin(k.Source)})
	}
	src := traces.NewSource(c.Program, asmFile, c.AsmLines, kernels, true)
	if len(c.Sources) > 0 {
		src.Origins = make(map[[2]int32]traces.Origin, len(c.Sources))
		for p, s := range c.Sources {
			src.Origins[[2]int32{int32(p.Line), int32(p.Col)}] = origin(s)
		}
	}
	return src
}

func origin(s hlo.Source) traces.Origin {
	return traces.Origin{File: s.File, Line: s.Line, Op: s.OpName}
}

// NeedsInputError stops a timing-only run whose control flow depends on
// the values of a parameter that was not given: its cycle count would be a
// guess, so there is none.
type NeedsInputError struct {
	Param string // "parameter N (name)"
	Pos   string // the instruction that reads it on the way to a branch
}

func (e *NeedsInputError) Error() string {
	return fmt.Sprintf("--timing-only: the program's control flow depends on the values of %s (read at %s): give them (--in or --random-inputs) for an exact cycle count", e.Param, e.Pos)
}

// Result is what Execute returns.
type Result struct {
	Outputs  []*eval.Value // one per result tuple element (nil values in timing-only runs)
	Outfeed  []*eval.Value // what the program's outfeeds sent, in order
	Model    *core.Model
	Report   *chip.Report
	Kernels  []KernelStats
	ExecTime time.Duration // host time of the simulation
	// NotModelled is the module's work the cycles leave out (the
	// program's lowering.Compiled.NotModelled).
	NotModelled []lowering.NotModelled
	// Approximated is the module's work whose cycles are an upper bound
	// (lowering.Compiled.Approximated).
	Approximated []lowering.NotModelled
	// HBM is the program's HBM at its peak, its largest arrays listed
	// (lowering.Compiled.HBM, cut to ReportArrays).
	HBM lowering.HBMPeak
}

// ReportArrays is how many of the arrays live at the HBM peak a run's
// report lists (pulse compile --memory lists them all).
const ReportArrays = 10

// Execute runs x on args (one per entry parameter, in parameter order).
func (c *Client) Execute(x *Executable, args []*eval.Value, opt ExecOptions) (*Result, error) {
	if opt.TimingOnly && args == nil {
		args = make([]*eval.Value, len(x.Inputs)) // no values: none are read
	}
	if x.Devices.N() > 1 {
		return nil, fmt.Errorf("the program runs on %d devices (%s) and this run is one chip's (runtime.ExecuteDevices and pulse simulate run several; pulse sweep and pulse bench do not yet)", x.Devices.N(), x.Devices)
	}
	if err := checkHostMemory(x, 1, opt.TimingOnly, availableMemory()); err != nil {
		return nil, err
	}
	inputs, unknown, param, err := x.bindInputs(args, opt.TimingOnly)
	if err != nil {
		return nil, err
	}
	if err := checkInfeed(x.Feeds, opt.Infeed); err != nil {
		return nil, err
	}
	start := time.Now()
	kernels := traces.NewKernels(x.Source("", ""))
	model, err := core.Simulate(c.Chip, x.Program, core.Options{TimingOnly: opt.TimingOnly, Seed: x.Steering, MaxCycles: opt.MaxCycles,
		Observers: append([]core.Observer{kernels}, opt.Observers...)}, func(a *ref.Machine) error {
		for _, in := range inputs {
			if err := a.WriteTensor(in.Name, in.Values); err != nil {
				return err
			}
		}
		for _, t := range unknown {
			if err := a.MarkUnknown(t); err != nil {
				return err
			}
		}
		return writeInfeed(a, x.Feeds, opt.Infeed)
	})
	if u, ok := err.(*ref.UnknownInput); ok {
		p := param[u.Tensor]
		if p == "" {
			p = "tensor " + u.Tensor
		}
		return nil, &NeedsInputError{Param: p, Pos: u.Pos}
	}
	if err != nil {
		return nil, feedFault(err, x.Feeds, len(opt.Infeed))
	}
	r := &Result{Model: model, ExecTime: time.Since(start), NotModelled: x.NotModelled, Approximated: x.Approximated, HBM: x.HBM.Top(ReportArrays)}
	r.Report = chip.NewReport(x.Fused.Name, model, opt.TimingOnly)
	r.Kernels = kernels.Stats()
	if opt.TimingOnly {
		return r, nil
	}
	if r.Outputs, err = x.readOutputs(model); err != nil {
		return nil, err
	}
	if r.Outfeed, err = readOutfeed(model.Arch, x.Feeds); err != nil {
		return nil, err
	}
	return r, nil
}

// JSON is the run's report as `pulse simulate --json` writes it: the chip
// report's keys (docs/report-schema.md) plus "kernels", the per-kernel
// rows, "not_modelled", the work its cycles leave out (absent when
// none), and "hbm_peak", the program's HBM at its peak. Only simulated figures: two runs write identical bytes.
func (r *Result) JSON() []byte {
	b, _ := json.MarshalIndent(struct {
		*chip.Report
		Kernels      []KernelStats          `json:"kernels"`
		NotModelled  []lowering.NotModelled `json:"not_modelled,omitempty"`
		Approximated []lowering.NotModelled `json:"approximated,omitempty"`
		HBM          lowering.HBMPeak       `json:"hbm_peak"`
	}{r.Report, r.Kernels, r.NotModelled, r.Approximated, r.HBM}, "", "  ")
	return append(b, '\n')
}

// buildID fingerprints the running binary, so that a rebuilt compiler never
// reads programs an older build cached under the same Version (a
// development build changes code without changing Version).
var buildID = sync.OnceValue(func() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
})

// bindInputs turns the arguments into the tensors' values; in a
// timing-only run, the tensors of arguments given no values are listed in
// unknown, with the parameter each belongs to in param.
func (x *Executable) bindInputs(args []*eval.Value, timingOnly bool) (inputs []chip.Input, unknown []string, param map[string]string, err error) {
	param = map[string]string{}
	if len(args) != len(x.Inputs) {
		return nil, nil, nil, fmt.Errorf("%d arguments for %d parameters", len(args), len(x.Inputs))
	}
	for i, b := range x.Inputs {
		a := args[i]
		if len(b.Leaves) > 0 { // a tuple parameter: its arrays, depth first
			var vals []*eval.Value
			if a != nil {
				vals = eval.Leaves(a)
			}
			if timingOnly && len(vals) != len(b.Leaves) {
				for _, l := range b.Leaves {
					if l.Tensor != "" {
						unknown = append(unknown, l.Tensor)
						param[l.Tensor] = fmt.Sprintf("parameter %d (%s)", i, b.HLOName)
					}
				}
				continue
			}
			if len(vals) != len(b.Leaves) {
				return nil, nil, nil, fmt.Errorf("argument %d (%s) does not have the parameter's shape %s", i, b.HLOName, b.Shape)
			}
			for j, l := range b.Leaves {
				v := vals[j]
				if timingOnly && len(v.Data) == 0 && l.Shape.Elems() > 0 {
					if l.Tensor != "" {
						unknown = append(unknown, l.Tensor)
						param[l.Tensor] = fmt.Sprintf("parameter %d (%s)", i, b.HLOName)
					}
					continue
				}
				if v.Shape == nil || v.Shape.Elems() != l.Shape.Elems() {
					return nil, nil, nil, fmt.Errorf("argument %d (%s), element %d, does not have the shape %s", i, b.HLOName, j, l.Shape)
				}
				if l.Tensor != "" {
					inputs = append(inputs, chip.Input{Name: l.Tensor, Values: MachineValues(l.DType, v.Data)})
				}
			}
			continue
		}
		if timingOnly && (a == nil || len(a.Data) == 0 && b.Shape.Elems() > 0) {
			if b.Tensor != "" {
				unknown = append(unknown, b.Tensor)
				param[b.Tensor] = fmt.Sprintf("parameter %d (%s)", i, b.HLOName)
			}
			continue
		}
		if a == nil || a.Shape == nil || a.Shape.Elems() != b.Shape.Elems() {
			return nil, nil, nil, fmt.Errorf("argument %d (%s) does not have the parameter's shape %s", i, b.HLOName, b.Shape)
		}
		if b.Tensor != "" {
			inputs = append(inputs, chip.Input{Name: b.Tensor, Values: MachineValues(b.DType, a.Data)})
		}
	}
	return inputs, unknown, param, nil
}

// readOutputs reads the results from a finished run's memory.
func (x *Executable) readOutputs(model *core.Model) ([]*eval.Value, error) {
	var outs []*eval.Value
	for _, b := range x.Outputs {
		if b.Tensor == "" { // an empty array
			outs = append(outs, &eval.Value{Shape: b.Shape, Data: []float64{}})
			continue
		}
		// The result may be a bitcast view: read it as its own dtype.
		vals, _, err := model.Arch.ReadTensorAs(b.Tensor, b.DType)
		if err != nil {
			return nil, err
		}
		outs = append(outs, &eval.Value{Shape: b.Shape, Data: vals})
	}
	return outs, nil
}
