package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/ici"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/ref"
	"github.com/pulse-sim/pulse/sim"
	"github.com/pulse-sim/pulse/traces"
)

// DevicesResult is what ExecuteDevices returns.
type DevicesResult struct {
	// Devices holds each device's result, by global id (replica *
	// partitions + partition).
	Devices []*Result
	// Cycles is the run's length: when the last device finished.
	Cycles   int64
	ExecTime time.Duration
	// Representative: only device 0 was simulated, standing for every
	// device (ExecOptions.Representative); Devices holds its result alone.
	Representative bool
}

// ExecuteDevices runs x, compiled for several devices, on one chip per
// device, all on one event engine and joined by the chip's interconnect
// (package ici); args[i] is device i's arguments. Observers watch device
// 0. Infeed records are refused. A timing-only run computes on each device
// only what steers its control flow (found by running again, as one
// device's run does), and its collectives move no values: control flow
// that depends on a collective's results stops it with an error that says
// so.
func (c *Client) ExecuteDevices(x *Executable, args [][]*eval.Value, opt ExecOptions) (*DevicesResult, error) {
	n := x.Devices.N()
	if opt.TimingOnly && args == nil {
		args = make([][]*eval.Value, n)
	}
	if len(opt.Infeed) > 0 || x.Feeds != nil {
		return nil, fmt.Errorf("infeed and outfeed on %d devices are not simulated (each device would need its own host queues)", n)
	}
	if len(args) != n {
		return nil, fmt.Errorf("%d argument lists for %d devices", len(args), n)
	}
	if err := checkHostMemory(x, n, opt.TimingOnly, availableMemory()); err != nil {
		return nil, err
	}
	if n > 1 && c.Chip.ICI.Links <= 0 {
		return nil, fmt.Errorf("chip %s has no interconnect (ici.links 0): it runs one device", c.Chip.Name)
	}
	if opt.Representative && !opt.TimingOnly {
		return nil, fmt.Errorf("a representative run (device 0 standing for all %d) is timing-only: the other devices' values are not computed", n)
	}
	start := time.Now()
	for i := range args {
		if opt.TimingOnly && args[i] == nil {
			args[i] = make([]*eval.Value, len(x.Inputs)) // no values: none are read
		}
	}
	// A timing-only run computes the instructions that steer control flow
	// (their results reach scalar memory) and, found by running again as
	// one device's run does (core.Simulate), the skipped ones they read.
	var compute []bool
	steers := false
	if opt.TimingOnly {
		compute = make([]bool, len(x.Program.Code))
		for pc := range x.Program.Code {
			in := &x.Program.Code[pc]
			if in.Op.Info().Unit != isa.UnitScalar && ref.TouchesSMEM(x.Program, in) {
				compute[pc], steers = true, true
			}
		}
	}
	unseeded, seeded := compute, false
	if s := core.Seed(compute, x.Steering, x.Program); steers && s != nil {
		compute, seeded = s, true
	}
	var (
		models  []*core.Model
		kernels []*traces.Kernels
		fab     *ici.Fabric
		params  []map[string]string
		err     error
	)
	// Observers that may see a run begun again (a progress report) watch
	// the search's runs, so that its first run, when it needs no more
	// values, is the final one.
	restartable := core.Restartable(opt.Observers)
	// As for one device (core.Simulate), dependences are kept only once a
	// run has stopped.
	track, depsFor := ref.TrackStale, int64(0)
	for {
		final := !steers || restartable // the search runs without observers, the last run with them
		models, kernels, fab, params, err = c.buildDevices(x, args, opt, compute, track, depsFor, final)
		if err != nil {
			return nil, err
		}
		err = coreError(core.RunDevices(allCores(models)), models)
		var (
			nv *ref.NeedValues
			ui *ref.UnknownInput
		)
		if seeded && errors.As(err, &ui) {
			compute, seeded = unseeded, false // as core.Simulate
			continue
		}
		if steers && errors.As(err, &nv) {
			track, depsFor = ref.TrackDeps, max(depsFor, core.UnitExecs(models...))
			for _, pc := range nv.PCs {
				if compute[pc] {
					return nil, fmt.Errorf("internal error: the timing-only search asked again for pc %d", pc)
				}
				compute[pc] = true
			}
			continue
		}
		if err == nil && !final {
			steers, track = false, ref.TrackStale // found: run once more, observed
			continue
		}
		break
	}
	if err != nil {
		if opt.TimingOnly {
			err = timingOnlyDevicesError(err, x, params)
		}
		if opt.Representative {
			err = fmt.Errorf("%w (a representative run times device 0 alone and moves no values: run every device)", err)
		}
		return nil, devicesError(err, fab)
	}
	fab.Finish(models[0].Clock)
	res := &DevicesResult{ExecTime: time.Since(start), Representative: opt.Representative}
	for i, m := range models {
		r := &Result{Model: m, NotModelled: x.NotModelled, Approximated: x.Approximated, HBM: x.HBM.Top(ReportArrays)}
		r.Report = chip.NewReport(x.Fused.Name, m, opt.TimingOnly)
		r.Report.Interconnect = &fab.Stats[i]
		r.Kernels = kernels[i].Stats()
		r.ExecTime = res.ExecTime
		res.Cycles = max(res.Cycles, m.Cycles())
		if opt.TimingOnly {
			res.Devices = append(res.Devices, r)
			continue
		}
		outs, err := x.readOutputs(m)
		if err != nil {
			return nil, fmt.Errorf("device %d: %w", i, err)
		}
		r.Outputs = outs
		res.Devices = append(res.Devices, r)
	}
	return res, nil
}

