package partition

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// Result is a partitioned module and what a user needs to run it with
// global arrays and to read what the partitioner did.
type Result struct {
	Module *hlo.Module // one program for every device: num_partitions=Mesh.N()
	Mesh   *Mesh
	// Params and Outputs are the shardings of the entry's parameters and
	// of its outputs (the leaves of its result), in order: how a global
	// input is cut into the shard each device is given (Shard), and how
	// the devices' outputs make the global one (Assemble).
	Params, Outputs []Sharding
	// ParamDims and OutputDims are the global shapes of those arrays.
	ParamDims, OutputDims [][]int64
	// Collectives lists every collective the partitioner added, in
	// program order.
	Collectives []Collective
	// Fallbacks lists the ops computed whole on every device because no
	// rule partitions them (their operands gathered first).
	Fallbacks []Fallback
	// Uneven lists the dimensions split over fewer devices than their
	// sharding asks, because those devices do not divide them (uneven.go).
	Uneven []Fallback
	// Shardings is the sharding the partition gave each array the entry
	// computes, in program order (tuples and shard_map values left out).
	Shardings []Placed
	// Manual says that the module has a shard_map body: code written for
	// one device's shard, whose collectives need the devices, so the
	// unpartitioned module has no meaning on one device.
	Manual bool
}

// Collective is one collective the partitioner emitted.
type Collective struct {
	Name   string // its instruction in the partitioned module
	Kind   string // all-reduce, reduce-scatter, all-gather
	For    string // the instruction of the input module it serves
	Groups [][]int
	Bytes  int64  // one device's operand bytes
	Elem   string // the operands' element type
}

// Placed is one instruction's result and how it is spread.
type Placed struct {
	Name, Opcode string
	Shape        *hlo.Shape // global
	Sharding     Sharding
}

// Fallback is an op computed whole on every device.
type Fallback struct {
	Pos    hlo.Pos
	Name   string
	Opcode string
	Why    string
}

// Error is an op the partitioner cannot express, with the sharding it met.
type Error struct {
	File     string
	Pos      hlo.Pos
	Name     string
	Opcode   string
	Sharding string
	Why      string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s:%s: %s (%s): cannot partition: %s", e.File, e.Pos, e.Name, e.Opcode, e.Why)
	if e.Sharding != "" {
		s += " (sharding " + e.Sharding + ")"
	}
	return s
}

// IsSharded reports whether a module carries shardings for the
// partitioner: Shardy meshes, or a sharding= that splits an array, on a
// module that declares no partitions of its own and was not partitioned
// already (AlreadyPartitioned).
func IsSharded(m *hlo.Module) bool {
	if d, err := hlo.ModuleDevices(m); err == nil && d.N() > 1 {
		return false
	}
	if AlreadyPartitioned(m) {
		return false
	}
	if n, _ := hlo.ShardedOver(m); n > 1 {
		return true
	}
	meshes, err := moduleMeshes(m)
	if err != nil {
		return true // let Partition say what is wrong
	}
	for _, mesh := range meshes {
		if mesh.N() > 1 && usesSdy(m) {
			return true
		}
	}
	return false
}

// AlreadyPartitioned reports whether m is the output of XLA's SPMD
// partitioner: its entry computation named <name>_spmd, as the partitioner
// renames it. Such a module's shapes are already a device's shards and
// its collectives explicit, but its parameters keep the sharding= of the
// global arrays they are shards of; a dump may also have lost the header's
// num_partitions (the MaxText steps of the shared corpus). Partitioning it
// again would cut every shard once more: it runs as it is, on the devices
// its collectives name (lowering.DeviceCount).
func AlreadyPartitioned(m *hlo.Module) bool {
	return m.Entry != nil && strings.HasSuffix(m.Entry.Name, "_spmd")
}

func usesSdy(m *hlo.Module) bool {
	for _, in := range m.Entry.Instructions {
		if _, ok := frontendAttr(in, "xla.sdy.sharding"); ok {
			return true
		}
		if t, _ := in.Attr("custom_call_target"); strings.Contains(t, "xla.sdy.") {
			return true
		}
	}
	return false
}

