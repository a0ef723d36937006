package partition

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// customCall partitions the custom calls that carry shardings: a sharding
// constraint (Sharding; Shardy's FuncResultSharding on a result) moves its
// operand to the sharding named; Shardy's GlobalToLocalShape and
// LocalToGlobalShape (and GSPMD's SPMDFullToShardShape and
// SPMDShardToFullShape) enter and leave a shard_map body. Other custom
// calls are computed whole on every device.
func (p *partitioner) customCall(in *hlo.Instruction, ops []*val) error {
	target, _ := in.Attr("custom_call_target")
	target = strings.Trim(target, `"`)
	switch target {
	case "Sharding", "xla.sdy.FuncResultSharding", "xla.sdy.Sharding", "ShardBarrierFrom", "ShardBarrierTo":
		if len(ops) != 1 || ops[0].tuple != nil || ops[0].manual {
			break
		}
		sh, ok, err := p.shardingOf(in, len(in.Shape.Dims))
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		if !ok {
			sh = dimsOnly(ops[0].sh)
		}
		r, err := p.reshard(ops[0], sh)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		p.vals[in.Name] = r
		return nil
	case "xla.sdy.GlobalToLocalShape", "SPMDFullToShardShape":
		return p.enterManual(in, ops, target)
	case "xla.sdy.LocalToGlobalShape", "SPMDShardToFullShape":
		return p.leaveManual(in, ops, target)
	}
	if anyManual(ops) {
		return p.errAt(in, "a value of a shard_map body is used outside it")
	}
	return p.replicated(in, ops, "a custom call is computed whole")
}

// manualShardings reads a shard_map boundary's shardings (Shardy's
// frontend attribute key, or GSPMD's sharding=), split over the body's
// manual axes only.
func (p *partitioner) manualShardings(in *hlo.Instruction, key string, shapes []*hlo.Shape) ([]Sharding, error) {
	if text, ok := frontendAttr(in, key); ok && p.meshes != nil {
		shs, _, err := ParseSdyShardings(text, p.meshes)
		if err != nil {
			return nil, err
		}
		if len(shs) != len(shapes) {
			return nil, fmt.Errorf("%d shardings for %d values", len(shs), len(shapes))
		}
		axesText, _ := frontendAttr(in, "xla.sdy.manual_axes")
		axes, err := ParseManualAxes(axesText, p.mesh)
		if err != nil {
			return nil, err
		}
		// A body manual over some axes only (shard_map with auto axes)
		// runs as written on every device, its values split over the
		// manual axes and whole along the others: the free axes are
		// dropped from the boundary's shardings (the body's types are its
		// shards over the manual axes alone). XLA would also partition
		// the body over the free axes; here each device of a group that
		// differs only along them computes the same shard.
		for i, sh := range shs {
			shs[i] = keepAxes(sh, axes)
		}
		return shs, nil
	}
	text, ok := in.Attr("sharding")
	if !ok {
		return nil, fmt.Errorf("no sharding for the shard_map boundary")
	}
	elems := []string{text}
	if len(shapes) > 1 || strings.HasPrefix(text, "{{") {
		elems = splitTuple(text)
	}
	if len(elems) != len(shapes) {
		return nil, fmt.Errorf("%d shardings for %d values", len(elems), len(shapes))
	}
	var out []Sharding
	for i, e := range elems {
		hs, err := ParseHLOSharding(e, len(shapes[i].Dims), p.mesh)
		if err != nil {
			return nil, err
		}
		out = append(out, hs.Sharding)
	}
	return out, nil
}

// keepAxes is s split over the given axes only.
func keepAxes(s Sharding, axes []int) Sharding {
	out := s.Clone()
	for i, d := range out.Dims {
		var kept []int
		for _, a := range d {
			if slices.Contains(axes, a) {
				kept = append(kept, a)
			}
		}
		out.Dims[i] = kept
	}
	var partial []int
	for _, a := range out.Partial {
		if slices.Contains(axes, a) {
			partial = append(partial, a)
		}
	}
	out.Partial = partial
	return out
}

func leaves(s *hlo.Shape) []*hlo.Shape {
	if s.IsTuple {
		return s.Tuple
	}
	return []*hlo.Shape{s}
}

// enterManual: each operand moves to its in-sharding, and its shard is
// the body's value.
func (p *partitioner) enterManual(in *hlo.Instruction, ops []*val, target string) error {
	var shapes []*hlo.Shape
	for _, o := range ops {
		shapes = append(shapes, o.global)
	}
	key := "xla.sdy.in_shardings"
	if target == "SPMDFullToShardShape" {
		key = ""
		shapes = []*hlo.Shape{ops[0].global}
	}
	shs, err := p.manualShardings(in, key, shapes)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	var elems []*val
	for i, o := range ops {
		if o.tuple != nil || o.manual {
			return p.errAt(in, "operand %d is not an array outside the body", i)
		}
		r, err := p.reshard(o, shs[i])
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		elems = append(elems, &val{name: r.name, global: r.global, sh: r.sh, manual: true})
	}
	p.res.Manual = true
	if len(elems) == 1 && !in.Shape.IsTuple {
		p.vals[in.Name] = elems[0]
		return nil
	}
	p.vals[in.Name] = &val{global: in.Shape, tuple: elems, manual: true}
	return nil
}

