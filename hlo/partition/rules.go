package partition

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// instruction partitions one instruction of the entry computation.
func (p *partitioner) instruction(in *hlo.Instruction) error {
	if err := p.rule(in); err != nil {
		return err
	}
	v := p.vals[in.Name]
	// An op's own sharding (sharding= on any instruction, as GSPMD dumps
	// carry them, or Shardy's on a StableHLO op) is a constraint on its
	// result.
	if v != nil && v.tuple == nil && !v.manual && in.Opcode != hlo.OpParameter && in.Opcode != "custom-call" {
		if sh, ok, err := p.shardingOf(in, len(in.Shape.Dims)); err == nil && ok && !in.Shape.IsTuple {
			r, err := p.reshard(v, sh)
			if err != nil {
				return p.errAt(in, "%v", err)
			}
			p.vals[in.Name], v = r, r
		}
	}
	// Cut the result down to what its users want when that is a local
	// slice (hints.go).
	if h, ok := p.hints[in.Name]; ok && v != nil && v.tuple == nil && !v.manual && extends(v.sh, h) {
		r, err := p.reshard(v, h)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		p.vals[in.Name] = r
	}
	return nil
}

// rule partitions one instruction by its op's rule.
func (p *partitioner) rule(in *hlo.Instruction) error {
	p.at = in
	ops := make([]*val, len(in.Operands))
	for i, o := range in.Operands {
		ops[i] = p.vals[o.Name]
		if ops[i] == nil {
			return p.errAt(in, "operand %s is not defined before it", o.Name)
		}
	}
	if in.Shape == nil {
		return p.errAt(in, "the instruction has no shape")
	}
	switch op := in.Opcode; {
	case op == hlo.OpParameter:
		return p.parameter(in)
	case op == "get-tuple-element":
		idx, err := hlo.IntAttr(in, "index")
		if err != nil || ops[0].tuple == nil || idx < 0 || int(idx) >= len(ops[0].tuple) {
			return p.errAt(in, "get-tuple-element of a value that is not a tuple of that many elements")
		}
		p.vals[in.Name] = ops[0].tuple[idx]
		return nil
	case op == "tuple":
		p.vals[in.Name] = &val{global: in.Shape, tuple: ops}
		return nil
	case op == "custom-call":
		return p.customCall(in, ops)
	case op == "call" && anyManual(ops):
		return p.manualCall(in, ops)
	}
	if anyManual(ops) {
		return p.errAt(in, "a value of a shard_map body is used outside it")
	}
	switch op := in.Opcode; {
	case hlo.IsElementwise(op) || op == "copy":
		return p.elementwise(in, ops)
	case op == "broadcast":
		return p.broadcast(in, ops)
	case op == "iota":
		return p.iota(in)
	case op == "transpose":
		return p.transpose(in, ops)
	case op == "reshape":
		return p.reshape(in, ops)
	case op == "reduce":
		return p.reduce(in, ops)
	case op == "dot":
		return p.dot(in, ops)
	case op == "while":
		return p.while(in, ops)
	case op == "opt-barrier":
		return p.barrier(in, ops)
	case op == "gather":
		return p.gather(in, ops)
	case op == "convolution":
		return p.convolution(in, ops)
	case op == "scatter":
		return p.scatter(in, ops)
	case op == "slice", op == "pad", op == "reverse", op == "concatenate", op == "sort", op == "dynamic-slice",
		op == "dynamic-update-slice", op == "reduce-window":
		return p.passThrough(in, ops)
	}
	return p.replicated(in, ops, "no partitioning rule for "+in.Opcode)
}

func anyManual(ops []*val) bool {
	for _, o := range ops {
		if o.manual || (o.tuple != nil && anyManual(o.tuple)) {
			return true
		}
	}
	return false
}

