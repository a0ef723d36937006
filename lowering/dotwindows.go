package lowering

import (
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/fusion"
)

// A convolution on the flattened grid (legalize's flatGrid) multiplies
// its windows side by side: lhs[M, T*F] = concatenate of the row slices
// X[base(k) : base(k)+M] of one array X[rows, F] along the contracting
// dim, which the fusion pass keeps in the dot's fusion (fusion's
// windowConcat). Its weight gradient (flatWeightGradient) has them as
// the rhs [K, T*F], contracted over the rows, the windows along the
// output's columns. The dot kernel reads those windows in place: column
// k is element (base(k/F) + m) * F + k%F of X, so a tile is one strided
// load of X as long as its columns lie within one run of windows whose
// bases follow each other (the three taps of a kernel row are one run of
// 3F columns), instead of the nine-fold copy an im2col writes and reads
// back.

// kSeg is a run of columns [k0, k0+n) of a windowed operand at element
// offset off of its array, the columns one element apart.
type kSeg struct{ k0, n, off int64 }

// windows is a windowed operand: the array the windows are sliced from
// (the body's parameter), the operand's logical dims [rows, T*F] and its
// runs.
type windows struct {
	param string
	dims  []int64
	rowSt int64 // elements between rows: F
	segs  []kSeg
}

