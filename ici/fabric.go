package ici

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/spmd"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/sim"
)

// Fabric connects the devices of a multi-device run: every model's Link.
// A device that rings it names a collective of the program; the fabric
// gathers the group (the devices XLA's replica groups put together), and
// when the last of them arrives, starts the collective once each member's
// link is free, moves the values at its end (spmd.Exchange on
// the members' HBM) and signals each member there. Everything happens on
// the devices' shared engine, so runs are deterministic.
type Fabric struct {
	cfg    config.ICI
	devs   hlo.Devices
	colls  []lowering.Collective
	ev     *eval.Evaluator
	models []*core.Model
	seen   []map[int]int // per device: runs of each collective so far
	free   []sim.Time    // per device: when its link is next free
	meets  map[meetKey]*meeting
	Stats  []core.LinkStats // per device
	// TimingOnly moves values only where every operand was computed (see
	// complete); otherwise a collective's results are marked as made from
	// the operands' skipped writers, so control flow that reads them
	// stops the run and asks for those writers.
	TimingOnly bool
	// Representative: only device 0 runs, standing for every device of an
	// SPMD program (runtime.ExecOptions.Representative): its collectives
	// start when it arrives, as if each member arrived with it, take the
	// cost of their whole group, and move no values.
	Representative bool
}

type meetKey struct{ id, k, first int }

type meeting struct {
	id      int
	members []int
	arrived map[int]sim.Time
}

// NewFabric makes the fabric for x's collectives on devices d; file names
// the module in messages. Models join it with Attach.
func NewFabric(cfg config.ICI, d hlo.Devices, file string, fused *hlo.Module, colls []lowering.Collective) *Fabric {
	n := d.N()
	f := &Fabric{cfg: cfg, devs: d, colls: colls, ev: &eval.Evaluator{File: file, M: fused},
		models: make([]*core.Model, n), seen: make([]map[int]int, n), free: make([]sim.Time, n),
		meets: map[meetKey]*meeting{}, Stats: make([]core.LinkStats, n)}
	for i := range f.seen {
		f.seen[i] = map[int]int{}
	}
	return f
}

// Attach records model m as its device (core.Options.Device).
func (f *Fabric) Attach(m *core.Model) { f.models[m.Device()] = m }

// Doorbell implements core.Link.
func (f *Fabric) Doorbell(m *core.Model, now sim.Time) error {
	var b [4]byte
	m.Arch.Mem[isa.SMEM].Read(isa.LinkWord, b[:])
	id := int(int32(binary.LittleEndian.Uint32(b[:])))
	if id < 0 || id >= len(f.colls) {
		return fmt.Errorf("the link was rung for collective %d; the program has %d", id, len(f.colls))
	}
	dev := m.Device()
	in := f.colls[id].Op
	members, err := f.members(in, dev)
	if err != nil {
		return f.errorf(in, "%v", err)
	}
	if f.Representative {
		mt := &meeting{id: id, members: []int{dev}, arrived: map[int]sim.Time{dev: now}}
		f.run(mt, members, now, m)
		return nil
	}
	k := f.seen[dev][id]
	f.seen[dev][id]++
	key := meetKey{id, k, members[0]}
	mt := f.meets[key]
	if mt == nil {
		mt = &meeting{id: id, members: members, arrived: map[int]sim.Time{}}
		f.meets[key] = mt
	}
	if !slices.Equal(mt.members, members) {
		return f.errorf(in, "device %d names the group %v, another device %v", dev, members, mt.members)
	}
	mt.arrived[dev] = now
	if len(mt.arrived) < len(members) {
		return nil
	}
	delete(f.meets, key)
	f.run(mt, members, now, m)
	return nil
}

// run starts meeting mt's collective, of the group members, once each of
// its devices' links is free (a representative meeting's one device), and
// schedules its completion.
func (f *Fabric) run(mt *meeting, members []int, now sim.Time, m *core.Model) {
	in := f.colls[mt.id].Op
	start := now
	for _, d := range mt.members {
		start = max(start, f.free[d])
	}
	c := f.colls[mt.id]
	var in1, out1 int64
	for _, a := range c.Operands {
		in1 += a.Shape.Elems() * int64(a.DType.Size())
	}
	for _, a := range c.Results {
		out1 += a.Shape.Elems() * int64(a.DType.Size())
	}
	base := strings.TrimSuffix(in.Opcode, "-start")
	end := start + Cost(f.cfg, base, members, f.devs.N(), in1, out1)
	for _, d := range mt.members {
		f.free[d] = end
		s := &f.Stats[d]
		s.Collectives++
		s.BytesIn += in1
		s.BytesOut += out1
		s.Busy += end - start
		s.Wait += start - mt.arrived[d]
	}
	m.Eng.Schedule(end, sim.HandlerFunc(func(now sim.Time) { f.complete(mt, now) }))
}