// shardingOf reads an instruction's sharding: Shardy's frontend attribute
// when the module has meshes, else sharding=. ok is false when it has
// none.
func (p *partitioner) shardingOf(in *hlo.Instruction, rank int) (Sharding, bool, error) {
	if text, ok := frontendAttr(in, "xla.sdy.sharding"); ok && p.meshes != nil {
		var s Sharding
		var err error
		if strings.Contains(text, "sharding_per_value") {
			var all []Sharding
			all, _, err = ParseSdyShardings(text, p.meshes)
			if err == nil && len(all) != 1 {
				err = fmt.Errorf("%d shardings for one value", len(all))
			}
			if err == nil {
				s = all[0]
			}
		} else {
			s, _, err = ParseSdySharding(text, p.meshes)
		}
		if err == nil && len(s.Dims) != rank {
			err = fmt.Errorf("sharding %s for an array of rank %d", text, rank)
		}
		if err == nil {
			s = p.evenFor(in, in.Shape, s)
		}
		return s, err == nil, err
	}
	text, ok := in.Attr("sharding")
	if !ok {
		return Sharding{}, false, nil
	}
	hs, err := ParseHLOSharding(text, rank, p.mesh)
	if err != nil {
		return Sharding{}, false, err
	}
	if hs.Manual {
		return Sharding{}, false, fmt.Errorf("a manual sharding outside a shard_map")
	}
	return p.evenFor(in, in.Shape, hs.Sharding), true, nil
}

func (p *partitioner) parameter(in *hlo.Instruction) error {
	if in.Shape.IsTuple {
		if text, ok := in.Attr("sharding"); ok && strings.Contains(text, "devices") {
			return p.errAt(in, "a sharded tuple parameter is not partitioned yet")
		}
		return p.replicated(in, nil, "")
	}
	sh, ok, err := p.shardingOf(in, len(in.Shape.Dims))
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	if !ok {
		sh = Replicated(len(in.Shape.Dims))
	}
	local, err := p.localShape(in.Shape, sh)
	if err != nil {
		return &Error{Pos: in.Pos, Name: in.Name, Opcode: in.Opcode, Sharding: p.mesh.Format(sh), Why: err.Error()}
	}
	p.emit(in.Name, local, fmt.Sprintf("parameter(%d)", in.ParamNumber))
	p.vals[in.Name] = &val{name: in.Name, global: in.Shape, sh: sh}
	k := int(in.ParamNumber)
	for len(p.res.Params) <= k {
		p.res.Params = append(p.res.Params, Sharding{})
		p.res.ParamDims = append(p.res.ParamDims, nil)
	}
	p.res.Params[k], p.res.ParamDims[k] = sh, in.Shape.Dims
	return nil
}

// copyOf emits in with the given operands and shape (its sharding=
// dropped, attributes replaced as given).
func (p *partitioner) copyOf(in *hlo.Instruction, shape *hlo.Shape, operands []string, replace map[string]string) string {
	c := &hlo.Instruction{Name: in.Name, Shape: shape, Opcode: in.Opcode, ParamNumber: in.ParamNumber, Literal: in.Literal}
	for _, o := range operands {
		c.Operands = append(c.Operands, &hlo.Operand{Name: o})
	}
	for _, a := range in.Attrs {
		if a.Key == "sharding" {
			continue
		}
		if v, ok := replace[a.Key]; ok {
			a.Value = v
		}
		c.Attrs = append(c.Attrs, a)
	}
	p.lines = append(p.lines, "  "+c.String())
	return in.Name
}

// replicated computes in whole on every device, its operands gathered.
func (p *partitioner) replicated(in *hlo.Instruction, ops []*val, why string) error {
	var names []string
	gathered := false
	for _, o := range ops {
		r, moved, err := p.replicate(o)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		gathered = gathered || moved
		names = append(names, r.name)
	}
	if gathered && why != "" {
		p.res.Fallbacks = append(p.res.Fallbacks, Fallback{Pos: in.Pos, Name: in.Name, Opcode: in.Opcode, Why: why})
	}
	name := p.copyOf(in, in.Shape, names, nil)
	p.vals[in.Name] = p.replicatedVal(name, in.Shape)
	return nil
}

// replicatedVal is the value of a replicated instruction (a tuple's
// elements taken out with get-tuple-element).
func (p *partitioner) replicatedVal(name string, s *hlo.Shape) *val {
	v := &val{name: name, global: s}
	if !s.IsTuple {
		v.sh = Replicated(len(s.Dims))
		return v
	}
	for i, e := range s.Tuple {
		n := name
		n = p.emit(p.fresh(name+".gte"), e, fmt.Sprintf("get-tuple-element(%s), index=%d", name, i))
		v.tuple = append(v.tuple, p.replicatedVal(n, e))
	}
	return v
}