// buildDevices makes the devices' models on one engine, joined by a
// fabric, their inputs and device ids written; a timing-only run computes
// the instructions compute marks. Observers watch device 0 when observe.
func (c *Client) buildDevices(x *Executable, args [][]*eval.Value, opt ExecOptions, compute []bool, track ref.Tracking, depsFor int64, observe bool) ([]*core.Model, []*traces.Kernels, *ici.Fabric, []map[string]string, error) {
	n := x.Devices.N()
	if dims, err := config.ParseTopology(c.Chip.ICI.Topology); err == nil && len(dims) > 0 {
		if p := config.TopologySize(dims); p != n {
			return nil, nil, nil, nil, fmt.Errorf("ici.topology: %s is a slice of %d devices; the program runs on %d", c.Chip.ICI.Topology, p, n)
		}
	}
	eng := &sim.Engine{}
	fab := ici.NewFabric(c.Chip.ICI, x.Devices, x.File, x.Fused, x.Collectives)
	fab.TimingOnly = opt.TimingOnly
	fab.Representative = opt.Representative
	if opt.Representative {
		n = 1 // device 0 stands for the others
	}
	models := make([]*core.Model, n)
	kernels := make([]*traces.Kernels, n)
	params := make([]map[string]string, n)
	for i := range n {
		inputs, unknown, param, err := x.bindInputs(args[i], opt.TimingOnly)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("device %d: %w", i, err)
		}
		params[i] = param
		kernels[i] = traces.NewKernels(x.Source("", ""))
		obs := []core.Observer{kernels[i]}
		if i == 0 && observe {
			obs = append(obs, opt.Observers...)
		}
		// A chip of several cores is one device: its cores meet at their
		// barrier, which passes core 0's collectives on to the fabric.
		var link core.Link = fab
		var sync *core.CoreSync
		if c.Chip.NumCores() > 1 {
			sync = core.NewCoreSync(c.Chip, fab)
			link = sync
		}
		partial := func(m *core.Model) {
			if compute != nil {
				m.Arch.SetPartial(compute, track)
				if track == ref.TrackDeps {
					m.Arch.KeepDepsFor(depsFor)
				}
			}
		}
		m, err := core.New(c.Chip, x.Program, core.Options{TimingOnly: opt.TimingOnly, MaxCycles: opt.MaxCycles, Observers: obs, Engine: eng, Link: link, Device: i})
		if err != nil {
			return nil, nil, nil, nil, err
		}
		partial(m)
		for _, t := range unknown {
			if err := m.Arch.MarkUnknown(t); err != nil {
				return nil, nil, nil, nil, err
			}
		}
		for _, in := range inputs {
			if err := m.Arch.WriteTensor(in.Name, in.Values); err != nil {
				return nil, nil, nil, nil, fmt.Errorf("device %d: %w", i, err)
			}
		}
		r, p := i/max(x.Devices.Partitions, 1), i%max(x.Devices.Partitions, 1)
		for _, id := range x.DeviceIDs {
			v := r
			if id.Partition {
				v = p
			}
			if err := m.Arch.WriteAt(isa.HBM, id.Addr, id.DType, []float64{float64(v)}); err != nil {
				return nil, nil, nil, nil, err
			}
		}
		if sync != nil {
			cores := []*core.Model{m}
			for k := 1; k < c.Chip.NumCores(); k++ {
				mk, err := core.NewCore(c.Chip, x.Program, m, core.Options{TimingOnly: opt.TimingOnly, MaxCycles: opt.MaxCycles, Observers: obs, Engine: eng, Device: i}, k, sync, partial)
				if err != nil {
					return nil, nil, nil, nil, err
				}
				cores = append(cores, mk)
			}
			if err := sync.Attach(cores); err != nil {
				return nil, nil, nil, nil, err
			}
		}
		fab.Attach(m)
		models[i] = m
	}
	return models, kernels, fab, params, nil
}