// complete moves a meeting's values and releases its devices. A
// timing-only run moves them when every member's operands hold computed
// values (control flow may need them: token ids gathered for an embedding
// lookup); otherwise each result is marked as made from the device's own
// operands, so that a computed instruction reading it asks for their
// writers (ref.Machine.MarkDerivedAt) and the next run of the search
// moves it.
func (f *Fabric) complete(mt *meeting, now sim.Time) {
	c := f.colls[mt.id]
	if f.TimingOnly && (f.Representative || !f.operandsComputed(mt)) {
		for _, d := range mt.members {
			m := f.models[d]
			for i, r := range c.Results {
				o := c.Operands[min(i, len(c.Operands)-1)]
				m.Arch.MarkDerivedAt(isa.HBM, r.Addr, r.Shape.Elems()*int64(r.DType.Size()), o.Addr, o.Shape.Elems()*int64(o.DType.Size()))
			}
			m.LinkDone(now)
		}
		return
	}
	ops := map[int][]*eval.Value{}
	for _, d := range mt.members {
		a := f.models[d].Arch
		for _, o := range c.Operands {
			vals, err := a.ReadAt(isa.HBM, o.Addr, o.DType, o.Shape.Elems())
			if err != nil {
				f.fail(mt, f.errorf(c.Op, "reading an operand on device %d: %v", d, err))
				return
			}
			ops[d] = append(ops[d], &eval.Value{Shape: o.Shape, Data: vals})
		}
	}
	res, err := spmd.Exchange(f.ev, c.Op, f.devs, ops)
	if err != nil {
		f.fail(mt, err)
		return
	}
	for _, d := range mt.members {
		leaves := eval.Leaves(res[d])
		if len(leaves) != len(c.Results) {
			f.fail(mt, f.errorf(c.Op, "internal error: %d result arrays for %d buffers", len(leaves), len(c.Results)))
			return
		}
		m := f.models[d]
		for i, r := range c.Results {
			if int64(len(leaves[i].Data)) != r.Shape.Elems() {
				f.fail(mt, f.errorf(c.Op, "internal error: result %d holds %d values for %s", i, len(leaves[i].Data), r.Shape))
				return
			}
			if err := m.Arch.WriteAt(isa.HBM, r.Addr, r.DType, leaves[i].Data); err != nil {
				f.fail(mt, f.errorf(c.Op, "writing a result on device %d: %v", d, err))
				return
			}
			m.Arch.MarkComputedAt(isa.HBM, r.Addr, r.Shape.Elems()*int64(r.DType.Size()))
		}
		m.LinkDone(now)
	}
}

// operandsComputed reports whether every member's operands hold computed
// values (a timing-only run).
func (f *Fabric) operandsComputed(mt *meeting) bool {
	c := f.colls[mt.id]
	if len(c.Operands) == 0 {
		return false
	}
	for _, d := range mt.members {
		for _, o := range c.Operands {
			if !f.models[d].Arch.ComputedAt(isa.HBM, o.Addr, o.Shape.Elems()*int64(o.DType.Size())) {
				return false
			}
		}
	}
	return true
}

func (f *Fabric) fail(mt *meeting, err error) {
	for _, d := range mt.members {
		f.models[d].Fail(err)
	}
}

func (f *Fabric) errorf(in *hlo.Instruction, format string, a ...any) error {
	return &eval.EvalError{File: f.ev.File, Pos: in.Pos, Msg: in.Name + ": " + in.Opcode + ": " + fmt.Sprintf(format, a...)}
}

// members is the group device dev meets at collective in with.
func (f *Fabric) members(in *hlo.Instruction, dev int) ([]int, error) {
	if strings.TrimSuffix(in.Opcode, "-start") == "collective-permute" {
		domain, _, err := f.devs.PermuteDomain(in, dev)
		return domain, err
	}
	return f.devs.Participants(in, dev)
}

// Finish closes the statistics: cycles of clock.
func (f *Fabric) Finish(clock sim.Clock) {
	for i := range f.Stats {
		s := &f.Stats[i]
		s.BusyCycles = clock.CyclesCeil(s.Busy)
		s.WaitCycles = clock.CyclesCeil(s.Wait)
	}
}

// Waiting describes the collectives some devices wait at and others
// never reached, for a deadlock report ("" when none).
func (f *Fabric) Waiting() string {
	var out []string
	for _, mt := range f.meets {
		in := f.colls[mt.id].Op
		var here, missing []int
		for _, d := range mt.members {
			if _, ok := mt.arrived[d]; ok {
				here = append(here, d)
			} else {
				missing = append(missing, d)
			}
		}
		out = append(out, fmt.Sprintf("%s:%d:%d: %s: %s: devices %v wait for devices %v, which finished, failed or wait elsewhere: the devices do not run the same collectives",
			f.ev.File, in.Pos.Line, in.Pos.Col, in.Name, in.Opcode, here, missing))
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}
