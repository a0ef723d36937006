package lowering

import (
	"fmt"
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// Windows within rows: a loop kernel reading several views of one array
// that differ by offsets inside its rows (a depthwise convolution's kernel
// positions over an NCHW input, each the padded image shifted by a row
// and a column: legalize's depthwiseInLayout) loads, per tile, the box
// that holds them all (the hull: the padded images of the tile's
// channels) once, and every view reads its part of it in SRAM through
// strides. Loaded on their own, the nine views of a 3x3 kernel each moved
// the image again in runs of one image row (224 bytes for 56 floats), and
// a stride-2 kernel's views an element at a time.

// maxHullGrowth bounds a hull's elements per row against a view's: a
// stride-2 kernel's views read a quarter of the image each (the hull is
// the whole image); views far apart would load mostly what none reads.
const maxHullGrowth = 5

// maxHullPad bounds the elements a hull row is widened by to make it
// contiguous with the next.
const maxHullPad = 8

// hullView places a buffer in its hull's rows: the element offset of its
// first element and its element strides over [rows, row...] there.
type hullView struct {
	of      *streamBuf
	delta   int64
	strides []int64
}

// shareHulls finds, among sp's loaded buffers not sharing rows already,
// those that load views of one array with the same strides at different
// offsets, and gives each such group one load of their hull.
func shareHulls(sp *streamSpec) {
	groups := map[string][]*streamBuf{}
	var keys []string
	for _, b := range sp.bufs {
		l := b.load
		// A row read by every row (oneRow: a per-channel weight over an
		// image's rows, its offset stepping with the passes) may share a
		// run of scalars.
		if l == nil || b.static || b.share != nil || b.span > 0 || l.smem != nil || l.src.tensor == "" ||
			len(l.strides) != len(b.row)+1 || l.strides[0] < 0 || (l.strides[0] == 0) != b.oneRow || b.oneRow && prod(b.row) != 1 || slices.ContainsFunc(keyStrides(b.row, l.strides)[1:], func(s int64) bool { return s < 0 }) ||
			slices.ContainsFunc(l.outer, func(o int64) bool { return o < 0 }) {
			continue
		}
		k := fmt.Sprintf("%s %s %s %v %v %v", l.src.tensor, l.src.dt, b.dt, b.row, keyStrides(b.row, l.strides), l.outer)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], b)
	}
	for _, k := range keys {
		if g := groups[k]; len(g) > 1 {
			shareHull(sp, g)
		}
	}
}

// keyStrides are an access's strides over [rows, row...] with those of
// the row's dims of one element, which step nowhere, as 0.
func keyStrides(row, strides []int64) []int64 {
	k := slices.Clone(strides)
	for i, d := range row {
		if d == 1 {
			k[i+1] = 0
		}
	}
	return k
}

// shareHull gives the buffers g (views of one array, alike but for their
// offsets) one hull load, when the offsets decompose along the rows' dims
// and the hull stays small and inside the array.
func shareHull(sp *streamSpec, g []*streamBuf) {
	l := g[0].load
	es := int64(l.src.dt.Size())
	minBase := l.base
	for _, b := range g {
		if b.load.base%es != 0 {
			return
		}
		minBase = min(minBase, b.load.base)
	}
	deltas := make([]int64, len(g))
	for i, b := range g {
		deltas[i] = (b.load.base - minBase) / es
	}
	row, st := g[0].row, l.strides[1:]
	if prod(row) == 1 {
		shareScalarHull(sp, g, minBase, deltas)
		return
	}
	if slices.Contains(st, 0) {
		return
	}
	// The hull's strides: each view stride divided by a small step (2 for
	// a stride-2 kernel's views, which lie between one another's
	// elements), the hull the smallest box that holds every view.
	var best []int64 // steps of the smallest hull found
	var bestHull []int64
	var bestOffs [][]int64
	var bestRows []int64 // whole rows each view lies past the hull's first
	steps := make([]int64, len(row))
	var try func(i int)
	try = func(i int) {
		if i < len(row) {
			for m := int64(1); m <= 4; m++ {
				if st[i]%m == 0 {
					steps[i] = m
					try(i + 1)
				}
			}
			return
		}
		unit := make([]int64, len(row))
		for j := range row {
			unit[j] = st[j] / steps[j]
			if j > 0 && unit[j] > unit[j-1] {
				return // a greedy decomposition needs falling strides
			}
		}
		offs := make([][]int64, len(g))
		rows := make([]int64, len(g))
		hull := make([]int64, len(row))
		for j := range row {
			hull[j] = (row[j]-1)*steps[j] + 1
		}
		for v, d := range deltas {
			rows[v] = d / l.strides[0]
			d -= rows[v] * l.strides[0]
			offs[v] = make([]int64, len(row))
			for j := range row {
				offs[v][j] = d / unit[j]
				d -= offs[v][j] * unit[j]
				hull[j] = max(hull[j], offs[v][j]+(row[j]-1)*steps[j]+1)
			}
			if d != 0 {
				return
			}
		}
		if bestHull == nil || prod(hull) < prod(bestHull) {
			best, bestHull, bestOffs, bestRows = slices.Clone(steps), hull, offs, rows
		}
	}
	try(0)
	if bestHull == nil || prod(bestHull) > maxHullGrowth*prod(row) {
		return
	}
	unit := make([]int64, len(row))
	for j := range row {
		unit[j] = st[j] / best[j]
	}
	// Rows a few elements short of the next dim's stride are read whole:
	// a DMA of contiguous rows moves whole bursts (a 3x3 kernel's views
	// of a 58-wide padded image span 57 elements of each 58).
	for j := len(row) - 1; j >= 0; j-- {
		next := l.strides[0]
		if j > 0 {
			next = unit[j-1]
		}
		if unit[j] > 0 && next%unit[j] == 0 && next/unit[j] > bestHull[j] && next/unit[j]-bestHull[j] <= maxHullPad {
			bestHull[j] = next / unit[j]
		}
	}
	span := slices.Max(bestRows)
	last := minBase/es + (sp.rows-1+span)*l.strides[0]
	for j := range row {
		last += (bestHull[j] - 1) * unit[j]
	}
	if len(l.outer) > 0 {
		last += slices.Max(l.outer) / es
	}
	if minBase < 0 || last >= l.src.shape.Elems() || span*prod(bestHull)*es > maxShareSpan {
		return // the hull would read past the array, or far past the tile
	}
	hull := &streamBuf{name: g[0].name + "#hull", at: g[0].at, dt: g[0].dt, row: bestHull, span: span,
		load: &hbmAccess{src: l.src, strides: append([]int64{l.strides[0]}, unit...), base: minBase, outer: slices.Clone(l.outer)}}
	sram := hlo.Strides(bestHull)
	for v, b := range g {
		hv := &hullView{of: hull, delta: bestRows[v] * prod(bestHull), strides: []int64{prod(bestHull)}}
		for j := range row {
			hv.delta += bestOffs[v][j] * sram[j]
			hv.strides = append(hv.strides, best[j]*sram[j])
		}
		b.hull, b.load = hv, nil
	}
	at := slices.Index(sp.bufs, g[0])
	sp.bufs = slices.Insert(sp.bufs, at, hull)
}