// moduleMeshes reads frontend_attributes={xla.sdy.meshes={...}}.
func moduleMeshes(m *hlo.Module) (map[string]*Mesh, error) {
	v, ok := m.Attr("frontend_attributes")
	if !ok {
		return nil, nil
	}
	i := strings.Index(v, "xla.sdy.meshes=")
	if i < 0 {
		return nil, nil
	}
	rest := v[i+len("xla.sdy.meshes="):]
	if strings.HasPrefix(rest, `"`) { // quoted form
		end := strings.Index(rest[1:], `"}`)
		if end < 0 {
			end = len(rest) - 1
		}
		return ParseSdyMeshes(rest[1 : end+1])
	}
	depth := 0
	for j := 0; j < len(rest); j++ {
		switch rest[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return ParseSdyMeshes(rest[:j+1])
			}
		}
	}
	return nil, fmt.Errorf("xla.sdy.meshes: unbalanced braces")
}

// frontendAttr reads one key of an instruction's frontend_attributes.
func frontendAttr(in *hlo.Instruction, key string) (string, bool) {
	v, ok := in.Attr("frontend_attributes")
	if !ok {
		return "", false
	}
	i := strings.Index(v, key+"=")
	if i < 0 {
		return "", false
	}
	rest := v[i+len(key)+1:]
	if strings.HasPrefix(rest, `"`) {
		for j := 1; j < len(rest); j++ {
			if rest[j] == '\\' {
				j++
				continue
			}
			if rest[j] == '"' {
				return rest[1:j], true
			}
		}
		return "", false
	}
	end := strings.IndexAny(rest, ",}")
	if end < 0 {
		end = len(rest)
	}
	return rest[:end], true
}

// Partition partitions a sharded module, read from file, for its devices
// (devices: the mesh's size; 0 takes it from the module's meshes or
// shardings). An op it cannot express is an *Error at its position.
func Partition(file string, m *hlo.Module, devices int) (*Result, error) {
	res, err := partition(m, devices)
	var pe *Error
	if errors.As(err, &pe) {
		pe.File = file
	} else if err != nil {
		err = fmt.Errorf("%s: %w", file, err)
	}
	return res, err
}

func partition(m *hlo.Module, devices int) (*Result, error) {
	p := &partitioner{m: m, vals: map[string]*val{}, taken: map[string]bool{}, tables: map[string]string{}, adders: map[string]string{}, watch: map[*val]func(Sharding){}, moved: map[string]*val{}}
	meshes, err := moduleMeshes(m)
	if err != nil {
		return nil, err
	}
	p.meshes = meshes
	for _, name := range sortedKeys(meshes) {
		if mesh := meshes[name]; mesh.N() > 1 {
			if p.mesh != nil && p.mesh.N() != mesh.N() {
				return nil, fmt.Errorf("the module's meshes have %d and %d devices: one mesh size is partitioned", p.mesh.N(), mesh.N())
			}
			if p.mesh == nil {
				p.mesh = mesh
			}
		}
	}
	if p.mesh == nil {
		n, _ := hlo.ShardedOver(m)
		if devices > 0 {
			n = devices
		}
		if n < 2 {
			return nil, fmt.Errorf("the module is not sharded over several devices: nothing to partition")
		}
		if p.mesh, err = NewMesh([]string{"devices"}, []int{n}); err != nil {
			return nil, err
		}
	}
	if devices > 0 && devices != p.mesh.N() {
		return nil, fmt.Errorf("the module is sharded over %d devices, not %d", p.mesh.N(), devices)
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			p.taken[in.Name] = true
		}
		p.taken[c.Name] = true
	}
	res := &Result{Mesh: p.mesh}
	p.res = res
	body := flatten(m)
	p.defs = map[string]*hlo.Instruction{}
	for _, in := range body {
		p.defs[in.Name] = in
		p.taken[in.Name] = true
	}
	p.hints = p.backwardHints(body)
	for _, in := range body {
		if err := p.instruction(in); err != nil {
			var pe *Error
			if errors.As(err, &pe) {
				return nil, err
			}
			return nil, p.errAt(in, "%v", err)
		}
		if v := p.vals[in.Name]; v != nil && v.tuple == nil && !v.manual {
			res.Shardings = append(res.Shardings, Placed{Name: in.Name, Opcode: in.Opcode, Shape: in.Shape, Sharding: v.sh})
		}
	}
	if err := p.root(); err != nil {
		return nil, err
	}
	src := p.text()
	out, err := hlo.Parse(m.Name+".spmd", src)
	if err != nil {
		return nil, fmt.Errorf("internal error: the partitioned module does not parse: %v", err)
	}
	ours := map[string]bool{}
	for _, c := range res.Collectives {
		ours[c.Name] = true
	}
	// What nothing reads goes, as XLA's DCE after its partitioner removes
	// it: a value made in one sharding and then anew in another, a
	// whole-array broadcast of zeros left behind. The partitioner's own
	// collectives go when dead; the program's stay.
	removed := hlo.RemoveDead(out, func(in *hlo.Instruction) bool { return ours[in.Name] })
	kept := res.Collectives[:0]
	for _, c := range res.Collectives {
		if !removed[c.Name] {
			kept = append(kept, c)
		}
	}
	res.Collectives = kept
	if out, res.Collectives, err = combineAllReduces(out, res.Collectives); err != nil {
		return nil, err
	}
	res.Module = out
	return res, nil
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// val is one value of the input module as the partitioned program holds
// it: the local instruction that holds this device's shard and the
// sharding, or the values of a tuple.
type val struct {
	name   string     // local instruction ("" for a tuple not made yet)
	global *hlo.Shape // the input module's shape
	sh     Sharding
	manual bool // a shard_map body's value: its local shape is its own
	tuple  []*val
	// bcast, for a broadcast's result, is its operand and the result
	// dimensions it fills: reshard broadcasts it anew in the sharding
	// wanted rather than moving the larger result.
	bcast *bcastOf
	// iota, for an iota's result, is the instruction: reshard makes the
	// shard wanted anew rather than cutting it (reiota).
	iota *hlo.Instruction
}

