package lowering

import (
	"fmt"
	"slices"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Dots on the vector unit.
//
// A dot one of whose operands has only batch and contracting dimensions
// (a decode step's q.K^T of one query per head, its p.V) is, per batch, a
// vector times a matrix: on the matrix unit each batch is a weight load
// and one row through the array, which comes out after the array's depth
// and width (about 300 cycles on a 128x128 MXU) for a handful of MACs.
// XLA's algebraic simplifier strength-reduces such a dot to a multiply and
// a reduction by default (DotHasOnlyBatchAndContractingOnOneOperand;
// docs/RATIONALE.md), which a TPU's fusion runs on the vector unit. Pulse
// does the same in one kernel, when the products fit a tile of SRAM:
//
//	P = M * V              one vmul, V read through a view of stride 0
//	                       over M's free dims (M: the other operand)
//	sum P over K           a vrsum over the last dim when the contracted
//	                       dims are M's innermost, else a tree of vadds
//	                       halving them, the last writing the result in
//	                       the output's order (a strided view)
//
// with M and V read where they lie in VMEM, or loaded by DMA from HBM,
// and the result written where it lies in VMEM or stored to HBM.

// vpuDotMaxProducts bounds the products a vector-unit dot holds in SRAM
// (1 MiB of f32): beyond it the matrix unit streams the operand at HBM's
// rate, which no vector-unit kernel can beat.
const vpuDotMaxProducts = 1 << 18

// vpuDotPlan is a vector-unit dot, planned over the matrix operand's dims
// after merging (at most 4).
type vpuDotPlan struct {
	vecSide    int     // the operand with only batch and contracting dims: 0 lhs, 1 rhs
	dims       []int64 // the matrix operand's dims, merged, none of 1
	k          int     // the contracted dim's index in dims (-1: nothing contracted)
	vecStrides []int64 // the vector operand's element strides over dims (0 on free dims)
	outStrides []int64 // the result's element strides over dims (0 on the contracted dim)
}

// planVPUDot plans dot (lhs of shape ls, rhs of shape rs, both row-major)
// on the vector unit, or reports that it is not such a dot: neither
// operand a vector (free dims of size 1 aside, which leave the output's
// strides as they are), contracted dims not one run of the matrix operand
// (in the vector's order), more than 4 dims after merging, or more than
// vpuDotMaxProducts products.
func planVPUDot(ls, rs []int64, lb, rb, lc, rc []int64) (vpuDotPlan, bool) {
	shapes := [2][]int64{ls, rs}
	batch := [2][]int64{lb, rb}
	contr := [2][]int64{lc, rc}
	// A vector has no free dims but of size 1: XLA removes a dot's
	// degenerate dims before it strength-reduces (a decode step's
	// [B,H,1,D] query is a vector per batch).
	vec := -1
	for side := range 2 {
		free := freeDims(len(shapes[side]), batch[side], contr[side])
		if !slices.ContainsFunc(free, func(d int64) bool { return shapes[side][d] != 1 }) {
			vec = side
			break
		}
	}
	if vec < 0 || len(lb) != len(rb) || len(lc) != len(rc) {
		return vpuDotPlan{}, false
	}
	mat := 1 - vec
	ms, vs := shapes[mat], shapes[vec]
	vst := hlo.Strides(vs)
	free := freeDims(len(ms), batch[mat], contr[mat])
	// The output: batch dims (in the dot's order), then the matrix
	// operand's free dims; row-major.
	var outDims []int64
	for _, d := range batch[mat] {
		outDims = append(outDims, ms[d])
	}
	for _, d := range free {
		outDims = append(outDims, ms[d])
	}
	ost := hlo.Strides(outDims)
	n := len(ms)
	vS, oS, isK := make([]int64, n), make([]int64, n), make([]bool, n)
	for i, d := range batch[mat] {
		vS[d], oS[d] = vst[batch[vec][i]], ost[i]
	}
	for i, d := range free {
		oS[d] = ost[len(batch[mat])+i]
	}
	for i, d := range contr[mat] {
		vS[d], isK[d] = vst[contr[vec][i]], true
	}
	// Merge neighbours that every view walks as one: M is row-major, so
	// its own strides always allow it.
	type dim struct {
		n, v, o int64
		k       bool
	}
	var ds []dim
	products := int64(1)
	for i := range n {
		products *= ms[i]
		if ms[i] == 1 {
			continue
		}
		cur := dim{ms[i], vS[i], oS[i], isK[i]}
		if len(ds) > 0 {
			p := &ds[len(ds)-1]
			if p.k == cur.k && p.v == cur.v*cur.n && p.o == cur.o*cur.n {
				p.n, p.v, p.o = p.n*cur.n, cur.v, cur.o
				continue
			}
		}
		ds = append(ds, cur)
	}
	if products == 0 || products > vpuDotMaxProducts || len(ds) > 4 {
		return vpuDotPlan{}, false
	}
	p := vpuDotPlan{vecSide: vec, k: -1}
	for i, d := range ds {
		if d.k {
			if p.k >= 0 {
				return vpuDotPlan{}, false // contracted dims apart
			}
			p.k = i
			d.o = 0
		}
		p.dims = append(p.dims, d.n)
		p.vecStrides = append(p.vecStrides, d.v)
		p.outStrides = append(p.outStrides, d.o)
	}
	if len(p.dims) == 0 {
		p.dims, p.vecStrides, p.outStrides = []int64{1}, []int64{0}, []int64{0}
	}
	return p, true
}

// levels is the tree's halvings of the contracted dim: each pair (n, h)
// adds the last h of n rows onto the first h, leaving n-h.
func (p vpuDotPlan) levels() [][2]int64 {
	if p.k < 0 || p.k == len(p.dims)-1 {
		return nil // nothing contracted, or one vrsum
	}
	var ls [][2]int64
	for n := p.dims[p.k]; n > 1; n -= n / 2 {
		ls = append(ls, [2]int64{n, n / 2})
	}
	return ls
}

// vpuDotKernel lowers dot fusion in (its body only parameters and the
// dot) on the vector unit when planVPUDot allows; handled is false when
// it does not, and the matrix unit's lowering takes it.
func (c *compiler) vpuDotKernel(in *hlo.Instruction, body []*hlo.Instruction, dot *hlo.Instruction) (handled bool, err error) {
	if dot != body[len(body)-1] || in.Shape.IsTuple || len(dot.Operands) != 2 {
		return false, nil
	}
	var ops [2]*value
	for side, o := range dot.Operands {
		for _, b := range body {
			if b.Name == o.Name && b.Opcode == hlo.OpParameter && int(b.ParamNumber) < len(in.Operands) {
				ops[side] = c.bufs[in.Operands[b.ParamNumber].Name]
			}
		}
		if v := ops[side]; v == nil || v.tuple != nil || v.empty || v.tensor == "" || (v.dt != isa.F32 && v.dt != isa.BF16) {
			return false, nil
		}
	}
	odt, ok := dtypeOf(dot.Shape.Elem)
	if !ok || ops[0].dt != ops[1].dt || !odt.IsFloat() || odt == isa.F64 {
		return false, nil
	}
	lb, _ := hlo.IntList(hlo.AttrOr(dot, "lhs_batch_dims", "{}"))
	rb, _ := hlo.IntList(hlo.AttrOr(dot, "rhs_batch_dims", "{}"))
	lc, _ := hlo.IntList(hlo.AttrOr(dot, "lhs_contracting_dims", "{}"))
	rc, _ := hlo.IntList(hlo.AttrOr(dot, "rhs_contracting_dims", "{}"))
	p, ok := planVPUDot(ops[0].shape.Dims, ops[1].shape.Dims, lb, rb, lc, rc)
	if !ok {
		return false, nil
	}
	elems := prod(p.dims)
	mat, vec := ops[1-p.vecSide], ops[p.vecSide]
	esz := int64(mat.dt.Size())
	outElems := in.Shape.Elems()
	// SRAM: the operands' tiles (when in HBM), the products, the result's
	// tile (when in HBM).
	var at int64
	place := func(bytes int64) int64 { a := at; at += align64(bytes); return a }
	mAt, vAt := int64(-1), int64(-1)
	if !isResident(mat.tensor) {
		mAt = place(elems * esz)
	}
	if !isResident(vec.tensor) {
		vAt = place(vec.shape.Elems() * esz)
	}
	pAt := place(elems * 4)
	rAt := place(outElems * int64(odt.Size())) // unless the result is in VMEM
	if at > c.chip.Memory.SRAMBytes {
		return false, nil // a small scratchpad: the matrix unit streams it
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return true, err
	}
	c.bufs[in.Name] = out
	if isResident(out.tensor) {
		rAt = -1
	}
	flops, bytes := c.kernelCost(in, body)
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: "output", Pos: in.Pos, FLOPs: flops, Bytes: bytes})
	c.nlabel++
	w := &c.out
	fmt.Fprintf(w, "\n; ---- kernel k%d: %s %s (%s:%d) -> %s: dot on the vector unit, products [%s] summed over dim %d\n",
		c.nlabel, in.Opcode, in.Name, c.file, in.Pos.Line, out.shape, joinDims(p.dims), p.k)
	fmt.Fprintf(w, ".origin %q\n", in.Name)
	emit := func(format string, a ...any) {
		c.loc(dot)
		fmt.Fprintf(w, "        "+format+"\n", a...)
	}
	view := func(space string, addr string, dt isa.DType, dims, strides []int64) string {
		return fmt.Sprintf("%s[%s]:%s[%s]{%s}", space, addr, dt, joinDims(dims), joinDims(strides))
	}
	emit("semset  s0, 0")
	emit("semset  s1, 0")
	loads := 0
	// The operands, contiguous in SRAM or where they lie in VMEM.
	mOp := fmt.Sprintf("hbm[%s]:%s[%s]", mat.tensor, mat.dt, joinDims(p.dims))
	if mAt >= 0 {
		emit("dma     sram[%d]:%s[%d], hbm[%s]:%s[%d] signal s0", mAt, mat.dt, elems, mat.tensor, mat.dt, elems)
		mOp = fmt.Sprintf("sram[%d]:%s[%s]", mAt, mat.dt, joinDims(p.dims))
		loads++
	}
	vBase := fmt.Sprintf("hbm[%s]", vec.tensor)
	if vAt >= 0 {
		n := vec.shape.Elems()
		emit("dma     sram[%d]:%s[%d], hbm[%s]:%s[%d] @%d signal s0", vAt, vec.dt, n, vec.tensor, vec.dt, n, min(1, max(c.chip.DMA.Engines-1, 0)))
		vBase = fmt.Sprintf("sram[%d]", vAt)
		loads++
	}
	vOp := fmt.Sprintf("%s:%s[%s]{%s}", vBase, vec.dt, joinDims(p.dims), joinDims(p.vecStrides))
	wait := ""
	if loads > 0 {
		wait = fmt.Sprintf(" wait s0:%d", loads)
	}
	// The result, in the output's order: its dims are the products'
	// with the contracted one kept as 1.
	rDims := slices.Clone(p.dims)
	if p.k >= 0 {
		rDims[p.k] = 1
	}
	rOp := view("hbm", out.tensor, odt, rDims, p.outStrides)
	if rAt >= 0 {
		rOp = view("sram", fmt.Sprint(rAt), odt, rDims, p.outStrides)
	}
	last := " signal s1"
	if rAt < 0 {
		last = ""
	}
	pSt := hlo.Strides(p.dims)
	levels := p.levels()
	switch {
	case p.k < 0:
		emit("vmul    %s, %s, %s%s%s", rOp, mOp, vOp, wait, last)
	case p.k == len(p.dims)-1:
		pOp := fmt.Sprintf("sram[%d]:f32[%s]", pAt, joinDims(p.dims))
		emit("vmul    %s, %s, %s%s", pOp, mOp, vOp, wait)
		emit("vrsum   %s, %s%s", rOp, pOp, last)
	default:
		pOp := fmt.Sprintf("sram[%d]:f32[%s]", pAt, joinDims(p.dims))
		emit("vmul    %s, %s, %s%s", pOp, mOp, vOp, wait)
		for i, l := range levels {
			n, h := l[0], l[1]
			d := slices.Clone(p.dims)
			d[p.k] = h
			lo := view("sram", fmt.Sprint(pAt), isa.F32, d, pSt)
			hi := view("sram", fmt.Sprint(pAt+(n-h)*pSt[p.k]*4), isa.F32, d, pSt)
			if i == len(levels)-1 {
				emit("vadd    %s, %s, %s%s", rOp, lo, hi, last)
			} else {
				emit("vadd    %s, %s, %s", lo, lo, hi)
			}
		}
	}
	if rAt >= 0 {
		emit("dma     hbm[%s]:%s[%d], sram[%d]:%s[%d] wait s1", out.tensor, odt, outElems, rAt, odt, outElems)
	}
	emit("barrier")
	return true, nil
}
