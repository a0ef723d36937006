package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/partition"
)

// partitioned is a sharded module Pulse partitioned itself: the per-device
// program runs on the devices, the global module stays the contract with
// the user (global inputs bound, global outputs checked).
type partitioned struct {
	global *hlo.Module
	res    *partition.Result
}

// partitionIfSharded partitions a module that carries shardings but no
// partitioning (the HLO or Shardy StableHLO of a sharded jit), saying so
// on errw; nil when the module is not such a module or whole is set.
func partitionIfSharded(errw io.Writer, file string, m *hlo.Module, whole bool) (*partitioned, error) {
	if whole || !partition.IsSharded(m) {
		if whole {
			if n, ex := hlo.ShardedOver(m); n > 1 {
				fmt.Fprintf(errw, "note: %s is sharded over %d devices (sharding=%s); --no-partition runs it whole on one chip, as if unsharded\n", file, n, ex)
			}
		}
		return nil, nil
	}
	res, err := partition.Partition(file, m, 0)
	if err != nil {
		return nil, err
	}
	gathered := ""
	if len(res.Fallbacks) > 0 {
		f := res.Fallbacks[0]
		gathered = fmt.Sprintf("; %d ops computed whole on every device (the first: %s, %s at %s:%s; pulse hlo partition lists them)", len(res.Fallbacks), f.Name, f.Opcode, file, f.Pos)
	}
	if len(res.Uneven) > 0 {
		f := res.Uneven[0]
		gathered += fmt.Sprintf("; %d dimensions split over fewer devices than asked, which do not divide them (the first: %s at %s:%s; pulse hlo partition lists them)", len(res.Uneven), f.Name, file, f.Pos)
	}
	fmt.Fprintf(errw, "note: %s is sharded over %d devices (mesh %s): Pulse partitioned it into one program per device with %d collectives%s\n",
		file, res.Mesh.N(), meshText(res.Mesh), len(res.Collectives), gathered)
	return &partitioned{global: m, res: res}, nil
}

func meshText(m *partition.Mesh) string {
	var parts []string
	for i, n := range m.Names {
		parts = append(parts, fmt.Sprintf("%q=%d", n, m.Sizes[i]))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// args binds the global inputs (--in name=file, or random from seed) and
// cuts each into the shard each device holds under its parameter's
// sharding. Per-device bindings (name@D=file) are for modules that were
// partitioned before Pulse read them.
func (p *partitioned) args(ins []string, seed int64, random, leaveUnbound bool, limit int64) (globals []*eval.Value, perDevice [][]*eval.Value, err error) {
	for _, s := range ins {
		if name, _, _ := strings.Cut(s, "="); strings.Contains(name, "@") {
			return nil, nil, usagef("--in %s: Pulse partitions this sharded module itself: bind the global arrays (name=file), which each device receives its shard of", s)
		}
	}
	if globals, err = bindArgs(p.global, ins, seed, random, leaveUnbound, limit); err != nil {
		return nil, nil, err
	}
	mesh := p.res.Mesh
	perDevice = make([][]*eval.Value, mesh.N())
	for d := range perDevice {
		for k, g := range globals {
			if g == nil { // never given (a timing-only run)
				perDevice[d] = append(perDevice[d], nil)
				continue
			}
			data, dims, err := mesh.Shard(g.Data, g.Shape.Dims, p.res.Params[k], d)
			if err != nil {
				return nil, nil, fmt.Errorf("parameter %d: %v", k, err)
			}
			perDevice[d] = append(perDevice[d], &eval.Value{Shape: &hlo.Shape{Elem: g.Shape.Elem, Dims: dims}, Data: data})
		}
	}
	return globals, perDevice, nil
}

// assemble puts the devices' shards of every output back together.
func (p *partitioned) assemble(outs [][]*eval.Value) ([]*eval.Value, error) {
	var global []*eval.Value
	for k, sh := range p.res.Outputs {
		shards := make([][]float64, len(outs))
		for d := range outs {
			if k >= len(outs[d]) {
				return nil, fmt.Errorf("device %d has %d outputs, the module %d", d, len(outs[d]), len(p.res.Outputs))
			}
			shards[d] = outs[d][k].Data
		}
		data, err := p.res.Mesh.Assemble(shards, p.res.OutputDims[k], sh)
		if err != nil {
			return nil, err
		}
		global = append(global, &eval.Value{Shape: &hlo.Shape{Elem: outs[0][k].Shape.Elem, Dims: p.res.OutputDims[k]}, Data: data})
	}
	return global, nil
}

// checkGlobal compares the assembled outputs with the evaluator's run of
// the unpartitioned module on the global inputs: the partitioner's check.
func (p *partitioned) checkGlobal(w io.Writer, file string, globals []*eval.Value, outs [][]*eval.Value, limit int64) error {
	if p.res.Manual {
		fmt.Fprintln(w, "(the module has a shard_map body, written for one device's shard: it has no unpartitioned run to compare with; the check above is the devices')")
		return nil
	}
	got, err := p.assemble(outs)
	if err != nil {
		return fmt.Errorf("--check: %v", err)
	}
	ev := &eval.Evaluator{File: file, M: p.global, MaxLiveElements: limit, MaxHeapBytes: eval.HeapBytes() + limit*8 + evalOverhead}
	want, err := ev.Run(globals)
	if err != nil {
		return fmt.Errorf("--check: the reference evaluator failed on the unpartitioned module: %v", err)
	}
	wants := eval.Leaves(want)
	if len(wants) != len(got) {
		return fmt.Errorf("--check: %d global outputs, the unpartitioned module has %d", len(got), len(wants))
	}
	fmt.Fprintln(w, "the devices' shards put together, against the unpartitioned module:")
	t := tablewriter.NewTable(w)
	t.Header("OUTPUT", "SHAPE", "SHARDING", "MAX ABS ERR", "MISMATCHES", "RESULT")
	failed := 0
	for k, wv := range wants {
		df := check.Compare(got[k], wv)
		res := "ok"
		if df.Mismatches > 0 {
			res = "MISMATCH"
			failed++
		}
		if err := t.Append(fmt.Sprint(k), wv.Shape.String(), p.res.Mesh.Format(p.res.Outputs[k]), fmt.Sprintf("%.3g", df.MaxAbs), fmt.Sprint(df.Mismatches), res); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("--check: %d of %d global outputs differ from the unpartitioned module's", failed, len(wants))
	}
	return nil
}