type bcastOf struct {
	op   *val
	dims []int64
}

type partitioner struct {
	// unevenSeen notes the uneven dimensions already listed (evenFor).
	unevenSeen map[string]bool
	m          *hlo.Module
	mesh       *Mesh
	meshes     map[string]*Mesh
	res        *Result
	vals       map[string]*val
	taken      map[string]bool
	lines      []string
	comps      []string          // computations the partitioner adds (reducers)
	adders     map[string]string // element type -> its add computation
	tables     map[string]string // offsets table text -> instruction
	pid        string
	chans      int
	defs       map[string]*hlo.Instruction // the flattened entry's instructions by name
	hints      map[string]Sharding         // what each value's users would have it be (hints.go)
	// tupleHints are hints for the elements of tuple values (a loop's
	// state), by the tuple's instruction and the element's index.
	tupleHints map[string]map[int64]Sharding
	at         *hlo.Instruction // the input instruction being partitioned
	// rootShardings, during a trial of a loop body (trialBody), collects
	// the shardings the body's result elements come out with.
	rootShardings *[]Sharding
	// wantedState, during such a trial, collects where the body moves
	// its parameter's elements; watch maps those elements' values to the
	// function reshard tells.
	wantedState map[int]Sharding
	watch       map[*val]func(Sharding)
	// moved memoizes reshard within the computation being emitted.
	moved map[string]*val
}

func (p *partitioner) errAt(in *hlo.Instruction, format string, a ...any) error {
	return &Error{Pos: in.Pos, Name: in.Name, Opcode: in.Opcode, Why: fmt.Sprintf(format, a...)}
}

// fresh is an unused instruction name made from base.
func (p *partitioner) fresh(base string) string {
	for i := 1; ; i++ {
		n := base + "." + strconv.Itoa(i)
		if !p.taken[n] {
			p.taken[n] = true
			return n
		}
	}
}

// emit appends name = shape rhs to the entry and returns name.
func (p *partitioner) emit(name string, s *hlo.Shape, rhs string) string {
	p.lines = append(p.lines, "  "+name+" = "+s.String()+" "+rhs)
	return name
}

func arrayShape(elem string, dims []int64) *hlo.Shape {
	return &hlo.Shape{Elem: elem, Dims: slices.Clone(dims)}
}