// replicate gathers v whole on every device (a tuple element by element,
// made into a tuple when it is not one yet); moved says whether anything
// was gathered.
func (p *partitioner) replicate(v *val) (*val, bool, error) {
	if v.manual {
		return nil, false, fmt.Errorf("a value of a shard_map body is used outside it")
	}
	if v.tuple == nil {
		if v.sh.IsReplicated() {
			return v, false, nil
		}
		r, err := p.reshard(v, Replicated(len(v.sh.Dims)))
		return r, true, err
	}
	moved := false
	var names []string
	var elems []*val
	changed := v.name == ""
	for _, e := range v.tuple {
		r, m, err := p.replicate(e)
		if err != nil {
			return nil, false, err
		}
		moved = moved || m
		changed = changed || r != e
		names = append(names, r.name)
		elems = append(elems, r)
	}
	if !changed {
		return v, moved, nil
	}
	n := p.emit(p.fresh("pulse.spmd.tuple"), v.global, "tuple("+strings.Join(names, ", ")+")")
	return &val{name: n, global: v.global, tuple: elems}, moved, nil
}

// dimsOnly is s without its partial axes (what it becomes once combined).
func dimsOnly(s Sharding) Sharding {
	c := s.Clone()
	c.Partial, c.Reducer = nil, ""
	return c
}

// elementwise: every operand moves to the one sharding that costs least
// to reach (ties: the most split); scalar operands of clamp and select
// stay whole.
func (p *partitioner) elementwise(in *hlo.Instruction, ops []*val) error {
	rank := len(in.Shape.Dims)
	var best Sharding
	bestCost := int64(-1)
	bestSplit := 0
	for _, c := range ops {
		if len(c.sh.Dims) != rank {
			continue
		}
		cand := dimsOnly(c.sh)
		if _, err := p.mesh.LocalDims(cand, in.Shape.Dims); err != nil {
			continue
		}
		var cost int64
		for _, o := range ops {
			if len(o.sh.Dims) == rank {
				cost += p.mesh.reshardCost(o.sh, cand, o.global.Dims, int64(elemSize(o.global.Elem)))
			}
		}
		split := len(cand.used())
		if bestCost < 0 || cost < bestCost || cost == bestCost && split > bestSplit {
			best, bestCost, bestSplit = cand, cost, split
		}
	}
	if bestCost < 0 {
		best = Replicated(rank)
	}
	if h, ok := p.hints[in.Name]; ok && extends(best, h) {
		best = h // the operands come as best is: cutting them further is local
	}
	var names []string
	for _, o := range ops {
		to := best
		if len(o.sh.Dims) != rank {
			to = Replicated(len(o.sh.Dims))
		}
		r, err := p.reshard(o, to)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		names = append(names, r.name)
	}
	return p.emitAs(in, best, names, nil)
}

// emitAs emits in on its operands' shards, its result sharded as out.
func (p *partitioner) emitAs(in *hlo.Instruction, out Sharding, names []string, replace map[string]string) error {
	local, err := p.localShape(in.Shape, out)
	if err != nil {
		return &Error{Pos: in.Pos, Name: in.Name, Opcode: in.Opcode, Sharding: p.mesh.Format(out), Why: err.Error()}
	}
	name := p.copyOf(in, local, names, replace)
	p.vals[in.Name] = &val{name: name, global: in.Shape, sh: out}
	return nil
}

func (p *partitioner) broadcast(in *hlo.Instruction, ops []*val) error {
	dims, err := hlo.ListAttr(in, "dimensions")
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	src := dimsOnly(ops[0].sh)
	out := Replicated(len(in.Shape.Dims))
	for k, d := range dims {
		if int(d) < len(out.Dims) && k < len(src.Dims) {
			out.Dims[d] = src.Dims[k]
		}
	}
	// Broadcast straight into the split its users want (a mask or a
	// constant broadcast to a split array is made split, not made whole
	// and then cut).
	if h, ok := p.hints[in.Name]; ok && extends(out, h) {
		out = h
		src = Replicated(len(src.Dims))
		for k, d := range dims {
			if k < len(src.Dims) {
				src.Dims[k] = h.Dims[d]
			}
		}
	}
	r, err := p.reshard(ops[0], src)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	if err := p.emitAs(in, out, []string{r.name}, nil); err != nil {
		return err
	}
	p.vals[in.Name].bcast = &bcastOf{op: r, dims: dims}
	return nil
}

