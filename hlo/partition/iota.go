package partition

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
)

// iota is made split, as XLA's SPMD partitioner makes it: each device
// computes its shard's iota, plus the shard's first index along the iota
// dimension when that dimension is split. Its sharding is the one the
// instruction names, else the one its users want (hints), else whole; a
// whole iota that a user wants split is made anew in that split (reiota),
// never cut from the whole one. Made whole and cut, a one-hot's iota over
// a vocabulary (MaxText's s32[2,8192,128256], 8.4 GB) was held entire on
// every device.
func (p *partitioner) iota(in *hlo.Instruction) error {
	rank := len(in.Shape.Dims)
	out := Replicated(rank)
	if sh, ok, err := p.shardingOf(in, rank); err != nil {
		return p.errAt(in, "%v", err)
	} else if ok {
		out = sh
	} else if h, ok := p.hints[in.Name]; ok {
		out = h
	}
	if dim, err := hlo.IntAttr(in, "iota_dimension"); err != nil || dim < 0 || int(dim) >= rank {
		return p.errAt(in, "an iota needs an iota_dimension below its rank %d", rank)
	}
	v, err := p.emitIota(in, p.evenFor(in, in.Shape, out))
	if err != nil {
		return err
	}
	p.vals[in.Name] = v
	return nil
}

// emitIota emits iota instruction in's shard for sharding out.
func (p *partitioner) emitIota(in *hlo.Instruction, out Sharding) (*val, error) {
	dim, _ := hlo.IntAttr(in, "iota_dimension")
	local, err := p.localShape(in.Shape, out)
	if err != nil {
		return nil, &Error{Pos: in.Pos, Name: in.Name, Opcode: in.Opcode, Sharding: p.mesh.Format(out), Why: err.Error()}
	}
	name := p.emit(p.fresh(in.Name), local, fmt.Sprintf("iota(), iota_dimension=%d", dim))
	if axes := out.Dims[dim]; len(axes) > 0 {
		table := make([]int64, p.mesh.N())
		for d := range table {
			table[d] = int64(p.mesh.index(d, axes)) * local.Dims[dim]
		}
		off := p.offset(table)
		if local.Elem != "s32" {
			off = p.emit(p.fresh(in.Name+".start"), arrayShape(local.Elem, nil), "convert("+off+")")
		}
		b := p.emit(p.fresh(in.Name+".start"), local, fmt.Sprintf("broadcast(%s), dimensions={}", off))
		name = p.emit(p.fresh(in.Name), local, fmt.Sprintf("add(%s, %s)", name, b))
	}
	return &val{name: name, global: in.Shape, sh: out.Clone(), iota: in}, nil
}

// reiota moves an iota's value to sharding to by making that shard anew
// (no partial sums: an iota has none).
func (p *partitioner) reiota(v *val, to Sharding) (*val, bool) {
	if v.iota == nil || len(to.Partial) > 0 || len(v.sh.Partial) > 0 {
		return nil, false
	}
	if _, err := p.localShape(v.global, to); err != nil {
		return nil, false
	}
	r, err := p.emitIota(v.iota, to)
	return r, err == nil
}