// local is v's shard shape.
func (p *partitioner) localShape(global *hlo.Shape, sh Sharding) (*hlo.Shape, error) {
	dims, err := p.mesh.LocalDims(sh, global.Dims)
	if err != nil {
		return nil, err
	}
	return arrayShape(global.Elem, dims), nil
}

func (p *partitioner) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule %s, num_partitions=%d\n\n", p.m.Name, p.mesh.N())
	for _, c := range p.m.Computations {
		if c == p.m.Entry {
			continue
		}
		b.WriteString((&hlo.Module{Computations: []*hlo.Computation{c}}).String())
		b.WriteByte('\n')
	}
	for _, c := range p.comps {
		b.WriteString(c + "\n")
	}
	b.WriteString("ENTRY " + p.m.Entry.Name + " {\n")
	for _, l := range p.lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// adder is a computation adding two scalars of elem: the reducer of a
// dot's partial sums.
func (p *partitioner) adder(elem string) string {
	if n, ok := p.adders[elem]; ok {
		return n
	}
	name := p.fresh("pulse.spmd.add." + elem)
	op := "add"
	if elem == "pred" {
		op = "or"
	}
	p.comps = append(p.comps, fmt.Sprintf("%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n  ROOT s = %s[] %s(a, b)\n}\n", name, elem, elem, elem, op))
	p.adders[elem] = name
	return name
}

// partitionID is the device's id as an instruction.
func (p *partitioner) partitionID() string {
	if p.pid == "" {
		p.pid = p.emit(p.fresh("pulse.spmd.partition"), arrayShape("u32", nil), "partition-id()")
	}
	return p.pid
}

// offset is an s32[] instruction holding, on each device, the value
// table[device].
func (p *partitioner) offset(table []int64) string {
	allSame := true
	for _, x := range table {
		allSame = allSame && x == table[0]
	}
	key := hlo.IntsText(table)
	if n, ok := p.tables[key]; ok {
		return n
	}
	var n string
	if allSame {
		n = p.emit(p.fresh("pulse.spmd.offset"), arrayShape("s32", nil), fmt.Sprintf("constant(%d)", table[0]))
	} else {
		t := p.emit(p.fresh("pulse.spmd.offsets"), arrayShape("s32", []int64{int64(len(table))}), "constant("+key+")")
		one := p.emit(p.fresh("pulse.spmd.offset"), arrayShape("s32", []int64{1}), fmt.Sprintf("dynamic-slice(%s, %s), dynamic_slice_sizes={1}", t, p.partitionID()))
		n = p.emit(p.fresh("pulse.spmd.offset"), arrayShape("s32", nil), "reshape("+one+")")
	}
	p.tables[key] = n
	return n
}

