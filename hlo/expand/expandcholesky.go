package expand

import (
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// ExpandCholeskys rewrites cholesky(a) as XLA's CholeskyExpander computes
// it: L lower triangular with a = L L^T (lower=true; for lower=false the
// transpose of the factor of a^T, an upper U with a = U^T U), reading
// only a's triangle, zeros elsewhere; blocks of 128 columns, each
// factored by a loop over its columns (column j of the block from
// (a - L L^T)[:, j] / sqrt of its diagonal) and the rows below it solved
// against it (a triangular-solve); a matrix whose factorization meets a
// NaN (not positive definite) comes out all NaN, each batch element on its
// own. The evaluator evaluates the same expansion.
func ExpandCholeskys(m *hlo.Module) error {
	return rewriteEach(m, "cholesky", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if len(ops) != 1 || ops[0].Shape.IsTuple || in.Shape.IsTuple {
			return x.Errorf("cholesky takes one array")
		}
		a := ops[0]
		d := a.Shape.Dims
		r := len(d)
		if r < 2 || d[r-1] != d[r-2] || !hlo.EqualDims(in.Shape.Dims, d) {
			return x.Errorf("cholesky takes [..., n, n] and returns its shape (here %s)", a.Shape)
		}
		if !hlo.IsRealFloat(a.Shape.Elem) {
			return x.Errorf("cholesky of %s: a float type is needed", a.Shape.Elem)
		}
		lower := true
		if v, ok := in.Attr("lower"); ok {
			lower = v == "true"
		}
		swap := append(hlo.Iota64(0, r-2), int64(r-1), int64(r-2))
		if !lower {
			a = x.Transpose(a, swap)
		}
		l := x.cholesky(a)
		if !lower {
			l = x.Transpose(l, swap)
		}
		x.Finish(l)
		return nil
	})
}

// cholesky is the blocked left-looking factorization of a's lower triangle.
func (x *rewriter) cholesky(a *hlo.Instruction) *hlo.Instruction {
	d := a.Shape.Dims
	r := len(d)
	n := d[r-1]
	elem := a.Shape.Elem
	batch := d[:r-2]
	errDims := append(append([]int64{}, batch...), 1, 1)
	l := x.Broadcast(x.Constant(elem, "0"), d, nil)
	var seen *hlo.Instruction
	for i := int64(0); i < n; i += trsmBlock {
		k := min(int64(trsmBlock), n-i)
		panel := x.minorSlice(a, [2]int64{i, i}, [2]int64{n, i + k})
		if i > 0 {
			lhs := x.minorSlice(l, [2]int64{i, 0}, [2]int64{n, i})
			rhs := x.minorSlice(l, [2]int64{i, 0}, [2]int64{i + k, i})
			panel = x.Binary("subtract", panel, x.batchDot(lhs, false, rhs, true))
		}
		blk := x.minorSlice(panel, [2]int64{0, 0}, [2]int64{k, k})
		var f, bad *hlo.Instruction
		if k == 1 {
			f = x.Emit("sqrt", elem, blk.Shape.Dims, []*hlo.Instruction{blk})
			bad = x.isNaN(f)
		} else {
			f, bad = x.choleskyUnblocked(blk)
		}
		if seen == nil {
			seen = bad
		} else {
			seen = x.Emit("or", "pred", errDims, []*hlo.Instruction{seen, bad})
		}
		l = x.updateMinor(l, f, i, i)
		if i+k < n {
			below := x.minorSlice(panel, [2]int64{k, 0}, [2]int64{n - i, k})
			u := x.Emit("triangular-solve", elem, below.Shape.Dims, []*hlo.Instruction{f, below},
				"left_side", "false", "lower", "true", "unit_diagonal", "false", "transpose_a", "ADJOINT")
			l = x.updateMinor(l, u, i+k, i)
		}
	}
	nan := x.Broadcast(x.Constant(elem, "nan"), d, nil)
	mask := x.Broadcast(x.Reshape(seen, batch), d, hlo.Iota64(0, r-2))
	return x.Emit("select", elem, d, []*hlo.Instruction{mask, nan, l})
}

// isNaN is pred [..., 1, 1]: whether v (of that shape) is NaN.
func (x *rewriter) isNaN(v *hlo.Instruction) *hlo.Instruction {
	return x.Emit("compare", "pred", v.Shape.Dims, []*hlo.Instruction{v, v}, "direction", "NE")
}

// updateMinor writes u into a at (row, col) of its last two dims.
func (x *rewriter) updateMinor(a, u *hlo.Instruction, row, col int64) *hlo.Instruction {
	r := len(a.Shape.Dims)
	idx := []*hlo.Instruction{a, u}
	for range r - 2 {
		idx = append(idx, x.Constant("s32", "0"))
	}
	idx = append(idx, x.Constant("s32", strconv.FormatInt(row, 10)), x.Constant("s32", strconv.FormatInt(col, 10)))
	return x.Emit("dynamic-update-slice", a.Shape.Elem, a.Shape.Dims, idx)
}

// choleskyUnblocked factors a [..., k, k] column by column: column j of L
// is (a - L L^T)[:, j] below and on the diagonal, over the square root of
// its diagonal entry; it returns L and whether a NaN met the diagonal.
func (x *rewriter) choleskyUnblocked(a *hlo.Instruction) (*hlo.Instruction, *hlo.Instruction) {
	d := a.Shape.Dims
	r := len(d)
	k := d[r-1]
	elem := a.Shape.Elem
	errDims := append(append([]int64{}, d[:r-2]...), 1, 1)
	l0 := x.Broadcast(x.Constant(elem, "0"), d, nil)
	e0 := x.Broadcast(x.Constant("pred", "false"), errDims, nil)
	out := x.Counted("cholesky", k, []*hlo.Instruction{a, l0, e0}, func(ry *rewrite.Rewriter, i *hlo.Instruction, v []*hlo.Instruction) []*hlo.Instruction {
		y := &rewriter{ry}
		a, l, seen := v[0], v[1], v[2]
		col := y.Emit("iota", "s32", d, nil, "iota_dimension", strconv.Itoa(r-1))
		row := y.Emit("iota", "s32", d, nil, "iota_dimension", strconv.Itoa(r-2))
		ib := y.Broadcast(i, d, nil)
		mask := y.Emit("and", "pred", d, []*hlo.Instruction{
			y.Emit("compare", "pred", d, []*hlo.Instruction{row, col}, "direction", "GE"),
			y.Emit("compare", "pred", d, []*hlo.Instruction{col, ib}, "direction", "EQ")})
		rest := y.Binary("subtract", a, y.batchDot(l, false, l, true))
		idx := []*hlo.Instruction{rest}
		for range r - 2 {
			idx = append(idx, y.Constant("s32", "0"))
		}
		idx = append(idx, i, i)
		lii := y.Emit("dynamic-slice", elem, errDims, idx, "dynamic_slice_sizes", hlo.IntsText(errDims))
		lii = y.Emit("sqrt", elem, errDims, []*hlo.Instruction{lii})
		seen = y.Emit("or", "pred", errDims, []*hlo.Instruction{seen, y.isNaN(lii)})
		div := y.Binary("divide", rest, y.Broadcast(y.Reshape(lii, d[:r-2]), d, hlo.Iota64(0, r-2)))
		zeros := y.Broadcast(y.Constant(elem, "0"), d, nil)
		l = y.Binary("add", y.Emit("select", elem, d, []*hlo.Instruction{mask, div, zeros}), l)
		return []*hlo.Instruction{a, l, seen}
	})
	return out[1], out[2]
}
