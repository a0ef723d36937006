package partition

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// The all-reduce combiner.
//
// XLA does not run the all-reduces its partitioner emits one by one: its
// all-reduce combiner merges all-reduces that do not depend on each other,
// over the same devices with the same reduction, into one all-reduce of a
// tuple. A data-parallel step's gradient all-reduces become one. Pulse
// does the same after partitioning, so that its collectives are XLA's in
// number and bytes, and a simulated step pays one collective's latency
// where XLA's does. The thresholds are those of XLA's CPU pipeline
// (CpuAllReduceCombiner: any number of bytes, 256 operands), which made
// the corpus's partitioned modules; XLA's GPU pipeline stops at 30 MiB by
// default, and its TPU thresholds are not public.

const (
	combineBytes = math.MaxInt64 // XLA CPU's combine_threshold_in_bytes
	combineCount = 256           // its combine_threshold_count
)

// combineAllReduces merges the independent all-reduces of each of m's
// computations (see above) and returns the module, reparsed, with the
// collectives list updated: a merged all-reduce is one Collective serving
// all its members' instructions.
func combineAllReduces(m *hlo.Module, colls []Collective) (*hlo.Module, []Collective, error) {
	merged := map[string]string{} // member all-reduce -> the combined one
	changed := false
	for _, c := range m.Computations {
		if combineComputation(m, c, merged) {
			changed = true
		}
	}
	if !changed {
		return m, colls, nil
	}
	out, err := hlo.Parse(m.Name, m.String())
	if err != nil {
		return nil, nil, fmt.Errorf("internal error: the module with combined all-reduces does not parse: %v", err)
	}
	var list []Collective
	at := map[string]int{}
	for _, cl := range colls {
		into, ok := merged[cl.Name]
		if !ok {
			list = append(list, cl)
			continue
		}
		if i, seen := at[into]; seen {
			list[i].Bytes += cl.Bytes
			list[i].For += ", " + cl.For
			continue
		}
		at[into] = len(list)
		cl.Name = into
		list = append(list, cl)
	}
	return out, list, nil
}

// combineKey says which all-reduces may merge: the same devices, the same
// reduction and the same kind of ids.
func combineKey(m *hlo.Module, in *hlo.Instruction) (string, bool) {
	if in.Opcode != "all-reduce" || len(in.Operands) != 1 || in.Shape == nil || in.Shape.IsTuple {
		return "", false
	}
	var key []string
	for _, a := range in.Attrs {
		switch a.Key {
		case "replica_groups", "use_global_device_ids":
			key = append(key, a.Key+"="+a.Value)
		case "to_apply":
			key = append(key, "to_apply="+reduction(m, a.Value))
		case "channel_id":
			key = append(key, "channel")
		case "metadata", "frontend_attributes", "sharding", "backend_config":
		default:
			return "", false // an attribute the merge would not know how to keep
		}
	}
	return strings.Join(key, ","), true
}

// reduction names what the computation called name computes when it is
// one binary op of its two scalar parameters ("add f32"), so that the
// partitioner's adder and the module's own merge; otherwise its name.
func reduction(m *hlo.Module, name string) string {
	c := m.Computation(name)
	op := hlo.BinaryCombiner(c)
	if op == "" || c.Root.Shape == nil || len(c.Root.Shape.Dims) != 0 {
		return name
	}
	return op + " " + c.Root.Shape.Elem
}