func groupsText(groups [][]int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, g := range groups {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for j, d := range g {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(d))
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.String()
}

// reshard moves v to sharding to, emitting the plan's collectives and
// slices.
func (p *partitioner) reshard(v *val, to Sharding) (*val, error) {
	if v.tuple != nil {
		return nil, fmt.Errorf("internal error: reshard of a tuple")
	}
	if v.manual {
		return nil, fmt.Errorf("a value of a shard_map body is used outside it")
	}
	if v.sh.Equal(to) {
		return v, nil
	}
	if f := p.watch[v]; f != nil && extends(v.sh, to) {
		f(to)
	}
	// The same move of the same value is made once: a value two users
	// want in one split (attention probabilities read by two dots) is
	// exchanged once, as XLA's CSE after partitioning leaves it.
	key := v.name + " " + p.mesh.Format(v.sh) + " -> " + p.mesh.Format(to)
	if r, ok := p.moved[key]; ok {
		return r, nil
	}
	r, err := p.move(v, to)
	if err == nil {
		p.moved[key] = r
	}
	return r, err
}

// move is reshard without its memo.
func (p *partitioner) move(v *val, to Sharding) (*val, error) {
	if r, ok := p.rebroadcast(v, to); ok {
		return r, nil
	}
	if r, ok := p.reiota(v, to); ok {
		return r, nil
	}
	steps, err := p.mesh.planReshard(v.sh, to)
	if err != nil {
		return nil, err
	}
	cur := &val{name: v.name, global: v.global, sh: v.sh.Clone()}
	for _, s := range steps {
		before, err := p.localShape(cur.global, Sharding{Dims: cur.sh.Dims})
		if err != nil {
			return nil, err
		}
		next := cur.sh.Clone()
		var rhs, kind string
		var groups [][]int
		switch s.Kind {
		case stepAllReduce:
			next.Partial, next.Reducer = nil, ""
			groups = p.mesh.groups(s.Axes)
			kind = "all-reduce"
			rhs = fmt.Sprintf("all-reduce(%s), channel_id=%d, replica_groups=%s, use_global_device_ids=true, to_apply=%s", cur.name, p.channel(), groupsText(groups), s.Reducer)
		case stepReduceScatter:
			next.Partial, next.Reducer = nil, ""
			next.Dims[s.Dim] = append(next.Dims[s.Dim], s.Axes...)
			groups = p.mesh.groups(s.Axes)
			kind = "reduce-scatter"
			rhs = fmt.Sprintf("reduce-scatter(%s), channel_id=%d, replica_groups=%s, use_global_device_ids=true, dimensions={%d}, to_apply=%s", cur.name, p.channel(), groupsText(groups), s.Dim, s.Reducer)
		case stepAllToAll:
			next.Dims[s.Dim] = next.Dims[s.Dim][:len(next.Dims[s.Dim])-len(s.Axes)]
			next.Dims[s.To] = append(next.Dims[s.To], s.Axes...)
			name, err := p.allToAll(cur.name, before, s)
			if err != nil {
				return nil, err
			}
			cur = &val{name: name, global: cur.global, sh: next}
			continue
		case stepAllGather:
			next.Dims[s.Dim] = next.Dims[s.Dim][:len(next.Dims[s.Dim])-len(s.Axes)]
			groups = p.mesh.groups(s.Axes)
			kind = "all-gather"
			rhs = fmt.Sprintf("all-gather(%s), channel_id=%d, replica_groups=%s, dimensions={%d}, use_global_device_ids=true", cur.name, p.channel(), groupsText(groups), s.Dim)
		case stepSlice:
			var offs []string
			for d := range next.Dims {
				table := make([]int64, p.mesh.N())
				if len(s.Cut[d]) > 0 {
					k := int64(p.mesh.product(s.Cut[d]))
					if before.Dims[d]%k != 0 {
						return nil, fmt.Errorf("dimension %d of size %d does not split evenly over %d devices (uneven shardings are not partitioned yet)", d, before.Dims[d], k)
					}
					for dev := range table {
						table[dev] = int64(p.mesh.index(dev, s.Cut[d])) * (before.Dims[d] / k)
					}
				}
				offs = append(offs, p.offset(table))
				next.Dims[d] = append(next.Dims[d], s.Cut[d]...)
			}
			after, err := p.localShape(cur.global, next)
			if err != nil {
				return nil, err
			}
			rhs = fmt.Sprintf("dynamic-slice(%s, %s), dynamic_slice_sizes={%s}", cur.name, strings.Join(offs, ", "), strings.Trim(hlo.IntsText(after.Dims), "{}"))
		}
		after, err := p.localShape(cur.global, Sharding{Dims: next.Dims})
		if err != nil {
			return nil, err
		}
		name := p.emit(p.fresh(baseName(v.name)), after, rhs)
		if kind != "" {
			p.res.Collectives = append(p.res.Collectives, Collective{Name: name, Kind: kind, For: p.at.Name, Groups: groups,
				Bytes: before.Elems() * int64(elemSize(before.Elem)), Elem: before.Elem})
		}
		cur = &val{name: name, global: cur.global, sh: next}
	}
	return cur, nil
}

// rebroadcast moves a broadcast's result to sharding to by moving its
// operand, which is smaller, and broadcasting again: a norm's weight
// split as its parameter is gathers its 8 KiB rather than exchanging the
// activation-sized broadcast all-to-all, and zeros made whole and wanted
// split are made split. (The dimensions the broadcast adds split as
// they like: each device fills its own part.) It reports false when the
// operand cannot take the split.
func (p *partitioner) rebroadcast(v *val, to Sharding) (*val, bool) {
	b := v.bcast
	if b == nil || len(to.Partial) > 0 || len(v.sh.Partial) > 0 {
		return nil, false
	}
	src := Replicated(len(b.op.global.Dims))
	for k, d := range b.dims {
		if k >= len(src.Dims) || int(d) >= len(to.Dims) {
			return nil, false
		}
		src.Dims[k] = to.Dims[d]
	}
	local, err := p.localShape(v.global, to)
	if err != nil {
		return nil, false
	}
	if _, err := p.localShape(b.op.global, src); err != nil {
		return nil, false
	}
	r, err := p.reshard(b.op, src)
	if err != nil {
		return nil, false
	}
	name := p.emit(p.fresh(baseName(v.name)), local, fmt.Sprintf("broadcast(%s), dimensions=%s", r.name, hlo.IntsText(b.dims)))
	return &val{name: name, global: v.global, sh: to.Clone(), bcast: &bcastOf{op: r, dims: b.dims}}, true
}

// allToAll moves the split over s.Axes from dimension s.Dim of the local
// array x (shape local) to dimension s.To, as XLA's partitioner does: cut
// s.To into g pieces as a new major dimension, exchange piece j with the
// group's j-th device (all-to-all along that dimension), and make the g
// pieces received the major part of s.Dim.
func (p *partitioner) allToAll(x string, local *hlo.Shape, s step) (string, error) {
	g := int64(p.mesh.product(s.Axes))
	a, b := s.Dim, s.To
	dims := local.Dims
	if dims[b]%g != 0 {
		return "", fmt.Errorf("dimension %d of size %d does not split evenly over %d devices (uneven shardings are not partitioned yet)", b, dims[b], g)
	}
	m := slices.Clone(dims) // the local shape with s.To cut
	m[b] /= g
	split := slices.Concat(dims[:b], []int64{g, m[b]}, dims[b+1:])
	r1 := p.emit(p.fresh(x+".a2a"), arrayShape(local.Elem, split), "reshape("+x+")")
	perm := []int64{int64(b)}
	for d := range split {
		if d != b {
			perm = append(perm, int64(d))
		}
	}
	front := append([]int64{g}, m...)
	t1 := p.transposeUnlessIdentity(x, r1, local.Elem, front, perm)
	groups := p.mesh.groups(s.Axes)
	ex := p.emit(p.fresh(x+".a2a"), arrayShape(local.Elem, front), fmt.Sprintf("all-to-all(%s), channel_id=%d, replica_groups=%s, dimensions={0}", t1, p.channel(), groupsText(groups)))
	p.res.Collectives = append(p.res.Collectives, Collective{Name: ex, Kind: "all-to-all", For: p.at.Name, Groups: groups,
		Bytes: hlo.Prod(front) * int64(elemSize(local.Elem)), Elem: local.Elem})
	// The received pieces, g major, move to just before s.Dim and merge
	// with it.
	var back []int64
	for d := 1; d <= a; d++ {
		back = append(back, int64(d))
	}
	back = append(back, 0)
	for d := a + 1; d < len(front); d++ {
		back = append(back, int64(d))
	}
	moved := slices.Concat(m[:a], []int64{g}, m[a:])
	t2 := p.transposeUnlessIdentity(x, ex, local.Elem, moved, back)
	out := slices.Clone(m)
	out[a] *= g
	return p.emit(p.fresh(x+".a2a"), arrayShape(local.Elem, out), "reshape("+t2+")"), nil
}

// transposeUnlessIdentity emits the transpose an all-to-all needs around
// it, or nothing when the permutation keeps every dimension in place (the
// split moves to or from the major dimension).
func (p *partitioner) transposeUnlessIdentity(x, operand, elem string, shape, perm []int64) string {
	identity := true
	for i, d := range perm {
		identity = identity && d == int64(i)
	}
	if identity {
		return operand
	}
	return p.emit(p.fresh(x+".a2a"), arrayShape(elem, shape), fmt.Sprintf("transpose(%s), dimensions=%s", operand, hlo.IntsText(perm)))
}

func (p *partitioner) channel() int {
	p.chans++
	return p.chans
}

// baseName strips the partitioner's own numbering from a name.
func baseName(n string) string {
	return strings.TrimPrefix(n, "%")
}

func elemSize(elem string) int {
	if e, ok := hlo.LookupElem(elem); ok && e.Bits > 0 {
		return max(e.Bits/8, 1)
	}
	return 4
}
