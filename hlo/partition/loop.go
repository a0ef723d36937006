package partition

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// while partitions a loop whose state is a flat tuple of arrays: each
// element keeps the sharding its initial value has, through every
// iteration. The body and the condition are partitioned as computations
// of their own, their parameter's elements coming in so sharded; the
// body's results move back to those shardings before the next iteration
// (as XLA's partitioner fixes a loop's state sharding), the condition's
// predicate is made whole. So a scan over layers gathers each layer's
// weights inside the loop, as XLA's FSDP program does, instead of
// gathering every layer's before it.
func (p *partitioner) while(in *hlo.Instruction, ops []*val) error {
	if len(ops) != 1 || !in.Shape.IsTuple || ops[0].tuple == nil {
		return p.replicated(in, ops, "a loop whose state is not a tuple is computed whole")
	}
	state := ops[0]
	for _, e := range state.tuple {
		if e.tuple != nil || e.manual {
			return p.replicated(in, ops, "a loop with nested tuples in its state is computed whole")
		}
	}
	body := p.m.Computation(strings.TrimPrefix(attr(in, "body"), "%"))
	cond := p.m.Computation(strings.TrimPrefix(attr(in, "condition"), "%"))
	if body == nil || cond == nil {
		return p.errAt(in, "a while without its body or condition")
	}
	// The state as it enters: every element without partial sums.
	var elems []*val
	var names []string
	var shs []Sharding
	var locals []*hlo.Shape
	for i, e := range state.tuple {
		// The state element as it comes, or, when the loop's users want
		// it split further (gradients accumulated in a scan, wanted as
		// the sharded parameters are), that split: a local slice of the
		// initial value.
		to := dimsOnly(e.sh)
		if h, ok := p.tupleHints[in.Name][int64(i)]; ok && extends(to, h) {
			to = h
		}
		shs = append(shs, to)
	}
	shs, err := p.stateShardings(in, body, state, shs)
	if err != nil {
		return err
	}
	for i, e := range state.tuple {
		r, err := p.reshard(e, shs[i])
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		local, err := p.localShape(r.global, r.sh)
		if err != nil {
			return p.errAt(in, "%v", err)
		}
		elems, names, locals = append(elems, r), append(names, r.name), append(locals, local)
		shs[i] = r.sh
	}
	tupleShape := &hlo.Shape{IsTuple: true, Tuple: locals}
	init := p.emit(p.fresh(in.Name+".state"), tupleShape, "tuple("+strings.Join(names, ", ")+")")
	bodyName, err := p.subComputation(body, in, shs, locals, shs)
	if err != nil {
		return err
	}
	condName, err := p.subComputation(cond, in, shs, locals, nil)
	if err != nil {
		return err
	}
	var attrs []string
	for _, a := range in.Attrs {
		switch a.Key {
		case "body":
			a.Value = bodyName
		case "condition":
			a.Value = condName
		case "sharding":
			continue
		}
		attrs = append(attrs, a.Key+"="+a.Value)
	}
	rhs := "while(" + init + ")"
	if len(attrs) > 0 {
		rhs += ", " + strings.Join(attrs, ", ")
	}
	name := p.emit(in.Name, tupleShape, rhs)
	v := &val{name: name, global: in.Shape}
	for i, e := range elems {
		g := p.emit(p.fresh(name+".gte"), locals[i], fmt.Sprintf("get-tuple-element(%s), index=%d", name, i))
		v.tuple = append(v.tuple, &val{name: g, global: e.global, sh: shs[i]})
	}
	p.vals[in.Name] = v
	return nil
}

// stateShardings settles a loop's state shardings as XLA's propagation
// does through a while: an element whose body result comes out split
// further than it went in (a scan's stacked outputs, made whole as zeros
// and filled with batch-split rows) is split so from the start, so that
// the body does not gather what it writes every iteration. Each round
// partitions the body on trial and throws the trial away.
func (p *partitioner) stateShardings(in *hlo.Instruction, body *hlo.Computation, state *val, shs []Sharding) ([]Sharding, error) {
	for round := 0; round < maxStateRounds; round++ {
		var locals []*hlo.Shape
		for i, e := range state.tuple {
			local, err := p.localShape(e.global, shs[i])
			if err != nil {
				return nil, p.errAt(in, "%v", err)
			}
			locals = append(locals, local)
		}
		got, wanted, err := p.trialBody(body, in, shs, locals)
		if err != nil {
			return nil, err
		}
		changed := false
		for i, g := range got {
			// A broadcast (zeros, a mask) can be made in any split: it
			// takes the one the body first wants it in.
			if w, ok := wanted[i]; ok && state.tuple[i].bcast != nil && extends(shs[i], w) && !extends(w, g) {
				g = w
			}
			if extends(shs[i], g) {
				if _, err := p.mesh.LocalDims(g, state.tuple[i].global.Dims); err == nil {
					shs[i], changed = g, true
				}
			}
		}
		if !changed {
			break
		}
	}
	return shs, nil
}

// maxStateRounds bounds stateShardings: each round can only split some
// element further, and a mesh has few axes.
const maxStateRounds = 4