// leaveManual: each of the body's results is this device's shard of a
// global value sharded as the out-sharding says.
func (p *partitioner) leaveManual(in *hlo.Instruction, ops []*val, target string) error {
	shapes := leaves(in.Shape)
	key := "xla.sdy.out_shardings"
	if target == "SPMDShardToFullShape" {
		key = ""
	}
	shs, err := p.manualShardings(in, key, shapes)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	if len(ops) != len(shapes) {
		return p.errAt(in, "%d operands for %d results", len(ops), len(shapes))
	}
	var elems []*val
	for i, o := range ops {
		if !o.manual || o.tuple != nil {
			return p.errAt(in, "operand %d is not a value of the shard_map body", i)
		}
		want, err := p.localShape(shapes[i], shs[i])
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		if !hlo.EqualDims(want.Dims, localDimsOf(p, o)) {
			return p.errAt(in, "result %d of the body has the shard shape %v where its out-sharding %s wants %v", i, localDimsOf(p, o), p.mesh.Format(shs[i]), want.Dims)
		}
		elems = append(elems, &val{name: o.name, global: shapes[i], sh: shs[i]})
	}
	if !in.Shape.IsTuple {
		p.vals[in.Name] = elems[0]
		return nil
	}
	p.vals[in.Name] = &val{global: in.Shape, tuple: elems}
	return nil
}

// localDimsOf is a manual value's shard shape (its global is local).
func localDimsOf(p *partitioner, v *val) []int64 { return v.global.Dims }

// manualCall calls a shard_map body on the devices' shards: the body is
// already written for one device's shard, so it runs as written.
func (p *partitioner) manualCall(in *hlo.Instruction, ops []*val) error {
	var names []string
	for i, o := range ops {
		if !o.manual || o.tuple != nil {
			return p.errAt(in, "operand %d of the shard_map body is not a shard", i)
		}
		names = append(names, o.name)
	}
	name := p.copyOf(in, in.Shape, names, nil)
	v := &val{name: name, global: in.Shape, manual: true}
	if in.Shape.IsTuple {
		for i, e := range in.Shape.Tuple {
			g := p.emit(p.fresh(name+".gte"), e, fmt.Sprintf("get-tuple-element(%s), index=%d", name, i))
			v.tuple = append(v.tuple, &val{name: g, global: e, manual: true})
		}
	}
	p.vals[in.Name] = v
	return nil
}

// root ends the entry: each output moves to the sharding the root's
// sharding= asks for (as it is where none is given), and the shards are
// the program's result.
func (p *partitioner) root() error {
	root := p.m.Entry.Root
	v := p.vals[root.Name]
	p.at = root
	outs := []*val{v}
	if v.tuple != nil {
		outs = v.tuple
	}
	var want []string
	if text, ok := root.Attr("sharding"); ok {
		if v.tuple != nil {
			want = splitTuple(text)
		} else {
			want = []string{text}
		}
	}
	var names []string
	var shapes []*hlo.Shape
	for i, o := range outs {
		if o.tuple != nil {
			return p.errAt(root, "a nested tuple result is not partitioned yet")
		}
		if o.manual {
			return p.errAt(root, "a value of a shard_map body is the module's result")
		}
		to := dimsOnly(o.sh)
		if i < len(want) {
			hs, err := ParseHLOSharding(want[i], len(o.global.Dims), p.mesh)
			if err != nil {
				return p.errAt(root, "%v", err)
			}
			to = p.evenFor(root, o.global, hs.Sharding)
		}
		r, err := p.reshard(o, to)
		if err != nil {
			return p.errAt(root, "%v", err)
		}
		local, err := p.localShape(r.global, r.sh)
		if err != nil {
			return p.errAt(root, "%v", err)
		}
		names, shapes = append(names, r.name), append(shapes, local)
		p.res.Outputs = append(p.res.Outputs, r.sh)
		p.res.OutputDims = append(p.res.OutputDims, r.global.Dims)
	}
	if v.tuple == nil && !root.Shape.IsTuple {
		p.lines = append(p.lines, fmt.Sprintf("  ROOT %s = %s copy(%s)", p.fresh("pulse.spmd.result"), shapes[0], names[0]))
		return nil
	}
	p.lines = append(p.lines, fmt.Sprintf("  ROOT %s = %s tuple(%s)", p.fresh("pulse.spmd.result"), (&hlo.Shape{IsTuple: true, Tuple: shapes}).String(), strings.Join(names, ", ")))
	return nil
}
