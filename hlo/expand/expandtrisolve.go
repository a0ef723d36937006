package expand

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// ExpandTriangularSolves rewrites triangular-solve(a, b) — X with
// op(a) X = b (left_side=true) or X op(a) = b, op(a) = a or its transpose
// (transpose_a; ADJOINT is TRANSPOSE for real types), reading only the
// triangle of a that lower names, ones on its diagonal when
// unit_diagonal=true, leading dims batches — as a substitution loop the
// chips run: op(a)'s triangle is made explicit (the other triangle zeros,
// whatever a holds there), a right-side solve becomes a left-side one of
// the transposes, an upper one a lower one by reversing rows and columns,
// and a counted loop computes row i of X as (b_i - L_i . X) / L_ii. The
// evaluator runs this expansion too; its tests check it against a direct
// float64 solve (hlo/eval's trisolvedirect_test.go).
func ExpandTriangularSolves(m *hlo.Module) error {
	return rewriteEach(m, "triangular-solve", func(x *rewriter, ops []*hlo.Instruction) error {
		if len(ops) != 2 || ops[0].Shape.IsTuple || ops[1].Shape.IsTuple || x.At.Shape.IsTuple {
			return x.Errorf("triangular-solve takes arrays a and b")
		}
		return x.expandTriangularSolve(ops[0], ops[1])
	})
}

func (x *rewriter) expandTriangularSolve(a, b *hlo.Instruction) error {
	in := x.At
	flag := func(k string) bool { v, _ := in.Attr(k); return v == "true" }
	left, lower, unit := flag("left_side"), flag("lower"), flag("unit_diagonal")
	transposed := false
	switch tr, _ := in.Attr("transpose_a"); tr {
	case "", "NO_TRANSPOSE":
	case "TRANSPOSE", "ADJOINT":
		transposed = true
	default:
		return x.Errorf("transpose_a=%s", tr)
	}
	ad, bd := a.Shape.Dims, b.Shape.Dims
	r := len(ad)
	if r < 2 || len(bd) != r || ad[r-1] != ad[r-2] || !hlo.EqualDims(ad[:r-2], bd[:r-2]) || !hlo.EqualDims(in.Shape.Dims, bd) {
		return x.Errorf("a must be [..., m, m] and b and the result [..., rows, cols] with a's batch dims")
	}
	n := ad[r-1]
	if left && bd[r-2] != n || !left && bd[r-1] != n {
		return x.Errorf("b %s does not fit a %s", b.Shape, a.Shape)
	}
	switch {
	case hlo.Prod(bd) == 0:
		x.Finish(b)
	case n == 1:
		if unit {
			x.Finish(b)
		} else {
			nb := r - 2
			x.Finish(x.Binary("divide", b, x.Broadcast(x.Reshape(a, ad[:nb]), bd, hlo.Iota64(0, nb))))
		}
	case hlo.Prod(ad[:r-2]) > trsmBlock/16 && n < trsmBlock/4:
		x.Finish(x.solveDirectly(a, b, left, lower, transposed, unit))
	default:
		x.Finish(x.solveByInvertedBlocks(a, b, left, lower, transposed, unit))
	}
	return nil
}

// trsmBlock is the block size of XLA's TriangularSolveExpander (its
// default, which the CPU backend uses).
const trsmBlock = 128

// triangle keeps a's lower (or upper) triangle and diagonal, zeros
// elsewhere; strict leaves the diagonal out too.
func (x *rewriter) triangle(a *hlo.Instruction, lower, strict bool) *hlo.Instruction {
	ad := a.Shape.Dims
	r := len(ad)
	row := x.Emit("iota", "s32", ad, nil, "iota_dimension", strconv.Itoa(r-2))
	col := x.Emit("iota", "s32", ad, nil, "iota_dimension", strconv.Itoa(r-1))
	dir := map[[2]bool]string{{true, false}: "GE", {true, true}: "GT", {false, false}: "LE", {false, true}: "LT"}[[2]bool{lower, strict}]
	keep := x.Emit("compare", "pred", ad, []*hlo.Instruction{row, col}, "direction", dir)
	return x.Emit("select", a.Shape.Elem, ad, []*hlo.Instruction{keep, a, x.Broadcast(x.Constant(a.Shape.Elem, "0"), ad, nil)})
}

