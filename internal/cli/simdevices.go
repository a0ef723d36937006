package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/eval/spmd"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/pulse-sim/pulse/traces"
	"github.com/spf13/cobra"
)

// simulateDevices is pulse simulate for a module of several devices: one
// chip per device, joined by the chips' interconnect (docs/devices.md).
// Each device gets its own arguments (--in name@D=file, or the random
// inputs of seed+D, as hlo eval gives them); the outputs go to
// DIR/deviceD; --check compares every device with the evaluator's
// RunDevices. The observers (--trace, --pprof, ...) watch device 0.
func simulateDevices(cmd *cobra.Command, client *runtime.Client, m *hlo.Module, x *runtime.Executable, file, asmFile string,
	ins []string, seed int64, random bool, limit, maxCycles int64, obs *observeFlags, jsonPath, outDir string, check, timingOnly, representative bool, part *partitioned) error {
	d := x.Devices
	n := d.N()
	// Timing-only runs take inputs when given: control flow may depend on
	// them (without them such a run refuses).
	var args [][]*eval.Value
	var globals []*eval.Value
	if !timingOnly || len(ins) > 0 || random {
		var err error
		if part != nil {
			globals, args, err = part.args(ins, seed, random, timingOnly, limit)
		} else {
			args, err = deviceArgs(m, n, ins, seed, random, timingOnly, limit)
		}
		if err != nil {
			return err
		}
	}
	bar := newRunProgress(cmd.ErrOrStderr(), fmt.Sprintf("simulate (device 0 of %d, program position)", n), len(x.Program.Code))
	observers := append(obs.observers(x.Source(file, asmFile)), &traces.Progress{Report: func(done, total int) { bar.set(done, "") }})
	r, err := client.ExecuteDevices(x, args, runtime.ExecOptions{TimingOnly: timingOnly, MaxCycles: maxCycles, Observers: observers, Representative: representative})
	bar.finish()
	if err != nil {
		return obs.failed(cmd.ErrOrStderr(), err)
	}
	w := cmd.OutOrStdout()
	topo := ""
	if t := client.Chip.ICI.Topology; t != "" {
		topo = ", a " + t + " torus"
	}
	if r.Representative {
		fmt.Fprintf(w, "%d devices (%s) on %s%s, represented by device 0 alone (--devices one: every device runs the program on symmetric shards; each collective starts when device 0 arrives and takes its group's interconnect time): %d cycles\n",
			n, d, client.Chip.Name, topo, r.Cycles)
	} else {
		fmt.Fprintf(w, "%d devices (%s) on %s%s, joined by its interconnect (%d links of %g GB/s each way, %g ns a step): %d cycles, when the last device finished\n",
			n, d, client.Chip.Name, topo, client.Chip.ICI.Links, client.Chip.ICI.LinkGBps, client.Chip.ICI.LatencyNS, r.Cycles)
	}
	if err := writeDevicesTable(w, d, r); err != nil {
		return err
	}
	fmt.Fprintln(w, "device 0:")
	d0 := r.Devices[0]
	if err := writeRunReport(w, obs, d0); err != nil {
		return err
	}
	if jsonPath != "" {
		if err := writeOutput("--json", jsonPath, r.JSON()); err != nil {
			return err
		}
	}
	mode := ""
	if r.Representative {
		mode = " (device 0 simulated for all)"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s on %d x %s%s: %d kernels; compile %.3f s%s, simulation %.3f s, %d cycles\n",
		file, n, client.Chip.Name, mode, len(x.Kernels), x.CompileTime.Seconds(), cacheNote(x), r.ExecTime.Seconds(), r.Cycles)
	if err := obs.write(cmd.ErrOrStderr(), d0.Report, d0.Kernels); err != nil {
		return err
	}
	if timingOnly {
		return nil
	}
	tuple := len(x.Outputs) > 1 || x.Fused.Entry.Root.Shape.IsTuple
	for i, dr := range r.Devices {
		if err := writeDeviceOutputs(w, d, i, dr.Outputs, tuple, outDir); err != nil {
			return err
		}
	}
	if !check {
		return nil
	}
	if err := checkDevices(w, cmd.ErrOrStderr(), file, m, d, args, r, limit); err != nil {
		return err
	}
	if part == nil {
		return nil
	}
	outs := make([][]*eval.Value, len(r.Devices))
	for i, dr := range r.Devices {
		outs[i] = dr.Outputs
	}
	return part.checkGlobal(w, file, globals, outs, limit)
}