// combineComputation merges c's independent all-reduces in place,
// recording each member's combined instruction in merged, and reports
// whether it changed c.
func combineComputation(m *hlo.Module, c *hlo.Computation, merged map[string]string) bool {
	index := map[string]int{}
	for i, in := range c.Instructions {
		index[in.Name] = i
	}
	type group struct {
		members []int
		bytes   int64
	}
	var groups []*group
	open := map[string][]*group{}
	// dependsOn reports whether instruction i reads (through any chain)
	// a member of g: it walks i's operands back, no further than g's
	// first member, since operands come before their users.
	dependsOn := func(i int, g *group) bool {
		first := g.members[0]
		member := map[int]bool{}
		for _, k := range g.members {
			member[k] = true
		}
		seen := map[int]bool{}
		work := []int{i}
		for len(work) > 0 {
			k := work[len(work)-1]
			work = work[:len(work)-1]
			for _, o := range c.Instructions[k].Operands {
				j, ok := index[o.Name]
				if !ok || j < first || seen[j] {
					continue
				}
				if member[j] {
					return true
				}
				seen[j] = true
				work = append(work, j)
			}
		}
		return false
	}
	for i, in := range c.Instructions {
		key, ok := combineKey(m, in)
		if !ok {
			continue
		}
		b := shapeBytes(in.Shape)
		var into *group
		for _, g := range open[key] {
			if len(g.members) < combineCount && g.bytes <= combineBytes-b && !dependsOn(i, g) {
				into = g
				break
			}
		}
		if into == nil {
			into = &group{}
			groups = append(groups, into)
			open[key] = append(open[key], into)
		}
		into.members = append(into.members, i)
		into.bytes += b
	}
	replace := map[int][]*hlo.Instruction{} // at the last member: the combined all-reduce and its elements
	drop := map[int]bool{}
	for _, g := range groups {
		if len(g.members) < 2 {
			continue
		}
		first := c.Instructions[g.members[0]]
		comb := &hlo.Instruction{Pos: first.Pos, Name: uniqueName(index, first.Name+".combined"), Opcode: "all-reduce", Shape: &hlo.Shape{IsTuple: true}}
		index[comb.Name] = -1
		for _, a := range first.Attrs {
			if a.Key != "metadata" && a.Key != "frontend_attributes" && a.Key != "sharding" && a.Key != "backend_config" {
				comb.Attrs = append(comb.Attrs, a)
			}
		}
		elems := []*hlo.Instruction{comb}
		for k, i := range g.members {
			in := c.Instructions[i]
			comb.Operands = append(comb.Operands, &hlo.Operand{Pos: in.Operands[0].Pos, Name: in.Operands[0].Name})
			comb.Shape.Tuple = append(comb.Shape.Tuple, in.Shape)
			elems = append(elems, &hlo.Instruction{Pos: in.Pos, Name: in.Name, IsRoot: in.IsRoot, Shape: in.Shape, Opcode: "get-tuple-element",
				Operands: []*hlo.Operand{{Pos: in.Pos, Name: comb.Name}}, Attrs: []hlo.Attr{{Pos: in.Pos, Key: "index", Value: strconv.Itoa(k)}}})
			drop[i] = true
			merged[in.Name] = comb.Name
		}
		replace[g.members[len(g.members)-1]] = elems
	}
	if len(replace) == 0 {
		return false
	}
	var list []*hlo.Instruction
	for i, in := range c.Instructions {
		if r, ok := replace[i]; ok {
			list = append(list, r...)
			continue
		}
		if !drop[i] {
			list = append(list, in)
		}
	}
	c.Instructions = stableTopoSort(list)
	for _, in := range c.Instructions {
		if in.IsRoot {
			c.Root = in
		}
	}
	if c.Root != nil && !slices.Contains(c.Instructions, c.Root) {
		c.Root = c.Instructions[len(c.Instructions)-1]
	}
	return true
}

// uniqueName is base, or base.N, not yet in index.
func uniqueName(index map[string]int, base string) string {
	if _, taken := index[base]; !taken {
		return base
	}
	for n := 1; ; n++ {
		name := base + "." + strconv.Itoa(n)
		if _, taken := index[name]; !taken {
			return name
		}
	}
}

// stableTopoSort orders list so that every instruction follows its
// operands, keeping the given order wherever that already holds: a user
// of an early member of a combined all-reduce moves after it.
func stableTopoSort(list []*hlo.Instruction) []*hlo.Instruction {
	pos := map[string]int{}
	for i, in := range list {
		pos[in.Name] = i
	}
	placed := make([]bool, len(list))
	out := make([]*hlo.Instruction, 0, len(list))
	var place func(i int)
	place = func(i int) {
		if placed[i] {
			return
		}
		placed[i] = true
		for _, o := range list[i].Operands {
			if j, ok := pos[o.Name]; ok {
				place(j)
			}
		}
		out = append(out, list[i])
	}
	for i := range list {
		place(i)
	}
	return out
}