// solveDirectly is XLA's direct solve for many small systems: op(a)'s
// triangle made explicit, a right-side solve as a left-side one of the
// transposes, an upper one as a lower one by reversing rows and columns,
// then forward substitution.
func (x *rewriter) solveDirectly(a, b *hlo.Instruction, left, lower, transposed, unit bool) *hlo.Instruction {
	ad := a.Shape.Dims
	r := len(ad)
	elem := a.Shape.Elem
	swap := append(hlo.Iota64(0, r-2), int64(r-1), int64(r-2))
	M := x.triangle(a, lower, unit)
	if unit {
		row := x.Emit("iota", "s32", ad, nil, "iota_dimension", strconv.Itoa(r-2))
		col := x.Emit("iota", "s32", ad, nil, "iota_dimension", strconv.Itoa(r-1))
		diag := x.Emit("compare", "pred", ad, []*hlo.Instruction{row, col}, "direction", "EQ")
		M = x.Emit("select", elem, ad, []*hlo.Instruction{diag, x.Broadcast(x.Constant(elem, "1"), ad, nil), M})
	}
	low := lower
	if transposed {
		M, low = x.Transpose(M, swap), !low
	}
	B := b
	if !left {
		M, B, low = x.Transpose(M, swap), x.Transpose(B, swap), !low
	}
	if !low {
		M = x.Emit("reverse", elem, ad, []*hlo.Instruction{M}, "dimensions", hlo.IntsText([]int64{int64(r - 2), int64(r - 1)}))
		B = x.Emit("reverse", elem, B.Shape.Dims, []*hlo.Instruction{B}, "dimensions", hlo.IntsText([]int64{int64(r - 2)}))
	}
	X := x.substitute(M, B)
	if !low {
		X = x.Emit("reverse", elem, X.Shape.Dims, []*hlo.Instruction{X}, "dimensions", hlo.IntsText([]int64{int64(r - 2)}))
	}
	if !left {
		X = x.Transpose(X, swap)
	}
	return X
}

// batchDot is XLA's BatchDot: the product of the last two dims of p and q
// (each transposed first when asked), over their leading batch dims.
func (x *rewriter) batchDot(p *hlo.Instruction, tp bool, q *hlo.Instruction, tq bool) *hlo.Instruction {
	r := len(p.Shape.Dims)
	pc, qc := r-1, r-2
	if tp {
		pc = r - 2
	}
	if tq {
		qc = r - 1
	}
	dims := append([]int64{}, p.Shape.Dims[:r-2]...)
	dims = append(dims, p.Shape.Dims[2*r-3-pc], q.Shape.Dims[2*r-3-qc])
	attrs := []string{"lhs_contracting_dims", fmt.Sprintf("{%d}", pc), "rhs_contracting_dims", fmt.Sprintf("{%d}", qc)}
	if r > 2 {
		bs := hlo.IntsText(hlo.Iota64(0, r-2))
		attrs = append(attrs, "lhs_batch_dims", bs, "rhs_batch_dims", bs)
	}
	return x.Emit("dot", p.Shape.Elem, dims, []*hlo.Instruction{p, q}, attrs...)
}

// minorSlice slices the last two dims of a: [lo0:hi0, lo1:hi1].
func (x *rewriter) minorSlice(a *hlo.Instruction, lo, hi [2]int64) *hlo.Instruction {
	r := len(a.Shape.Dims)
	start, count := make([]int64, r), append([]int64{}, a.Shape.Dims...)
	start[r-2], start[r-1] = lo[0], lo[1]
	count[r-2], count[r-1] = hi[0]-lo[0], hi[1]-lo[1]
	return x.Slice(a, start, count, hlo.Ones(r))
}

