package lowering

import (
	"fmt"
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// An iota on chip.
//
// A stream kernel's iota (a mask's positions, a one-hot's classes) was an
// HBM constant loaded like an operand: in a kernel of one small tile, an
// HBM latency (about 105 cycles on tpuv4core) for 64 integers, every
// iteration of a decode loop. A TPU's fusion computes it on the vector
// unit (lane and sublane indices), and so does Pulse's (viota) wherever
// the tile's own indices are the iota's:
//
//   - it counts along a dimension of the tile's row (the rows of every
//     tile hold that dimension whole): the buffer is static, filled once
//     before the first tile (iotasInRows);
//   - it counts along the rows and the kernel is a single tile on one
//     core: the tile's buffer is filled before the tile (iotasInOneTile).
//
// Otherwise the rows of later tiles need their offset added, and the
// constant is stored once and loaded as before (placeIotas allocates it
// then, so a program whose iotas are all made on chip carries none).

// iotaAccess is the load of an iota of n elements, strided over the
// kernel's dimensions by strides: a placeholder source (no tensor yet)
// marked by its instruction.
func (c *compiler) iotaAccess(b *hlo.Instruction, n int64, strides []int64) (*hbmAccess, error) {
	dt, ok := dtypeOf(b.Shape.Elem)
	if !ok {
		return nil, c.fail(b, "element type %s has no Pulse dtype (%s)", b.Shape.Elem, dtypeNames())
	}
	shape := &hlo.Shape{Elem: b.Shape.Elem, Dims: []int64{n}}
	return &hbmAccess{src: &value{shape: shape, dt: dt}, strides: strides, iota: b}, nil
}

// iotaDim is the tile dimension an iota load counts along (its one
// nonzero stride, of 1, with the same elements every pass), or -1.
func iotaDim(l *hbmAccess) int {
	if l == nil || l.iota == nil || slices.ContainsFunc(l.outer, func(o int64) bool { return o != 0 }) {
		return -1
	}
	k := -1
	for i, s := range l.strides {
		switch {
		case s == 0:
		case s == 1 && k < 0:
			k = i
		default:
			return -1
		}
	}
	return k
}

// iotaOp fills buffer name with the indices of its tile dimension k.
func (c *compiler) iotaOp(b *streamBuf, k int, static bool) streamOp {
	return streamOp{at: b.at, static: static, emit: func(tile func(string) string, sync string) {
		fmt.Fprintf(&c.out, "        viota   %s, %d%s\n", tile(b.name), k, sync)
	}}
}

// stored reports whether a tile's buffer b is stored as it is (the
// result or an extra result): a fill before the tiles would not order
// the store after it, a fill in the tile does (its op signals s1).
func (sp *streamSpec) stored(b *streamBuf) bool {
	if b.name == sp.result {
		return true
	}
	for _, x := range sp.extraStores {
		if x.result == b.name {
			return true
		}
	}
	return false
}

// iotasInRows makes every iota counting along a dimension of the row a
// buffer filled on chip: once, before the first tile (a static buffer),
// unless it is stored as it is, then in every tile.
func (c *compiler) iotasInRows(sp *streamSpec) {
	var fills, inTile []streamOp
	for _, b := range sp.bufs {
		if k := iotaDim(b.load); k >= 1 && !b.oneRow && b.share == nil && b.hull == nil && b.span == 0 {
			b.load = nil
			if sp.stored(b) {
				inTile = append(inTile, c.iotaOp(b, k, false))
				continue
			}
			b.static = true
			fills = append(fills, c.iotaOp(b, k, true))
		}
	}
	sp.ops = append(append(fills, inTile...), sp.ops...)
}

// iotasInOneTile fills on chip every iota counting along the rows of a
// kernel that is one tile of rows on one core, and drops their loads from
// accesses. The fill runs once before the tile, into the buffer's place
// in the first set (the one tile's), so a tile walked in chunks of rows
// reads it as it would have read the load; a buffer stored as it is, or
// in a kernel of no other op, is filled in the tile (not when chunked:
// the chunks' ops are planned already).
func (c *compiler) iotasInOneTile(sp *streamSpec, accesses []*hbmAccess, oneTile bool) []*hbmAccess {
	if !oneTile || sp.passes > 1 {
		return accesses
	}
	noOps := len(tileOps(sp)) == 0
	var fills, inTile []streamOp
	for _, b := range sp.bufs {
		l := b.load
		if iotaDim(l) != 0 || b.static || b.oneRow || b.direct || b.share != nil || b.hull != nil || b.span != 0 {
			continue
		}
		perTile := noOps || sp.stored(b)
		if perTile && sp.chunks != nil {
			continue
		}
		b.load = nil
		accesses = slices.DeleteFunc(accesses, func(a *hbmAccess) bool { return a == l })
		if perTile {
			inTile = append(inTile, c.iotaOp(b, 0, false))
		} else {
			fills = append(fills, c.iotaOp(b, 0, true))
		}
	}
	// The static fills anywhere; the in-tile ones ahead of every per-tile
	// op (a compact broadcast reads its source).
	i := slices.IndexFunc(sp.ops, func(op streamOp) bool { return !op.static && !op.perPass })
	if i < 0 {
		i = len(sp.ops)
	}
	sp.ops = slices.Insert(sp.ops, i, inTile...)
	sp.ops = append(fills, sp.ops...)
	return accesses
}

// placeIotas stores the iotas still loaded as HBM constants.
func (c *compiler) placeIotas(sp *streamSpec) error {
	placed := map[*hbmAccess]bool{}
	for _, b := range sp.bufs {
		l := b.load
		if l == nil || l.iota == nil || l.src.tensor != "" || placed[l] {
			continue
		}
		v, err := c.alloc(l.iota, l.src.shape, " = iota()")
		if err != nil {
			return err
		}
		l.src = v
		placed[l] = true
	}
	return nil
}