func (p *partitioner) transpose(in *hlo.Instruction, ops []*val) error {
	perm, err := hlo.ListAttr(in, "dimensions")
	if err != nil || len(perm) != len(in.Shape.Dims) {
		return p.errAt(in, "transpose dimensions")
	}
	src := dimsOnly(ops[0].sh)
	out := Replicated(len(perm))
	for i, d := range perm {
		out.Dims[i] = src.Dims[d]
	}
	r, err := p.reshard(ops[0], src)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	return p.emitAs(in, out, []string{r.name}, nil)
}

// reshape keeps a split dimension split when it survives the reshape as
// the major part of an output dimension (kept whole, merged with minor
// dimensions, or split into major and minor ones) and the split divides
// it; other split dimensions are gathered first.
func (p *partitioner) reshape(in *hlo.Instruction, ops []*val) error {
	inD, outD := ops[0].global.Dims, in.Shape.Dims
	target := dimsOnly(ops[0].sh)
	out := Replicated(len(outD))
	prodOf := func(d []int64) int64 { return hlo.Prod(d) }
	for i := 0; i < len(target.Dims); i++ {
		axes := target.Dims[i]
		if len(axes) == 0 {
			continue
		}
		k := int64(p.mesh.product(axes))
		pre := prodOf(inD[:i])
		j := -1
		for c := range outD {
			if prodOf(outD[:c]) == pre && outD[c] != 1 {
				j = c
				break
			}
		}
		if j < 0 || min(inD[i], outD[j])%k != 0 {
			target.Dims[i] = nil
			continue
		}
		if outD[j] > inD[i] { // merged with the dims after it: they must be whole
			m := inD[i]
			for l := i + 1; l < len(inD) && m < outD[j]; l++ {
				m *= inD[l]
				target.Dims[l] = nil
			}
		}
		out.Dims[j] = axes
	}
	r, err := p.reshard(ops[0], target)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	return p.emitAs(in, out, []string{r.name}, nil)
}

// reduce: dimensions kept stay split as the operand's; a reduced
// dimension that was split leaves each device a partial result, combined
// later by the reduction's own computation (an all-reduce or a
// reduce-scatter where the consumer wants one), when that computation is
// a commutative sum, product, max, min, and or or and the initial value is
// its identity. Otherwise the reduced dimensions are gathered first.
func (p *partitioner) reduce(in *hlo.Instruction, ops []*val) error {
	n := len(ops) / 2
	dims, err := hlo.ListAttr(in, "dimensions")
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	reduced := map[int]bool{}
	for _, d := range dims {
		reduced[int(d)] = true
	}
	base := dimsOnly(ops[0].sh)
	reducer, _ := in.Attr("to_apply")
	partialOK := n == 1 && p.identityInit(in, reducer)
	target := base.Clone()
	out := Sharding{}
	for d, axes := range base.Dims {
		if !reduced[d] {
			out.Dims = append(out.Dims, axes)
			continue
		}
		if partialOK {
			out.Partial = append(out.Partial, axes...)
		} else {
			target.Dims[d] = nil
		}
	}
	if out.Dims == nil {
		out.Dims = [][]int{}
	}
	slices.Sort(out.Partial)
	if len(out.Partial) > 0 {
		out.Reducer = reducer
	}
	var names []string
	for i, o := range ops {
		to := target
		if i >= n {
			to = Replicated(len(o.global.Dims))
		}
		r, err := p.reshard(o, to)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		names = append(names, r.name)
	}
	if n == 1 {
		local, err := p.localShape(in.Shape, out)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		name := p.copyOf(in, local, names, nil)
		p.vals[in.Name] = &val{name: name, global: in.Shape, sh: out}
		return nil
	}
	return p.emitTupleAs(in, out, names, nil) // variadic: every result sharded as out
}

// emitTupleAs emits an op of several results, each sharded as out, and
// takes its elements out.
func (p *partitioner) emitTupleAs(in *hlo.Instruction, out Sharding, names []string, replace map[string]string) error {
	var elems []*hlo.Shape
	for _, e := range in.Shape.Tuple {
		l, err := p.localShape(e, out)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		elems = append(elems, l)
	}
	name := p.copyOf(in, &hlo.Shape{IsTuple: true, Tuple: elems}, names, replace)
	v := &val{name: name, global: in.Shape}
	for i, e := range in.Shape.Tuple {
		g := p.emit(p.fresh(name+".gte"), elems[i], fmt.Sprintf("get-tuple-element(%s), index=%d", name, i))
		v.tuple = append(v.tuple, &val{name: g, global: e, sh: out.Clone()})
	}
	p.vals[in.Name] = v
	return nil
}