// maxScalarHull bounds the row of a hull of one-element views (a
// depthwise convolution's per-channel weights at each kernel position:
// 9 of a 3x3 kernel's, 25 of a 5x5's).
const maxScalarHull = 64

// shareScalarHull gives views of one element a row (per-row scalars, at
// offsets deltas from minBase) one load of the run of elements between
// them: each loaded on its own was a descriptor per tile for a few bytes.
func shareScalarHull(sp *streamSpec, g []*streamBuf, minBase int64, deltas []int64) {
	l := g[0].load
	if l.strides[0] == 1 {
		// Each view is one contiguous run: a hull would read its rows'
		// scalars a burst each and the views through strides (a
		// pooling window's pair of rows 31 elements apart: 281,817 ->
		// 433,663 cycles on teach16).
		return
	}
	es := int64(l.src.dt.Size())
	// The views lie step elements apart or a multiple of it (one a kernel
	// position: the next channel's weight 1 or 9 elements on, the next
	// position's a channel count on).
	step := int64(0)
	for _, d := range deltas {
		step = gcd(step, d)
	}
	step = max(step, 1)
	n := slices.Max(deltas)/step + 1
	last := minBase/es + (sp.rows-1)*l.strides[0] + (n-1)*step
	if len(l.outer) > 0 {
		last += slices.Max(l.outer) / es
	}
	if n > maxScalarHull || minBase < 0 || last >= l.src.shape.Elems() {
		return
	}
	if step == 1 && l.strides[0] > n && l.strides[0]-n <= maxHullPad && last+l.strides[0]-n < l.src.shape.Elems() {
		n = l.strides[0] // whole rows: one contiguous run
	}
	hull := &streamBuf{name: g[0].name + "#hull", at: g[0].at, dt: g[0].dt, row: []int64{n}, oneRow: g[0].oneRow,
		load: &hbmAccess{src: l.src, strides: []int64{l.strides[0], step}, base: minBase, outer: slices.Clone(l.outer)}}
	for v, b := range g {
		hv := &hullView{of: hull, delta: deltas[v] / step, strides: []int64{n}}
		for range b.row {
			hv.strides = append(hv.strides, 0)
		}
		b.hull, b.load = hv, nil
	}
	sp.bufs = slices.Insert(sp.bufs, slices.Index(sp.bufs, g[0]), hull)
}

// hullOperand formats n rows of b, a view in its hull, from the hull's
// first row at base (a register plus an offset, or an offset).
func hullOperand(b *streamBuf, base string, from, n int64) string {
	h := b.hull
	if h.of.static {
		base = "" // filled once, outside the rotating sets
	}
	off := h.of.off + (h.delta+from*prod(h.of.row))*int64(b.dt.Size())
	return fmt.Sprintf("sram[%s%d]:%s[%s]{%s}", base, off, b.dt, joinDims(append([]int64{n}, b.row...)), joinDims(h.strides))
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