// windowOperand recognizes the dot's operand side (0 lhs, 1 rhs) in
// body as windows of one array along its columns (the lhs's contracting
// dim, the rhs's free dim), or returns false.
func windowOperand(body []*hlo.Instruction, dot *hlo.Instruction, side int) (windows, bool) {
	byName := map[string]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
	}
	if len(dot.Operands) != 2 {
		return windows{}, false
	}
	cat := byName[dot.Operands[side].Name]
	pre := []string{"lhs", "rhs"}[side]
	cd, _ := hlo.IntList(hlo.AttrOr(dot, pre+"_contracting_dims", "{}"))
	bd, _ := hlo.IntList(hlo.AttrOr(dot, pre+"_batch_dims", "{}"))
	if cat == nil || cat.Opcode != hlo.OpConcatenate || len(bd) != 0 || len(cd) != 1 || cd[0] != int64(1-side) {
		return windows{}, false
	}
	if d, _ := hlo.IntList(hlo.AttrOr(cat, "dimensions", "{}")); len(d) != 1 || d[0] != 1 || len(cat.Shape.Dims) != 2 {
		return windows{}, false
	}
	M := cat.Shape.Dims[0]
	w := windows{dims: cat.Shape.Dims}
	var k0 int64
	for _, o := range cat.Operands {
		s := byName[o.Name]
		if s == nil || s.Opcode != hlo.OpSlice || len(s.Operands) != 1 {
			return windows{}, false
		}
		// The array in rows: a parameter, or a reshape of one (the
		// fusion takes in the reshapes the slices read).
		x := byName[s.Operands[0].Name]
		p := x
		for p != nil && p.Opcode == hlo.OpReshape && len(p.Operands) == 1 {
			p = byName[p.Operands[0].Name]
		}
		if x == nil || p == nil || p.Opcode != hlo.OpParameter || len(x.Shape.Dims) != 2 || p.Shape.Layout != nil && !defaultLayout(p.Shape) ||
			w.param != "" && (w.param != p.Name || w.rowSt != x.Shape.Dims[1]) {
			return windows{}, false
		}
		w.param, w.rowSt = p.Name, x.Shape.Dims[1]
		sd := hlo.SliceDims(s)
		if len(sd) != 2 || s.Shape.Dims[0] != M || s.Shape.Dims[1] != x.Shape.Dims[1] || sd[1].Start != 0 || sd[0].Stride != 1 || sd[1].Stride != 1 {
			return windows{}, false
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
// (for windows, k's run must hold the whole tile: segWidth).
func (v dotView) colOff(k int64) int64 {
	for _, s := range v.segs {
		if k >= s.k0 && k < s.k0+s.n {
			return s.off + (k-s.k0)*v.sCol
		}
	}
	return k * v.sCol
}

// segWidth is the greatest common divisor of v's runs' widths: tiles
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
// windows (their concatenate, the slices and their reshapes): a split
// fusion leaves them to the dot's kernel rather than computing them.
func windowMembers(body []*hlo.Instruction) map[string]bool {
	m := map[string]bool{}
	byName := map[string]*hlo.Instruction{}
	for _, x := range body {
		byName[x.Name] = x
	}
	for _, b := range body {
		if b.Opcode != hlo.OpDot {
			continue
		}
		for side := range 2 {
			if _, ok := windowOperand(body, b, side); ok {
				windowNames(m, byName, byName[b.Operands[side].Name])
			}
			if bc := broadcastOperand(byName, b, side); bc != nil {
				m[bc.Name] = true
			}
		}
	}
	return m
}

// broadcastOperand is dot's operand side when it is a broadcast over the
// batch that the dot kernel reads in place (fusion.OperandBroadcast), or
// nil.
func broadcastOperand(byName map[string]*hlo.Instruction, dot *hlo.Instruction, side int) *hlo.Instruction {
	if dot.Opcode != hlo.OpDot || len(dot.Operands) != 2 {
		return nil
	}
	b := byName[dot.Operands[side].Name]
	if b == nil || b.Opcode != hlo.OpBroadcast || len(b.Operands) != 1 || !fusion.OperandBroadcast(dot, side, b) {
		return nil
	}
	return b
}

// windowNames adds to m the concatenate cat, its slices and their reshapes.
func windowNames(m map[string]bool, byName map[string]*hlo.Instruction, cat *hlo.Instruction) {
	m[cat.Name] = true
	for _, o := range cat.Operands {
		m[o.Name] = true
		for x := byName[byName[o.Name].Operands[0].Name]; x != nil && x.Opcode == hlo.OpReshape; x = byName[x.Operands[0].Name] {
			m[x.Name] = true
		}
	}
}

// windowedDot reports whether either operand of dot is windows in body,
// or broadcast over the batch: views its kernel reads in place.
func windowedDot(body []*hlo.Instruction, dot *hlo.Instruction) bool {
	_, l := windowOperand(body, dot, 0)
	_, r := windowOperand(body, dot, 1)
	byName := map[string]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
	}
	return l || r || broadcastOperand(byName, dot, 0) != nil || broadcastOperand(byName, dot, 1) != nil
}

// shiftCols is runs seen from column c0 on (a share of the columns that
// starts there): each run's first column moves back by c0.
func shiftCols(segs []kSeg, c0 int64) []kSeg {
	out := make([]kSeg, len(segs))
	for i, s := range segs {
		out[i] = kSeg{k0: s.k0 - c0, n: s.n, off: s.off}
	}
	return out
}

// segSpan is where v's windows reach relative to a row's start: the
// first element any of them reads and one past the last (for the last
// column of the last run), so that rows [m0, m0+n) read elements
// m0*sRow + lo up to (m0+n-1)*sRow + hi.
func (v dotView) segSpan() (lo, hi int64) {
	lo = v.segs[0].off
	for _, s := range v.segs {
		lo = min(lo, s.off)
		hi = max(hi, s.off+(s.n-1)*v.sCol+1)
	}
	return lo, hi
}

// broadcastOperandView is a dot operand broadcast over its leading batch
// dims (fusion.OperandBroadcast) as the dot sees it: the broadcast's
// dims, with strides of zero over the added dims and the array's own
// strides over the rest.
func broadcastOperandView(b *hlo.Instruction, v *value) (dims, strides []int64) {
	dims = b.Shape.Dims
	k := len(dims) - len(v.shape.Dims)
	strides = append(make([]int64, k), hlo.Strides(v.shape.Dims)...)
	return dims, strides
}

// runEnds lists where v's runs of columns end (the last at K): K tiles
// within one run are a fixed step apart, so a counted loop can walk them.
func (v dotView) runEnds(K int64) []int64 {
	var ends []int64
	for _, s := range v.segs {
		ends = append(ends, min(s.k0+s.n, K))
	}
	return append(ends, K)
}