// identityInit: the reduction's computation combines its two parameters
// with one commutative op and the initial value is that op's identity.
func (p *partitioner) identityInit(in *hlo.Instruction, reducer string) bool {
	c := p.m.Computation(strings.TrimPrefix(reducer, "%"))
	if c == nil || c.Root == nil || len(c.Instructions) != 3 || len(c.Root.Operands) != 2 {
		return false
	}
	init := p.defs[in.Operands[1].Name]
	if init == nil || init.Opcode != hlo.OpConstant {
		return false
	}
	lit := strings.TrimSpace(init.Literal)
	f, err := strconv.ParseFloat(lit, 64)
	if lit == "true" {
		f, err = 1, nil
	} else if lit == "false" {
		f, err = 0, nil
	} else if lit == "-inf" {
		f, err = math.Inf(-1), nil
	} else if lit == "inf" {
		f, err = math.Inf(1), nil
	}
	if err != nil {
		return false
	}
	elem := init.Shape.Elem
	e, _ := hlo.LookupElem(elem)
	lowest, highest := math.Inf(-1), math.Inf(1)
	switch e.Kind {
	case hlo.KindSigned:
		lowest, highest = -math.Pow(2, float64(e.Bits-1)), math.Pow(2, float64(e.Bits-1))-1
	case hlo.KindUnsigned:
		lowest, highest = 0, math.Pow(2, float64(e.Bits))-1
	case hlo.KindPred:
		lowest, highest = 0, 1
	}
	switch c.Root.Opcode {
	case "add", "or":
		return f == 0
	case "multiply", "and":
		return f == 1
	case "maximum":
		return f == lowest || (e.Kind == hlo.KindFloat && f <= -3.3e38)
	case "minimum":
		return f == highest || (e.Kind == hlo.KindFloat && f >= 3.3e38)
	}
	return false
}

// passThrough handles ops that work along some dimensions and leave the
// others alone (slice, pad, reverse, concatenate, sort, dynamic-slice and
// -update-slice, reduce-window): the dimensions left alone keep their
// split, the ones worked along are gathered; every array operand of the
// result's rank moves to that sharding, index operands stay whole.
func (p *partitioner) passThrough(in *hlo.Instruction, ops []*val) error {
	rank := len(ops[0].global.Dims)
	free := make([]bool, rank)
	for i := range free {
		free[i] = true
	}
	dimList := func(key string) []int64 {
		v, _ := hlo.OptList(in, key)
		return v
	}
	var sliceSpec [][3]int64
	switch in.Opcode {
	case "slice":
		spec, err := parseSlice(in)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		sliceSpec = spec
		for d, s := range spec {
			free[d] = s[0] == 0 && s[1] == ops[0].global.Dims[d] && s[2] == 1
		}
	case "pad":
		v, _ := in.Attr("padding")
		for d, f := range strings.Split(v, "x") {
			if d < rank {
				free[d] = strings.Trim(f, "_0") == ""
			}
		}
	case "reverse", "concatenate", "sort":
		for _, d := range dimList("dimensions") {
			free[d] = false
		}
	case "dynamic-slice":
		for d, s := range dimList("dynamic_slice_sizes") {
			free[d] = s == ops[0].global.Dims[d]
		}
	case "dynamic-update-slice":
		for d := range free {
			free[d] = ops[1].global.Dims[d] == ops[0].global.Dims[d]
		}
	case "reduce-window":
		v, _ := in.Attr("window")
		w, err := hlo.ParseWindow(v, rank)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		for d := range free {
			free[d] = w.Size[d] == 1 && w.Stride[d] == 1 && w.PadLo[d] == 0 && w.PadHi[d] == 0 && w.LhsDil[d] == 1 && w.RhsDil[d] == 1
		}
	}
	target := dimsOnly(ops[0].sh)
	for d := range target.Dims {
		if !free[d] {
			target.Dims[d] = nil
		}
	}
	if in.Opcode == "dynamic-update-slice" {
		target = p.updateTarget(target, ops, free)
	}
	arrays := len(ops)
	switch in.Opcode {
	case "dynamic-slice", "pad":
		arrays = 1
	case "dynamic-update-slice":
		arrays = 2
	case "reduce-window":
		arrays = len(ops) / 2
	}
	var names []string
	for i, o := range ops {
		to := target
		if i >= arrays {
			to = Replicated(len(o.global.Dims))
		}
		if i > 0 && i < arrays && in.Opcode == "dynamic-update-slice" {
			if _, err := p.mesh.LocalDims(to, o.global.Dims); err != nil {
				to = Replicated(rank)
				target = to
			}
		}
		r, err := p.reshard(o, to)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		names = append(names, r.name)
	}
	replace := map[string]string{}
	localIn, err := p.mesh.LocalDims(target, ops[0].global.Dims)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	switch in.Opcode {
	case "slice":
		var parts []string
		for d, s := range sliceSpec {
			if free[d] {
				s[1] = localIn[d]
			}
			parts = append(parts, fmt.Sprintf("[%d:%d:%d]", s[0], s[1], s[2]))
		}
		replace["slice"] = "{" + strings.Join(parts, ",") + "}"
	case "dynamic-slice":
		sizes := dimList("dynamic_slice_sizes")
		for d := range sizes {
			if free[d] {
				sizes[d] = localIn[d]
			}
		}
		replace["dynamic_slice_sizes"] = hlo.IntsText(sizes)
	}
	if in.Shape.IsTuple { // sort of several operands, reduce-window of several
		return p.emitTupleAs(in, target, names, replace)
	}
	return p.emitAs(in, target, names, replace)
}

