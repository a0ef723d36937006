package lowering

import (
	"github.com/pulse-sim/pulse/hlo"
)

// A convolution on the flattened grid (legalize's flatGrid) multiplies
// its windows side by side: lhs[M, T*F] = concatenate of the row slices
// X[base(k) : base(k)+M] of one array X[rows, F] along the contracting
// dim, which the fusion pass keeps in the dot's fusion (fusion's
// windowConcat). The dot kernel reads those windows in place: column k
// of the lhs is element (base(k/F) + m) * F + k%F of X, so a K tile is
// a few strided pieces of X, one per run of windows whose bases follow
// each other (the three taps of a kernel row are one run of 3F columns),
// instead of the nine-fold copy an im2col writes and reads back.

// kSeg is a run of K columns [k0, k0+n) of a windowed lhs at element
// offset off of its array, the columns one element apart.
type kSeg struct{ k0, n, off int64 }

// lhsWindows is a windowed lhs: the array the windows are sliced from
// (the body's parameter), the lhs's logical dims [M, T*F] and its runs.
type lhsWindows struct {
	param string
	dims  []int64
	rowSt int64 // elements between rows: F
	segs  []kSeg
}

// windowOperand recognizes the dot's lhs name in body as windows of one
// array, or returns false.
func windowOperand(body []*hlo.Instruction, dot *hlo.Instruction) (lhsWindows, bool) {
	byName := map[string]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
	}
	cat := byName[dot.Operands[0].Name]
	lc, _ := hlo.IntList(hlo.AttrOr(dot, "lhs_contracting_dims", "{}"))
	lb, _ := hlo.IntList(hlo.AttrOr(dot, "lhs_batch_dims", "{}"))
	if cat == nil || cat.Opcode != hlo.OpConcatenate || len(lb) != 0 || len(lc) != 1 || lc[0] != 1 {
		return lhsWindows{}, false
	}
	if d, _ := hlo.IntList(hlo.AttrOr(cat, "dimensions", "{}")); len(d) != 1 || d[0] != 1 || len(cat.Shape.Dims) != 2 {
		return lhsWindows{}, false
	}
	M := cat.Shape.Dims[0]
	w := lhsWindows{dims: cat.Shape.Dims}
	var k0 int64
	for _, o := range cat.Operands {
		s := byName[o.Name]
		if s == nil || s.Opcode != hlo.OpSlice || len(s.Operands) != 1 {
			return lhsWindows{}, false
		}
		// The array in rows: a parameter, or a reshape of one (the
		// fusion takes in the reshapes the slices read).
		x := byName[s.Operands[0].Name]
		p := x
		if x != nil && x.Opcode == hlo.OpReshape && len(x.Operands) == 1 {
			p = byName[x.Operands[0].Name]
		}
		if x == nil || p == nil || p.Opcode != hlo.OpParameter || len(x.Shape.Dims) != 2 || p.Shape.Layout != nil && !defaultLayout(p.Shape) ||
			w.param != "" && (w.param != p.Name || w.rowSt != x.Shape.Dims[1]) {
			return lhsWindows{}, false
		}
		w.param, w.rowSt = p.Name, x.Shape.Dims[1]
		sd := hlo.SliceDims(s)
		if len(sd) != 2 || s.Shape.Dims[0] != M || s.Shape.Dims[1] != x.Shape.Dims[1] || sd[1].Start != 0 || sd[0].Stride != 1 || sd[1].Stride != 1 {
			return lhsWindows{}, false
		}
		off, n := sd[0].Start*w.rowSt, w.rowSt
		if last := len(w.segs) - 1; last >= 0 && w.segs[last].off+w.segs[last].n == off {
			w.segs[last].n += n
		} else {
			w.segs = append(w.segs, kSeg{k0: k0, n: n, off: off})
		}
		k0 += n
	}
	return w, k0 == cat.Shape.Dims[1] && len(w.segs) > 0
}

// colOff is the element offset of column k of v, relative to its row
// (for windows, k's run must hold the whole K tile: segWidth).
func (v dotView) colOff(k int64) int64 {
	for _, s := range v.segs {
		if k >= s.k0 && k < s.k0+s.n {
			return s.off + (k-s.k0)*v.sCol
		}
	}
	return k * v.sCol
}

// segWidth is the greatest common divisor of v's runs' widths: K tiles
// dividing it each lie within one run, so each is one strided load.
func (v dotView) segWidth() int64 {
	var g int64
	for _, s := range v.segs {
		a, b := g, s.n
		for b != 0 {
			a, b = b, a%b
		}
		g = a
	}
	return g
}

// windowMembers names the instructions of body that a dot reads as
// windows (its concatenate, the slices and their reshapes): a split
// fusion leaves them to the dot's kernel rather than computing them.
func windowMembers(body []*hlo.Instruction) map[string]bool {
	m := map[string]bool{}
	for _, b := range body {
		if b.Opcode != hlo.OpDot {
			continue
		}
		if _, ok := windowOperand(body, b); !ok {
			continue
		}
		byName := map[string]*hlo.Instruction{}
		for _, x := range body {
			byName[x.Name] = x
		}
		cat := byName[b.Operands[0].Name]
		m[cat.Name] = true
		for _, o := range cat.Operands {
			m[o.Name] = true
			if x := byName[byName[o.Name].Operands[0].Name]; x.Opcode == hlo.OpReshape {
				m[x.Name] = true
			}
		}
	}
	return m
}