// trialBody partitions a loop body without keeping anything it emits, and
// returns the shardings its result's elements come out with and, by
// element, the first further split the body moved its parameter's element
// to.
func (p *partitioner) trialBody(body *hlo.Computation, at *hlo.Instruction, in []Sharding, locals []*hlo.Shape) ([]Sharding, map[int]Sharding, error) {
	res := *p.res
	res.Collectives, res.Fallbacks, res.Uneven, res.Shardings = slices.Clone(res.Collectives), slices.Clone(res.Fallbacks), slices.Clone(res.Uneven), slices.Clone(res.Shardings)
	ncomps, adders, unevenSeen := len(p.comps), maps.Clone(p.adders), maps.Clone(p.unevenSeen)
	defer func() {
		*p.res = res
		p.comps, p.adders, p.unevenSeen = p.comps[:ncomps], adders, unevenSeen
	}()
	var got []Sharding
	wanted := map[int]Sharding{}
	p.rootShardings, p.wantedState = &got, wanted
	_, err := p.subComputation(body, at, in, locals, in)
	p.wantedState = nil
	return got, wanted, err
}

// subComputation partitions a loop's body (out: the shardings its
// results move to) or condition (out nil: its predicate made whole) with
// its tuple parameter's elements sharded as in, and adds it to the
// module; it returns the new computation's name.
func (p *partitioner) subComputation(c *hlo.Computation, at *hlo.Instruction, in []Sharding, locals []*hlo.Shape, out []Sharding) (string, error) {
	// Only this computation's result is the trial's (trialBody), not
	// that of a loop inside it.
	record, wanted := p.rootShardings, p.wantedState
	p.rootShardings, p.wantedState = nil, nil
	saved := *p
	saved.rootShardings = nil
	defer func() {
		// Keep what is module-wide; restore what belongs to the caller.
		res, comps, adders, taken, chans := p.res, p.comps, p.adders, p.taken, p.chans
		*p = saved
		p.res, p.comps, p.adders, p.taken, p.chans = res, comps, adders, taken, chans
	}()
	p.lines, p.vals, p.pid, p.tables, p.moved = nil, map[string]*val{}, "", map[string]string{}, map[string]*val{}
	body := flattenComp(p.m, c)
	p.defs = map[string]*hlo.Instruction{}
	for _, x := range body {
		p.defs[x.Name] = x
		p.taken[x.Name] = true
	}
	p.hints = p.backwardHints(body)
	var params int
	for _, x := range body {
		if x.Opcode != hlo.OpParameter {
			continue
		}
		params++
		if !x.Shape.IsTuple || len(x.Shape.Tuple) != len(in) {
			return "", p.errAt(at, "the loop's %s takes other than its state", c.Name)
		}
		tupleShape := &hlo.Shape{IsTuple: true, Tuple: locals}
		name := p.emit(x.Name, tupleShape, fmt.Sprintf("parameter(%d)", x.ParamNumber))
		v := &val{name: name, global: x.Shape}
		for i, e := range x.Shape.Tuple {
			g := p.emit(p.fresh(name+".gte"), locals[i], fmt.Sprintf("get-tuple-element(%s), index=%d", name, i))
			v.tuple = append(v.tuple, &val{name: g, global: e, sh: in[i]})
			if wanted != nil {
				p.watch[v.tuple[i]] = func(to Sharding) {
					if _, ok := wanted[i]; !ok {
						wanted[i] = to.Clone()
					}
				}
			}
		}
		p.vals[x.Name] = v
	}
	if params != 1 {
		return "", p.errAt(at, "the loop's %s has %d parameters", c.Name, params)
	}
	for _, x := range body {
		if x.Opcode == hlo.OpParameter {
			continue
		}
		if err := p.instruction(x); err != nil {
			return "", err
		}
	}
	root := p.vals[c.Root.Name]
	if root == nil {
		return "", p.errAt(at, "the loop's %s has no result", c.Name)
	}
	var rootLine string
	if out == nil {
		r, err := p.reshard(root, Replicated(len(root.global.Dims)))
		if err != nil {
			return "", p.errAt(at, "%v", err)
		}
		rootLine = fmt.Sprintf("  ROOT %s = %s copy(%s)", p.fresh(c.Name+".result"), root.global, r.name)
	} else {
		if root.tuple == nil || len(root.tuple) != len(out) {
			return "", p.errAt(at, "the loop's body %s does not return its state", c.Name)
		}
		var names []string
		for i, e := range root.tuple {
			if e.tuple != nil || e.manual {
				return "", p.errAt(at, "the loop's body %s returns a nested tuple", c.Name)
			}
			if record != nil {
				*record = append(*record, dimsOnly(e.sh))
			}
			r, err := p.reshard(e, out[i])
			if err != nil {
				return "", p.errAt(at, "%v", err)
			}
			names = append(names, r.name)
		}
		rootLine = fmt.Sprintf("  ROOT %s = %s tuple(%s)", p.fresh(c.Name+".result"), (&hlo.Shape{IsTuple: true, Tuple: locals}).String(), strings.Join(names, ", "))
	}
	name := p.fresh(c.Name + ".spmd")
	var b strings.Builder
	b.WriteString(name + " {\n")
	for _, l := range p.lines {
		b.WriteString(l + "\n")
	}
	b.WriteString(rootLine + "\n}\n")
	p.comps = append(p.comps, b.String())
	return name, nil
}