// solveByInvertedBlocks is XLA's blocked solve: a's triangle (with ones
// on the diagonal when unit), its diagonal blocks of trsmBlock inverted
// together, then block by block x_j = inv_j (b_j - a_j x_<j) (op(.) and
// sides as the attributes say).
func (x *rewriter) solveByInvertedBlocks(a, b *hlo.Instruction, left, lower, transposed, unit bool) *hlo.Instruction {
	ad := a.Shape.Dims
	r := len(ad)
	elem := a.Shape.Elem
	n := ad[r-1]
	batch := ad[:r-2]
	if unit {
		a = x.triangle(a, lower, true)
		eye := x.identity(elem, n)
		a = x.Binary("add", a, x.Broadcast(eye, ad, []int64{int64(r - 2), int64(r - 1)}))
	} else {
		a = x.triangle(a, lower, false)
	}
	bs := min(int64(trsmBlock), n)
	nb := n / bs
	rem := n % bs
	// The diagonal blocks, [..., blocks, bs, bs]; the last padded with
	// the identity.
	var blocks []*hlo.Instruction
	for j := range nb {
		blk := x.minorSlice(a, [2]int64{j * bs, j * bs}, [2]int64{(j + 1) * bs, (j + 1) * bs})
		blocks = append(blocks, x.Reshape(blk, append(append(append([]int64{}, batch...), 1), bs, bs)))
	}
	if rem != 0 {
		last := x.minorSlice(a, [2]int64{n - rem, n - rem}, [2]int64{n, n})
		pad := bs - rem
		lp := make([]string, r)
		for i := range lp {
			lp[i] = "0_0"
		}
		lp[r-2] = fmt.Sprintf("0_%d", pad)
		lp[r-1] = fmt.Sprintf("0_%d", pad)
		last = x.Emit("pad", elem, append(append([]int64{}, batch...), bs, bs), []*hlo.Instruction{last, x.Constant(elem, "0")}, "padding", strings.Join(lp, "x"))
		eye := x.identity(elem, bs)
		row := x.Emit("iota", "s32", []int64{bs, bs}, nil, "iota_dimension", "0")
		keep := x.Emit("compare", "pred", []int64{bs, bs}, []*hlo.Instruction{row, x.Broadcast(x.Constant("s32", strconv.FormatInt(rem, 10)), []int64{bs, bs}, nil)}, "direction", "GE")
		eye = x.Emit("select", elem, []int64{bs, bs}, []*hlo.Instruction{keep, eye, x.Broadcast(x.Constant(elem, "0"), []int64{bs, bs}, nil)})
		last = x.Binary("add", last, x.Broadcast(eye, last.Shape.Dims, []int64{int64(r - 2), int64(r - 1)}))
		blocks = append(blocks, x.Reshape(last, append(append(append([]int64{}, batch...), 1), bs, bs)))
	}
	diag := blocks[0]
	if len(blocks) > 1 {
		diag = x.Concatenate(blocks, r-2)
	}
	inv := x.invertBlocks(diag, lower)
	// Block by block.
	total := int64(len(blocks))
	m := b.Shape.Dims[r-1]
	if !left {
		m = b.Shape.Dims[r-2]
	}
	blockDim := r - 2
	if !left {
		blockDim = r - 1
	}
	var X *hlo.Instruction
	for i := range total {
		backward := left != lower != transposed
		j := i
		if backward {
			j = total - 1 - i
		}
		blk := bs
		if rem != 0 && j+1 == total {
			blk = rem
		}
		st, cnt := make([]int64, r+1), append([]int64{}, inv.Shape.Dims...)
		st[r-2], cnt[r-2] = j, 1
		cnt[r-1], cnt[r] = blk, blk
		ib := x.Reshape(x.Slice(inv, st, cnt, hlo.Ones(r+1)), append(append([]int64{}, batch...), blk, blk))
		k := min((j+1)*bs, n)
		lo, hi := [2]int64{j * bs, 0}, [2]int64{k, m}
		if !left {
			lo, hi = [2]int64{0, j * bs}, [2]int64{m, k}
		}
		rest := x.minorSlice(b, lo, hi)
		if i > 0 {
			if backward {
				lo, hi = [2]int64{j * bs, max(0, (total-i)*bs)}, [2]int64{k, n}
			} else {
				lo, hi = [2]int64{j * bs, 0}, [2]int64{k, min(i*bs, n)}
			}
			if !left != transposed {
				lo, hi = [2]int64{lo[1], lo[0]}, [2]int64{hi[1], hi[0]}
			}
			arow := x.minorSlice(a, lo, hi)
			if left {
				rest = x.Binary("subtract", rest, x.batchDot(arow, transposed, X, false))
			} else {
				rest = x.Binary("subtract", rest, x.batchDot(X, false, arow, transposed))
			}
		}
		var upd *hlo.Instruction
		if left {
			upd = x.batchDot(ib, transposed, rest, false)
		} else {
			upd = x.batchDot(rest, false, ib, transposed)
		}
		switch {
		case i == 0:
			X = upd
		case backward:
			X = x.Concatenate([]*hlo.Instruction{upd, X}, blockDim)
		default:
			X = x.Concatenate([]*hlo.Instruction{X, upd}, blockDim)
		}
	}
	return X
}