// barrier keeps an optimization barrier (rematerialization's fence) on
// the values as they are split: it orders work and changes no value.
func (p *partitioner) barrier(in *hlo.Instruction, ops []*val) error {
	v := ops[0]
	if v.tuple == nil {
		r, err := p.reshard(v, dimsOnly(v.sh))
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		return p.emitAs(in, r.sh, []string{r.name}, nil)
	}
	var names []string
	var locals []*hlo.Shape
	var elems []*val
	for _, e := range v.tuple {
		if e.tuple != nil || e.manual {
			return p.replicated(in, ops, "an optimization barrier over nested tuples is computed whole")
		}
		r, err := p.reshard(e, dimsOnly(e.sh))
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		l, err := p.localShape(r.global, r.sh)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		names, locals, elems = append(names, r.name), append(locals, l), append(elems, r)
	}
	shape := &hlo.Shape{IsTuple: true, Tuple: locals}
	t := p.emit(p.fresh(in.Name+".in"), shape, "tuple("+strings.Join(names, ", ")+")")
	name := p.copyOf(in, shape, []string{t}, nil)
	out := &val{name: name, global: in.Shape}
	for i, e := range elems {
		g := p.emit(p.fresh(name+".gte"), locals[i], fmt.Sprintf("get-tuple-element(%s), index=%d", name, i))
		out.tuple = append(out.tuple, &val{name: g, global: e.global, sh: e.sh})
	}
	p.vals[in.Name] = out
	return nil
}

// parseSlice reads slice={[start:limit:stride], ...}.
func parseSlice(in *hlo.Instruction) ([][3]int64, error) {
	v, _ := in.Attr("slice")
	var out [][3]int64
	for _, f := range strings.Split(strings.Trim(v, "{}"), ",") {
		f = strings.Trim(strings.TrimSpace(f), "[]")
		parts := strings.Split(f, ":")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, fmt.Errorf("slice %s", v)
		}
		s := [3]int64{0, 0, 1}
		for i, x := range parts {
			n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("slice %s", v)
			}
			s[i] = n
		}
		out = append(out, s)
	}
	return out, nil
}

// updateTarget is the sharding a dynamic-update-slice runs in: its
// operand's, or its update's where that splits the dimensions they share
// further (a scan writing batch-split rows into a stacked array made
// whole), as XLA's propagation takes the more specific of the two rather
// than gathering the update.
func (p *partitioner) updateTarget(target Sharding, ops []*val, free []bool) Sharding {
	u := dimsOnly(ops[1].sh)
	for d := range u.Dims {
		if !free[d] {
			u.Dims[d] = nil
		}
	}
	if !extends(target, u) {
		return target
	}
	if _, err := p.mesh.LocalDims(u, ops[0].global.Dims); err != nil {
		return target
	}
	return u
}
