package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/spmd"
	"github.com/pulse-sim/pulse/hlo/partition"
	"github.com/spf13/cobra"
)

// deviceFlags are --replicas and --partitions: the devices an SPMD module
// runs on when its header does not say.
type deviceFlags struct {
	replicas, partitions int
	cmd                  *cobra.Command
}

func (f *deviceFlags) register(cmd *cobra.Command) {
	f.cmd = cmd
	cmd.Flags().IntVar(&f.replicas, "replicas", 0, "run the module on this many replicas (its replica_count when not given)")
	cmd.Flags().IntVar(&f.partitions, "partitions", 0, "run the module on this many partitions (its num_partitions when not given)")
}

// resolve returns the devices m runs on: the header's, overridden by the
// flags (which must agree with a header that gives a count), and refuses a
// module whose collectives need more devices than that.
func (f *deviceFlags) resolve(file string, m *hlo.Module) (hlo.Devices, error) {
	d, err := hlo.ModuleDevices(m)
	if err != nil {
		return d, fmt.Errorf("%s:1:1: %v", file, err)
	}
	for _, k := range []struct {
		flag, attr string
		val        int
		to         *int
	}{{"--replicas", "replica_count", f.replicas, &d.Replicas}, {"--partitions", "num_partitions", f.partitions, &d.Partitions}} {
		if f.cmd == nil || !f.cmd.Flags().Changed(k.flag[2:]) {
			continue
		}
		if k.val < 1 || k.val > hlo.MaxDevices {
			return d, usagef("%s %d: want a count from 1 to %d", k.flag, k.val, hlo.MaxDevices)
		}
		if v, ok := m.Attr(k.attr); ok && v != fmt.Sprint(k.val) {
			return d, usagef("%s %d: the module says %s=%s", k.flag, k.val, k.attr, v)
		}
		*k.to = k.val
	}
	if d.N() > hlo.MaxDevices {
		return d, usagef("%s is %d devices; at most %d are evaluated", d, d.N(), hlo.MaxDevices)
	}
	need := hlo.ImpliedDevices(m)
	if d.N() == 1 && need.N() > 1 && partition.AlreadyPartitioned(m) && !f.changed() {
		// XLA's SPMD partitioner made it: its devices are partitions, as
		// many as its collectives name (a dump that lost num_partitions).
		d = hlo.Devices{Replicas: 1, Partitions: need.N()}
	}
	if d.N() < need.N() {
		return d, usagef("the module's collectives span %d devices and it runs on %d (%s): give --replicas %d --partitions %d, say (replica_count, num_partitions in its header)", need.N(), d.N(), d, need.Replicas, need.Partitions)
	}
	return d, nil
}

func (f *deviceFlags) changed() bool {
	return f.cmd != nil && (f.cmd.Flags().Changed("replicas") || f.cmd.Flags().Changed("partitions"))
}

// evalDevices evaluates m on every device of d and writes each device's
// outputs into dir/deviceI.
func evalDevices(w, errw io.Writer, file string, m *hlo.Module, d hlo.Devices, ins []string, seed int64, random bool, limit, heap int64, perturb uint64, dir string) error {
	n := d.N()
	args, err := deviceArgs(m, n, ins, seed, random, false, limit)
	if err != nil {
		return err
	}
	bar := newRunProgress(errw, fmt.Sprintf("hlo eval (device 0 of %d)", n), len(m.Entry.Instructions))
	ev := &eval.Evaluator{File: file, M: m, MaxLiveElements: limit, MaxHeapBytes: heap, Perturb: perturb,
		Progress: func(done, total int) { bar.set(done, "") }}
	outs, err := spmd.RunDevices(ev, d, args)
	bar.finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d devices (%s)\n", n, d)
	for i, out := range outs {
		if err := writeDeviceOutputs(w, d, i, eval.Leaves(out), out.Tuple != nil, dir); err != nil {
			return err
		}
	}
	return nil
}

// deviceArgs gives each of n devices its arguments: its --in bindings
// (deviceBindings), the rest random from seed+i, within an even share of
// limit float64 elements (or nil with leaveUnbound: bindArgs).
func deviceArgs(m *hlo.Module, n int, ins []string, seed int64, random, leaveUnbound bool, limit int64) ([][]*eval.Value, error) {
	args := make([][]*eval.Value, n)
	for i := range n {
		mine, err := deviceBindings(ins, i, n)
		if err != nil {
			return nil, err
		}
		vals, err := bindArgs(m, mine, seed+int64(i), random, leaveUnbound, max(limit/int64(n), 1))
		if err != nil {
			return nil, fmt.Errorf("device %d: %w", i, err)
		}
		args[i] = vals
	}
	return args, nil
}

// writeDeviceOutputs writes device i's outputs, under a heading naming
// its replica and partition, into dir/deviceI when dir is given.
func writeDeviceOutputs(w io.Writer, d hlo.Devices, i int, outs []*eval.Value, tuple bool, dir string) error {
	sub := ""
	if dir != "" {
		sub = filepath.Join(dir, fmt.Sprintf("device%d", i))
	}
	fmt.Fprintf(w, "device %d (replica %d, partition %d):\n", i, i/max(d.Partitions, 1), i%max(d.Partitions, 1))
	return writeOutputs(w, outs, tuple, sub)
}

// deviceBindings picks device i's --in bindings of n devices: name=file
// binds on every device, name@D=file on device D only (overriding name=file
// there), as the shards of a partitioned module differ.
func deviceBindings(ins []string, i, n int) ([]string, error) {
	var all []string
	mine := map[string]string{}
	var order []string
	for _, s := range ins {
		name, path, err := splitBinding("in", s)
		if err != nil {
			return nil, err
		}
		base, dev, ok := strings.Cut(name, "@")
		if !ok {
			all = append(all, s)
			continue
		}
		k, err := strconv.Atoi(dev)
		if err != nil || k < 0 || k >= n || base == "" {
			return nil, usagef("--in %s: want name@DEVICE=file with DEVICE from 0 to %d", s, n-1)
		}
		if k != i {
			continue
		}
		if _, dup := mine[base]; dup {
			return nil, usagef("--in %s: parameter %s of device %d is bound twice", s, base, k)
		}
		mine[base] = base + "=" + path
		order = append(order, base)
	}
	var out []string
	for _, s := range all {
		name, _, _ := strings.Cut(s, "=")
		if _, over := mine[name]; !over {
			out = append(out, s)
		}
	}
	for _, b := range order {
		out = append(out, mine[b])
	}
	return out, nil
}
