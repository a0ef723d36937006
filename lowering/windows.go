package lowering

import (
	"fmt"
	"slices"
)

// Shared windows: a loop kernel reading several views of one array that
// differ only by whole rows (a depthwise convolution's kernel positions
// on the flattened grid, each the padded input shifted by its window's
// offset: legalize's flatDepthwise) loads each tile's rows once, with
// the rows the furthest view reaches past the tile, and every view reads
// its rows there. Each view read from HBM on its own moved the input
// once per kernel position (nine times for a 3x3 kernel) where a TPU's
// convolution reads it once from VMEM.

// maxShareSpan bounds the bytes a shared load reads past its tile: the
// views furthest apart cost that much SRAM in every buffer set.
const maxShareSpan = 1 << 20

// shareWindows finds, among sp's loaded buffers, those that load the
// same rows of one array shifted by whole rows, and has the least
// shifted of each such group load for all of them (streamBuf.share).
func shareWindows(sp *streamSpec) {
	if sp.accumulate || sp.rowMultiple > 1 {
		return
	}
	defer shareHulls(sp)
	if sp.passes > 1 {
		return
	}
	groups := map[string][]*streamBuf{}
	var keys []string
	for _, b := range sp.bufs {
		l := b.load
		if l == nil || b.static || b.oneRow || l.smem != nil || l.src.tensor == "" || len(l.outer) > 0 || len(l.strides) == 0 || l.strides[0] <= 0 {
			continue
		}
		k := fmt.Sprintf("%s %s %s %v %v", l.src.tensor, l.src.dt, b.dt, b.row, l.strides)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], b)
	}
	for _, k := range keys {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		slices.SortStableFunc(g, func(a, b *streamBuf) int { return int(a.load.base - b.load.base) })
		lead := g[0]
		rowBytes := lead.load.strides[0] * int64(lead.load.src.dt.Size())
		sramRow := prod(lead.row) * int64(lead.dt.Size())
		var members []*streamBuf
		span := int64(0)
		for _, b := range g[1:] {
			d := b.load.base - lead.load.base
			if d%rowBytes != 0 || (d/rowBytes)*sramRow > maxShareSpan {
				continue
			}
			members = append(members, b)
			span = max(span, d/rowBytes)
		}
		if len(members) == 0 {
			continue
		}
		lead.span = span
		for _, b := range members {
			b.share, b.shift = lead, (b.load.base-lead.load.base)/rowBytes
			b.load = nil
		}
	}
}