// identity is the n x n identity matrix of elem.
func (x *rewriter) identity(elem string, n int64) *hlo.Instruction {
	d := []int64{n, n}
	row := x.Emit("iota", "s32", d, nil, "iota_dimension", "0")
	col := x.Emit("iota", "s32", d, nil, "iota_dimension", "1")
	eq := x.Emit("compare", "pred", d, []*hlo.Instruction{row, col}, "direction", "EQ")
	return x.Emit("select", elem, d, []*hlo.Instruction{eq, x.Broadcast(x.Constant(elem, "1"), d, nil), x.Broadcast(x.Constant(elem, "0"), d, nil)})
}

// invertBlocks is XLA's InvertDiagonalBlocks: blocks [..., bs, bs] of a
// lower (or upper) triangular matrix, scaled to a unit diagonal (columns
// divided by it), inverted one row at a time in a loop (row j becomes
// -row_j(scaled) @ inverse-so-far, the not-yet-inverted rows holding -e_k),
// then rows divided by the diagonal.
func (x *rewriter) invertBlocks(blocks *hlo.Instruction, lower bool) *hlo.Instruction {
	d := blocks.Shape.Dims
	elem := blocks.Shape.Elem
	bs := d[len(d)-1]
	N := hlo.Prod(d) / (bs * bs)
	flat := []int64{N, bs, bs}
	B := x.triangle(x.Reshape(blocks, flat), lower, false)
	row := x.Emit("iota", "s32", flat, nil, "iota_dimension", "1")
	col := x.Emit("iota", "s32", flat, nil, "iota_dimension", "2")
	eq := x.Emit("compare", "pred", flat, []*hlo.Instruction{row, col}, "direction", "EQ")
	diags := x.ReduceSum(x.Emit("select", elem, flat, []*hlo.Instruction{eq, B, x.Broadcast(x.Constant(elem, "0"), flat, nil)}), []int64{2})
	scaled := x.Binary("divide", B, x.Broadcast(diags, flat, []int64{0, 2}))
	first := int64(0)
	if !lower {
		first = bs - 1
	}
	keep := x.Emit("compare", "pred", flat, []*hlo.Instruction{row, x.Broadcast(x.Constant("s32", strconv.FormatInt(first, 10)), flat, nil)}, "direction", "EQ")
	minusOne := x.Emit("select", elem, flat, []*hlo.Instruction{keep, x.Broadcast(x.Constant(elem, "1"), flat, nil), x.Broadcast(x.Constant(elem, "-1"), flat, nil)})
	out0 := x.Emit("select", elem, flat, []*hlo.Instruction{eq, minusOne, x.Broadcast(x.Constant(elem, "0"), flat, nil)})
	res := x.Counted("invert", bs-1, []*hlo.Instruction{out0, scaled}, func(ry *rewrite.Rewriter, i *hlo.Instruction, v []*hlo.Instruction) []*hlo.Instruction {
		y := &rewriter{ry}
		out, in := v[0], v[1]
		zero := y.Constant("s32", "0")
		// The loop counts from 0; XLA's from 1.
		k := y.Binary("add", i, y.Constant("s32", "1"))
		j := k
		if !lower {
			j = y.Binary("subtract", y.Constant("s32", strconv.FormatInt(bs-1, 10)), k)
		}
		rw := y.Emit("dynamic-slice", elem, []int64{N, 1, bs}, []*hlo.Instruction{in, zero, j, zero}, "dynamic_slice_sizes", hlo.IntsText([]int64{N, 1, bs}))
		p := y.Emit("dot", elem, []int64{N, 1, bs}, []*hlo.Instruction{rw, out}, "lhs_batch_dims", "{0}", "rhs_batch_dims", "{0}", "lhs_contracting_dims", "{2}", "rhs_contracting_dims", "{1}")
		upd := y.Emit("negate", elem, p.Shape.Dims, []*hlo.Instruction{p})
		out = y.Emit("dynamic-update-slice", elem, flat, []*hlo.Instruction{out, upd, zero, j, zero})
		return []*hlo.Instruction{out, in}
	})
	inv := x.Binary("divide", res[0], x.Broadcast(diags, flat, []int64{0, 1}))
	return x.Reshape(inv, d)
}