// allCores is every core of the devices' chips: each device's model (its
// core 0) first, in device order, then the other cores, whose failures
// devices maps back to their device.
func allCores(models []*core.Model) []*core.Model {
	all := append([]*core.Model{}, models...)
	for _, m := range models {
		if len(m.Cores) > 1 {
			all = append(all, m.Cores[1:]...)
		}
	}
	return all
}

// coreError makes a failure of RunDevices(allCores(models)) name the
// device (and core) it happened on.
func coreError(err error, models []*core.Model) error {
	var de *core.DeviceError
	if !errors.As(err, &de) || de.Device < len(models) {
		return err
	}
	k := len(models)
	for d, m := range models {
		for c := 1; c < len(m.Cores); c++ {
			if k == de.Device {
				return &core.DeviceError{Device: d, Err: fmt.Errorf("core %d: %w", c, de.Err)}
			}
			k++
		}
	}
	return err
}

// timingOnlyDevicesError says why a timing-only run of several devices
// stopped: control flow on a device depends on an input not given, on a
// collective's results (which such a run does not move) or on values its
// skipped instructions compute.
func timingOnlyDevicesError(err error, x *Executable, params []map[string]string) error {
	var de *core.DeviceError
	if !errors.As(err, &de) {
		return err
	}
	var u *ref.UnknownInput
	var nv *ref.NeedValues
	switch {
	case errors.As(err, &u) && params[de.Device][u.Tensor] != "":
		return fmt.Errorf("device %d: %w", de.Device, &NeedsInputError{Param: params[de.Device][u.Tensor], Pos: u.Pos})
	case errors.As(err, &u):
		return fmt.Errorf("device %d: %s: control flow depends on the values a collective moved into %s, which a timing-only run of several devices does not move: run with values", de.Device, u.Pos, u.Tensor)
	case errors.As(err, &nv):
		return fmt.Errorf("device %d: %s: control flow depends on values the program computes, which a timing-only run of several devices does not compute yet: run with values", de.Device, x.Program.DebugAt(nv.PC).Pos())
	}
	return err
}

// devicesError names the device of a failure as hlo eval does, and a
// deadlock at the interconnect by the collective the devices wait at.
func devicesError(err error, fab *ici.Fabric) error {
	var de *core.DeviceError
	if !errors.As(err, &de) {
		return err
	}
	var dl *ref.Deadlock
	if errors.As(err, &dl) {
		if w := fab.Waiting(); w != "" {
			return fmt.Errorf("%s (deadlock)\n%w", w, err)
		}
	}
	return err
}

// JSON is a multi-device run's report as `pulse simulate --json` writes
// it: the run's cycles and devices, and each device's report as a
// single-device run writes it (Result.JSON).
func (r *DevicesResult) JSON() []byte {
	type device struct {
		*chip.Report
		Kernels      []KernelStats          `json:"kernels"`
		NotModelled  []lowering.NotModelled `json:"not_modelled,omitempty"`
		Approximated []lowering.NotModelled `json:"approximated,omitempty"`
		HBM          lowering.HBMPeak       `json:"hbm_peak"`
	}
	out := struct {
		Cycles int64 `json:"cycles"`
		// Mode is "all" (every device simulated) or "representative"
		// (device 0's report stands for every device).
		Mode    string   `json:"mode"`
		Devices []device `json:"devices"`
	}{Cycles: r.Cycles, Mode: "all"}
	if r.Representative {
		out.Mode = "representative"
	}
	for _, d := range r.Devices {
		out.Devices = append(out.Devices, device{d.Report, d.Kernels, d.NotModelled, d.Approximated, d.HBM})
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return append(b, '\n')
}
