package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/pulse-sim/pulse/chip"
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
}

// ExecuteDevices runs x, compiled for several devices, on one chip per
// device, all on one event engine and joined by the chip's interconnect
// (package ici); args[i] is device i's arguments. Observers watch device
// 0. Timing-only runs and infeed records are refused: the interconnect
// moves values, so every device computes them.
func (c *Client) ExecuteDevices(x *Executable, args [][]*eval.Value, opt ExecOptions) (*DevicesResult, error) {
	n := x.Devices.N()
	if opt.TimingOnly {
		return nil, fmt.Errorf("--timing-only is not available on several devices: their collectives move values, so every device computes them")
	}
	if len(opt.Infeed) > 0 || x.Feeds != nil {
		return nil, fmt.Errorf("infeed and outfeed on %d devices are not simulated (each device would need its own host queues)", n)
	}
	if len(args) != n {
		return nil, fmt.Errorf("%d argument lists for %d devices", len(args), n)
	}
	if n > 1 && c.Chip.ICI.Links <= 0 {
		return nil, fmt.Errorf("chip %s has no interconnect (ici.links 0): it runs one device", c.Chip.Name)
	}
	start := time.Now()
	eng := &sim.Engine{}
	fab := ici.NewFabric(c.Chip.ICI, x.Devices, x.File, x.Fused, x.Collectives)
	models := make([]*core.Model, n)
	kernels := make([]*traces.Kernels, n)
	for i := range n {
		inputs, _, _, err := x.bindInputs(args[i], false)
		if err != nil {
			return nil, fmt.Errorf("device %d: %w", i, err)
		}
		kernels[i] = traces.NewKernels(x.Source("", ""))
		obs := []core.Observer{kernels[i]}
		if i == 0 {
			obs = append(obs, opt.Observers...)
		}
		m, err := core.New(c.Chip, x.Program, core.Options{MaxCycles: opt.MaxCycles, Observers: obs, Engine: eng, Link: fab, Device: i})
		if err != nil {
			return nil, err
		}
		for _, in := range inputs {
			if err := m.Arch.WriteTensor(in.Name, in.Values); err != nil {
				return nil, fmt.Errorf("device %d: %w", i, err)
			}
		}
		r, p := i/max(x.Devices.Partitions, 1), i%max(x.Devices.Partitions, 1)
		for _, id := range x.DeviceIDs {
			v := r
			if id.Partition {
				v = p
			}
			if err := m.Arch.WriteAt(isa.HBM, id.Addr, id.DType, []float64{float64(v)}); err != nil {
				return nil, err
			}
		}
		fab.Attach(m)
		models[i] = m
	}
	if err := core.RunDevices(models); err != nil {
		return nil, devicesError(err, fab)
	}
	fab.Finish(models[0].Clock)
	res := &DevicesResult{ExecTime: time.Since(start)}
	for i, m := range models {
		r := &Result{Model: m, NotModelled: x.NotModelled}
		r.Report = chip.NewReport(x.Fused.Name, m, false)
		r.Report.Interconnect = &fab.Stats[i]
		r.Kernels = kernels[i].Stats()
		outs, err := x.readOutputs(m)
		if err != nil {
			return nil, fmt.Errorf("device %d: %w", i, err)
		}
		r.Outputs = outs
		r.ExecTime = res.ExecTime
		res.Devices = append(res.Devices, r)
		res.Cycles = max(res.Cycles, m.Cycles())
	}
	return res, nil
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
		Kernels     []KernelStats          `json:"kernels"`
		NotModelled []lowering.NotModelled `json:"not_modelled,omitempty"`
	}
	out := struct {
		Cycles  int64    `json:"cycles"`
		Devices []device `json:"devices"`
	}{Cycles: r.Cycles}
	for _, d := range r.Devices {
		out.Devices = append(out.Devices, device{d.Report, d.Kernels, d.NotModelled})
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return append(b, '\n')
}