// substitute solves L X = B for X by forward substitution: L [..., n, n]
// lower triangular (zeros above the diagonal), B [..., n, c].
func (x *rewriter) substitute(L, B *hlo.Instruction) *hlo.Instruction {
	elem, bd := B.Shape.Elem, B.Shape.Dims
	r := len(bd)
	n, c := bd[r-2], bd[r-1]
	batch := bd[:r-2]
	X0 := x.Broadcast(x.Constant(elem, "0"), bd, nil)
	out := x.Counted("substitute", n, []*hlo.Instruction{X0, L, B}, func(ry *rewrite.Rewriter, i *hlo.Instruction, v []*hlo.Instruction) []*hlo.Instruction {
		y := &rewriter{ry}
		X, L, B := v[0], v[1], v[2]
		zero := y.Constant("s32", "0")
		at := func(last ...*hlo.Instruction) []*hlo.Instruction {
			idx := make([]*hlo.Instruction, 0, r)
			for range batch {
				idx = append(idx, zero)
			}
			return append(idx, last...)
		}
		sizes := func(last ...int64) string { return hlo.IntsText(append(append([]int64{}, batch...), last...)) }
		dims := func(last ...int64) []int64 { return append(append([]int64{}, batch...), last...) }
		rowL := y.Emit("dynamic-slice", elem, dims(1, n), append([]*hlo.Instruction{L}, at(i, zero)...), "dynamic_slice_sizes", sizes(1, n))
		bi := y.Emit("dynamic-slice", elem, dims(1, c), append([]*hlo.Instruction{B}, at(i, zero)...), "dynamic_slice_sizes", sizes(1, c))
		lii := y.Emit("dynamic-slice", elem, dims(1, 1), append([]*hlo.Instruction{L}, at(i, i)...), "dynamic_slice_sizes", sizes(1, 1))
		nb := len(batch)
		dotAttrs := []string{"lhs_contracting_dims", fmt.Sprintf("{%d}", nb+1), "rhs_contracting_dims", fmt.Sprintf("{%d}", nb)}
		if nb > 0 {
			bs := hlo.IntsText(hlo.Iota64(0, nb))
			dotAttrs = append(dotAttrs, "lhs_batch_dims", bs, "rhs_batch_dims", bs)
		}
		s := y.Emit("dot", elem, dims(1, c), []*hlo.Instruction{rowL, X}, dotAttrs...)
		den := y.Broadcast(y.Reshape(lii, batch), dims(1, c), hlo.Iota64(0, nb))
		xi := y.Binary("divide", y.Binary("subtract", bi, s), den)
		X = y.Emit("dynamic-update-slice", elem, bd, append([]*hlo.Instruction{X, xi}, at(i, zero)...))
		return []*hlo.Instruction{X, L, B}
	})
	return out[0]
}
