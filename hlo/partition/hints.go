package partition

import (
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// backwardHints is what each value's users would have it be, found by one
// pass from the result back to the parameters, as XLA's sharding
// propagation also goes backward: a dot whose weight is split along its
// contracted dimension wants its activation split the same way, which an
// elementwise op, a transpose, a reshape, a broadcast or a reduce passes
// on to its operand. The partitioner cuts a value down to its hint where
// it comes out whole and the hint only splits it further (a local slice,
// no communication), so that the work after, say, the all-gather of a
// fused QKV projection is split by heads, as the output projection's
// row-split weight asks, instead of being computed whole on every device.
// The first hint a value gets is kept.
func (p *partitioner) backwardHints(body []*hlo.Instruction) map[string]Sharding {
	hints := map[string]Sharding{}
	static := map[string]Sharding{} // the parameters' shardings, through converts, copies and transposes
	for _, in := range body {
		if in.Shape == nil || in.Shape.IsTuple {
			continue
		}
		switch in.Opcode {
		case hlo.OpParameter:
			if sh, ok, err := p.shardingOf(in, len(in.Shape.Dims)); err == nil && ok {
				static[in.Name] = sh
			}
		case "convert", "copy":
			if s, ok := static[in.Operands[0].Name]; ok {
				static[in.Name] = s
			}
		case "transpose":
			if s, ok := static[in.Operands[0].Name]; ok {
				perm, err := hlo.ListAttr(in, "dimensions")
				if err == nil && len(perm) == len(s.Dims) {
					t := Replicated(len(perm))
					for i, d := range perm {
						t.Dims[i] = s.Dims[d]
					}
					static[in.Name] = t
				}
			}
		}
	}
	set := func(name string, s Sharding) {
		in := p.defs[name]
		if in == nil || in.Shape == nil || in.Shape.IsTuple || len(s.Dims) != len(in.Shape.Dims) || s.IsReplicated() {
			return
		}
		if _, ok := hints[name]; ok {
			return
		}
		if _, ok := static[name]; ok && in.Opcode == hlo.OpParameter {
			return
		}
		seen := map[int]bool{}
		for _, a := range s.used() {
			if seen[a] {
				return
			}
			seen[a] = true
		}
		if _, err := p.mesh.LocalDims(s, in.Shape.Dims); err != nil {
			return
		}
		hints[name] = s.Clone()
	}
	rankOf := func(name string) int {
		if in := p.defs[name]; in != nil && in.Shape != nil {
			return len(in.Shape.Dims)
		}
		return -1
	}
	p.tupleHints = map[string]map[int64]Sharding{}
	// The results' shardings are what the program's last values want.
	if root := body[len(body)-1]; root != nil {
		if text, ok := root.Attr("sharding"); ok && root.Opcode == "tuple" {
			for i, e := range splitTuple(text) {
				if i < len(root.Operands) {
					if x := p.defs[root.Operands[i].Name]; x != nil && x.Shape != nil && !x.Shape.IsTuple {
						if hs, err := ParseHLOSharding(e, len(x.Shape.Dims), p.mesh); err == nil && !hs.Manual {
							set(x.Name, p.evenFor(root, x.Shape, hs.Sharding))
						}
					}
				}
			}
		}
	}
	for i := len(body) - 1; i >= 0; i-- {
		in := body[i]
		if in.Shape == nil || in.Shape.IsTuple {
			continue
		}
		if in.Opcode == "custom-call" && len(in.Operands) == 1 {
			switch strings.Trim(attr(in, "custom_call_target"), `"`) {
			case "Sharding", "xla.sdy.FuncResultSharding", "xla.sdy.Sharding":
				if sh, ok, err := p.shardingOf(in, len(in.Shape.Dims)); err == nil && ok {
					set(in.Operands[0].Name, sh)
				}
			}
		}
		h, hasH := hints[in.Name]
		if in.Opcode == "get-tuple-element" && hasH {
			// A loop's state element is wanted split as its result is
			// (an FSDP step's gradients, accumulated in a scan).
			if idx, err := hlo.IntAttr(in, "index"); err == nil {
				t := p.tupleHints[in.Operands[0].Name]
				if t == nil {
					t = map[int64]Sharding{}
					p.tupleHints[in.Operands[0].Name] = t
				}
				if _, ok := t[idx]; !ok {
					t[idx] = h.Clone()
				}
			}
			continue
		}
		switch op := in.Opcode; {
		case op == "dot":
			p.dotHints(in, h, hasH, static, set)
		case !hasH:
		case hlo.IsElementwise(op) || op == "copy":
			for _, o := range in.Operands {
				if rankOf(o.Name) == len(h.Dims) {
					set(o.Name, h)
				}
			}
		case op == "transpose":
			perm, err := hlo.ListAttr(in, "dimensions")
			if err == nil && len(perm) == len(h.Dims) {
				o := Replicated(len(perm))
				for i, d := range perm {
					o.Dims[d] = h.Dims[i]
				}
				set(in.Operands[0].Name, o)
			}
		case op == "broadcast":
			dims, err := hlo.ListAttr(in, "dimensions")
			if r := rankOf(in.Operands[0].Name); err == nil && r == len(dims) {
				o := Replicated(r)
				for k, d := range dims {
					o.Dims[k] = h.Dims[d]
				}
				set(in.Operands[0].Name, o)
			}
		case op == "reduce" && len(in.Operands) == 2:
			dims, _ := hlo.ListAttr(in, "dimensions")
			r := rankOf(in.Operands[0].Name)
			if r < 0 {
				break
			}
			o := Replicated(r)
			k := 0
			for d := 0; d < r; d++ {
				if !slices.Contains(dims, int64(d)) && k < len(h.Dims) {
					o.Dims[d] = h.Dims[k]
					k++
				}
			}
			set(in.Operands[0].Name, o)
		case op == "reshape":
			src := p.defs[in.Operands[0].Name]
			if src == nil || src.Shape == nil {
				break
			}
			set(src.Name, p.reshapeBack(src.Shape.Dims, in.Shape.Dims, h))
		}
	}
	return hints
}

// dotHints: a dot's operands want their contracted and batch dimensions
// split as the other operand's parameter is, and their batch and free
// dimensions as the dot's own hint says.
func (p *partitioner) dotHints(in *hlo.Instruction, h Sharding, hasH bool, static map[string]Sharding, set func(string, Sharding)) {
	list := func(key string) []int64 {
		v, _ := hlo.OptList(in, key)
		return v
	}
	lb, rb := list("lhs_batch_dims"), list("rhs_batch_dims")
	lc, rc := list("lhs_contracting_dims"), list("rhs_contracting_dims")
	l, r := p.defs[in.Operands[0].Name], p.defs[in.Operands[1].Name]
	if l == nil || r == nil || l.Shape == nil || r.Shape == nil {
		return
	}
	lh, rh := Replicated(len(l.Shape.Dims)), Replicated(len(r.Shape.Dims))
	ls, lok := static[l.Name]
	rs, rok := static[r.Name]
	for i := range lc {
		if rok {
			lh.Dims[lc[i]] = rs.Dims[rc[i]]
		}
		if lok {
			rh.Dims[rc[i]] = ls.Dims[lc[i]]
		}
	}
	for i := range lb {
		if rok {
			lh.Dims[lb[i]] = rs.Dims[rb[i]]
		}
		if lok {
			rh.Dims[rb[i]] = ls.Dims[lb[i]]
		}
		if hasH && len(lh.Dims[lb[i]]) == 0 {
			lh.Dims[lb[i]] = h.Dims[i]
		}
		if hasH && len(rh.Dims[rb[i]]) == 0 {
			rh.Dims[rb[i]] = h.Dims[i]
		}
	}
	if hasH {
		lf := freeDims(len(l.Shape.Dims), lb, lc)
		rf := freeDims(len(r.Shape.Dims), rb, rc)
		for k, d := range lf {
			lh.Dims[d] = h.Dims[len(lb)+k]
		}
		for k, d := range rf {
			rh.Dims[d] = h.Dims[len(lb)+len(lf)+k]
		}
	}
	set(l.Name, lh)
	set(r.Name, rh)
}

// reshapeBack maps a hint on a reshape's result to its operand: a split
// output dimension whose major part is an operand dimension starting at
// the same place (kept, merged or split) gives that dimension the split.
func (p *partitioner) reshapeBack(inD, outD []int64, h Sharding) Sharding {
	o := Replicated(len(inD))
	for j, axes := range h.Dims {
		if len(axes) == 0 {
			continue
		}
		k := int64(p.mesh.product(axes))
		pre := hlo.Prod(outD[:j])
		for i := range inD {
			if hlo.Prod(inD[:i]) == pre && inD[i] != 1 {
				if min(inD[i], outD[j])%k == 0 {
					o.Dims[i] = axes
				}
				break
			}
		}
	}
	return o
}

// extends reports whether h only splits further what cur splits: cutting
// cur down to h is a local slice.
func extends(cur, h Sharding) bool {
	if len(cur.Partial) > 0 || len(cur.Dims) != len(h.Dims) || cur.Equal(h) {
		return false
	}
	for d := range cur.Dims {
		if !hasPrefix(h.Dims[d], cur.Dims[d]) {
			return false
		}
	}
	return true
}