func writeDevicesTable(w io.Writer, d hlo.Devices, r *runtime.DevicesResult) error {
	t := tablewriter.NewTable(w)
	t.Header("DEVICE", "REPLICA", "PARTITION", "CYCLES", "COLLECTIVES", "LINK BYTES IN", "LINK CYCLES", "WAITED FOR GROUP", "MXU UTIL")
	for i, dr := range r.Devices {
		ic := dr.Report.Interconnect
		if err := t.Append(fmt.Sprint(i), fmt.Sprint(i/max(d.Partitions, 1)), fmt.Sprint(i%max(d.Partitions, 1)), fmt.Sprint(dr.Report.Cycles),
			fmt.Sprint(ic.Collectives), fmt.Sprint(ic.BytesIn), fmt.Sprint(ic.BusyCycles), fmt.Sprint(ic.WaitCycles),
			fmt.Sprintf("%.1f%%", 100*dr.Report.MXUMacUtilization)); err != nil {
			return err
		}
	}
	return t.Render()
}

// checkDevices evaluates the module on its devices and compares each
// device's outputs with the simulated ones (eval.Compare's dtype-aware
// tolerance).
func checkDevices(w, errw io.Writer, file string, m *hlo.Module, d hlo.Devices, args [][]*eval.Value, r *runtime.DevicesResult, limit int64) error {
	start := time.Now()
	bar := newRunProgress(errw, fmt.Sprintf("check (reference evaluator, device 0 of %d)", d.N()), len(m.Entry.Instructions))
	ev := &eval.Evaluator{File: file, M: m, MaxLiveElements: limit, MaxHeapBytes: eval.HeapBytes() + limit*8 + evalOverhead,
		Progress: func(done, total int) { bar.set(done, "") }}
	want, err := spmd.RunDevices(ev, d, args)
	bar.finish()
	if err != nil {
		return fmt.Errorf("--check: the reference evaluator failed: %v", err)
	}
	t := tablewriter.NewTable(w)
	t.Header("DEVICE", "OUTPUT", "SHAPE", "MAX ABS ERR", "MAX REL ERR", "MISMATCHES", "FIRST MISMATCH", "RESULT")
	failed, total := 0, 0
	for i, dr := range r.Devices {
		wants := eval.Leaves(want[i])
		if len(wants) != len(dr.Outputs) {
			return fmt.Errorf("--check: device %d has %d outputs, the evaluator %d", i, len(dr.Outputs), len(wants))
		}
		for k, wv := range wants {
			total++
			df := check.Compare(dr.Outputs[k], wv)
			first, res := "-", "ok"
			if df.Mismatches > 0 {
				first = fmt.Sprintf("[%d] %v, want %v", df.First, df.FirstGot, df.FirstWant)
				res = "FAIL"
				failed++
			}
			if err := t.Append(fmt.Sprint(i), fmt.Sprint(k), wv.Shape.String(), fmt.Sprintf("%.3g", df.MaxAbs), fmt.Sprintf("%.3g", df.MaxRel),
				fmt.Sprint(df.Mismatches), first, res); err != nil {
				return err
			}
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("--check: %d of %d outputs (of %d devices) differ from the reference beyond tolerance", failed, total, d.N())
	}
	fmt.Fprintf(w, "check: every output of every device matches the reference evaluator (%.3f s)\n", time.Since(start).Seconds())
	return nil
}
