package lowering

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// keyedSortKernel emits a keyed sort (sortkeyplan.go) of rows already
// checked by sortKernel: operands ops, results outs.
func (c *compiler) keyedSortKernel(in *hlo.Instruction, p *keyedSortPlan, ops, outs []*value) {
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	rows, np, n := p.rows, p.np, p.n
	rowView := func(at int64, dt isa.DType, cols int64) string {
		return fmt.Sprintf("sram[%d]:%s[%d,%d]{%d,1}", at, dt, rows, cols, np)
	}
	full := func(at int64, dt isa.DType) string { return fmt.Sprintf("sram[%d]:%s[%d]", at, dt, rows*np) }
	// Load every operand that is not the positions, pad, number.
	engines := max(c.chip.DMA.Engines, 1)
	emit("semset  s1, 0")
	emit("semset  s2, 0")
	emit("semset  s3, 0")
	loads := 0
	for _, a := range p.arrays {
		if a.operand < 0 {
			continue
		}
		v := ops[a.operand]
		emit("dma     %s, hbm[%s+0]:%s[%d,%d] @%d signal s1", rowView(a.normal, v.dt, n), v.tensor, v.dt, rows, n, loads%engines)
		loads++
		if np > n {
			emit("vfill   %s, 0", rowView(a.normal+n*int64(v.dt.Size()), v.dt, np-n))
		}
	}
	posArr := p.arrays[len(p.arrays)-1]
	emit("viota   sram[%d]:s32[%d,%d], 1", posArr.normal, rows, np)
	emit("wait    s1, %d", loads)
	// Every element's key, once: the comparator's first side over the
	// whole rows.
	keyArr := p.arrays[p.keyArray]
	addr := map[string]int64{}
	dtOf := func(b *hlo.Instruction) isa.DType { dt, _ := dtypeOf(b.Shape.Elem); return dt }
	var addrOf func(b *hlo.Instruction) int64
	byName := map[string]*hlo.Instruction{}
	for _, b := range p.dag {
		byName[b.Name] = b
	}
	addrOf = func(b *hlo.Instruction) int64 {
		switch {
		case b == p.key && keyArr.operand == -1:
			return keyArr.normal
		case b.Opcode == hlo.OpParameter:
			return p.arrays[p.arrayOf(int(b.ParamNumber)/2)].normal
		case b.Opcode == hlo.OpBitcastConvert && b != p.key:
			return addrOf(byName[b.Operands[0].Name]) // the same bytes, read as another type
		}
		return addr[b.Name]
	}
	consts := map[string]string{}
	for _, b := range p.dag {
		if b.Opcode == hlo.OpParameter || b == p.key && keyArr.operand >= 0 {
			continue
		}
		addr[b.Name] = p.scratch[b.Name]
		if b.Opcode == hlo.OpConstant {
			consts[b.Name] = b.Literal
			emit("vfill   %s, %s", full(p.scratch[b.Name], dtOf(b)), fillValue(b.Literal))
		}
	}
	for _, b := range p.dag {
		if b.Opcode == hlo.OpParameter || b.Opcode == hlo.OpConstant || b.Opcode == hlo.OpBitcastConvert && b != p.key {
			continue
		}
		if b == p.key && b.Opcode == hlo.OpBitcastConvert {
			// The key is an operand's bytes read as another type.
			src := byName[b.Operands[0].Name]
			emit("vcopy   %s, %s", full(keyArr.normal, p.keyDT), full(addrOf(src), p.keyDT))
			continue
		}
		c.loc(in)
		c.vectorOp(b, func(name string) string { return full(addrOf(byName[name]), dtOf(byName[name])) }, consts, "")
	}
	if np > n {
		emit("vfill   %s, %s", rowView(keyArr.normal+n*int64(p.keyDT.Size()), p.keyDT, np-n), lastKey(p.keyDT, p.greater))
	}

	if p.comp {
		c.compositeNetwork(p, emit)
	} else {
		c.keyedNetwork(p, emit, full)
	}
	emit("barrier") // the network is done
	for i, v := range outs {
		a := posArr
		if p.live != nil && !p.live[i] {
			continue // nothing reads it
		}
		if !p.positions[i] {
			a = p.arrays[p.arrayOf(i)]
		}
		emit("dma     hbm[%s+0]:%s[%d,%d], %s @%d", v.tensor, v.dt, rows, n, rowView(a.normal, v.dt, n), i%engines)
	}
	emit("barrier")
}

// keyedNetwork emits the general keyed network: compare-exchanges of keys
// and positions with a swap mask, each moved array swapped by it, in SRAM
// (with a transposed layout for short distances) or the registers.
func (c *compiler) keyedNetwork(p *keyedSortPlan, emit func(format string, a ...any), full func(at int64, dt isa.DType) string) {
	rows, np, T, M := p.rows, p.np, p.T, p.M
	posArr := p.arrays[len(p.arrays)-1]
	// In the registers, the network's arrays are copied in (and out
	// below); there is no transposed layout.
	space, m, temp := "sram", p.masks, p.temp
	if p.inRegs {
		space, m, temp, T = "vreg", p.regMasks, p.regTemp, 1
		for _, a := range p.arrays {
			if !a.still {
				emit("vcopy   vreg[%d]:%s[%d], %s", a.reg, a.dt, rows*np, full(a.normal, a.dt))
			}
		}
	}

	// The network. A fence before the xposes of a change of layout
	// signals s2 once per cross-lane unit used; the xposes signal s3,
	// which the next vector instruction waits for.
	nxlu := int64(min(max(c.chip.XLU.Count, 1), 2, len(p.arrays)))
	transposed := false
	pendingWait := ""
	vec := func(format string, a ...any) {
		emit(format+pendingWait, a...)
		pendingWait = ""
	}
	var moved []sortArray
	for _, a := range p.arrays {
		if !a.still {
			moved = append(moved, a)
		}
	}
	nxlu = min(nxlu, int64(len(moved)))
	transition := func() {
		// A fence after the last vector instruction lets the xposes
		// start (the vector unit completes in order).
		emit("vfill   sram[%d]:pred[1], 0%s signal s2:%d", p.masks[3], pendingWait, nxlu)
		pendingWait = ""
		for i, a := range moved {
			nv := fmt.Sprintf("sram[%d]:%s[%d,%d]", a.normal, a.dt, M, T)
			tv := fmt.Sprintf("sram[%d]:%s[%d,%d]", a.transposed, a.dt, T, M)
			dst, src := tv, nv
			if transposed {
				dst, src = nv, tv
			}
			wait := ""
			if int64(i) < nxlu {
				wait = " wait s2"
			}
			emit("xpose   %s, %s @%d%s signal s3", dst, src, int64(i)%nxlu, wait)
		}
		pendingWait = fmt.Sprintf(" wait s3:%d", len(moved))
		transposed = !transposed
	}
	for k := int64(2); k <= np; k *= 2 {
		for j := k / 2; j >= 1; j /= 2 {
			if want := T > 1 && j < T; want != transposed {
				transition()
			}
			// The two sides of every pair, and the direction mask's shape.
			var d0, d1, dist int64
			var dir []int64
			dirDim := 1
			base := func(a sortArray) int64 { return a.normal }
			if p.inRegs {
				base = func(a sortArray) int64 { return a.reg }
			}
			if transposed {
				d0, d1, dist = T/(2*j), j*M, j*M
				base = func(a sortArray) int64 { return a.transposed }
				if k < T {
					dir = []int64{T / (2 * k), 2, k / (2 * j), j * M}
				} else {
					dir, dirDim = []int64{T / 2, rows * np / (2 * k), 2, k / T}, 2
				}
			} else {
				d0, d1, dist = rows*np/(2*j), j, j
				dir = []int64{rows * np / (2 * k), 2, k / (2 * j), j}
			}
			side := func(a sortArray, hi bool) string {
				at := base(a)
				if hi {
					at += dist * int64(a.dt.Size())
				}
				return fmt.Sprintf("%s[%d]:%s[%d,%d]{%d,1}", space, at, a.dt, d0, d1, 2*dist)
			}
			flat := func(at int64, dt isa.DType) string { return fmt.Sprintf("%s[%d]:%s[%d,%d]", space, at, dt, d0, d1) }
			cmpOp := "vcmp.lt"
			if p.greater {
				cmpOp = "vcmp.gt"
			}
			key, pos := p.arrays[p.keyArray], posArr
			// m0: hi goes first (ascending: swap); m1: a tie of keys;
			// m2: hi's position is lower.
			vec("%-7s %s, %s, %s", cmpOp, flat(m[0], isa.Pred), side(key, true), side(key, false))
			if p.keyDT.IsInt() {
				// Integer keys are totally ordered: a tie is equality.
				vec("vcmp.eq %s, %s, %s", flat(m[1], isa.Pred), side(key, false), side(key, true))
				vec("vcmp.lt %s, %s, %s", flat(m[2], isa.Pred), side(pos, true), side(pos, false))
			} else {
				// A float tie is neither going first (NaNs tie with all).
				vec("%-7s %s, %s, %s", cmpOp, flat(m[1], isa.Pred), side(key, false), side(key, true))
				vec("vcmp.lt %s, %s, %s", flat(m[2], isa.Pred), side(pos, true), side(pos, false))
				vec("vnot    %s, %s", flat(m[1], isa.Pred), flat(m[1], isa.Pred))
			}
			vec("vand    %s, %s, %s", flat(m[1], isa.Pred), flat(m[1], isa.Pred), flat(m[2], isa.Pred))
			vec("vor     %s, %s, %s", flat(m[0], isa.Pred), flat(m[0], isa.Pred), flat(m[1], isa.Pred))
			if k < np {
				// Descending blocks swap where ascending ones do not.
				vec("viota   %s[%d]:pred[%s], %d", space, m[3], joinDims(dir), dirDim)
				vec("vxor    %s, %s, %s", flat(m[0], isa.Pred), flat(m[0], isa.Pred), flat(m[3], isa.Pred))
			}
			swap := flat(m[0], isa.Pred)
			for _, a := range moved {
				L, H := side(a, false), side(a, true)
				vec("vcopy   %s, %s", flat(temp, a.dt), L)
				vec("vsel    %s, %s, %s", L, swap, H)
				vec("vsel    %s, %s, %s", H, swap, flat(temp, a.dt))
			}
		}
	}
	if transposed {
		transition()
	}
	if p.inRegs {
		for _, a := range moved {
			if a.operand != -1 { // the key alone is not stored
				vec("vcopy   %s, vreg[%d]:%s[%d]", full(a.normal, a.dt), a.reg, a.dt, rows*np)
			}
		}
	}
}

// arrayOf is the index in arrays of operand i (not a positions operand).
func (p *keyedSortPlan) arrayOf(i int) int {
	for k, a := range p.arrays {
		if a.operand == i {
			return k
		}
	}
	panic(fmt.Sprintf("lowering: sort operand %d has no array", i))
}

// positionsOperand reports whether operand o of the sort in, along its
// dimension dim, holds each element's position along that dimension (an
// argsort's iota, or a broadcast of one): the kernel's own positions stand
// for it.
func (c *compiler) positionsOperand(in *hlo.Instruction, o *hlo.Operand, dim int) bool {
	comp := c.computationOf(in)
	if comp == nil {
		return false
	}
	def := func(name string) *hlo.Instruction {
		for _, x := range comp.Instructions {
			if x.Name == name {
				return x
			}
		}
		return nil
	}
	d := def(o.Name)
	if d != nil && d.Opcode == hlo.OpFusion {
		// The positions computed by a fusion of their own (the iota
		// and its broadcast fused): what its computation's root is.
		name, _ := d.Attr("calls")
		if fc := c.m.Computation(strings.TrimPrefix(name, "%")); fc != nil && fc.Root != nil && len(d.Operands) == 0 {
			comp, d = fc, fc.Root
		}
	}
	if d == nil || d.Shape == nil || d.Shape.IsTuple || d.Shape.Elem != hlo.S32 || dim >= len(d.Shape.Dims) {
		return false
	}
	iotaDim := func(x *hlo.Instruction) int64 {
		v, ok := hlo.IntList("{" + hlo.AttrOr(x, "iota_dimension", "0") + "}")
		if !ok || len(v) != 1 {
			return -1
		}
		return v[0]
	}
	switch d.Opcode {
	case hlo.OpIota:
		return iotaDim(d) == int64(dim)
	case hlo.OpBroadcast:
		src := def(d.Operands[0].Name)
		bd, ok := hlo.IntList(hlo.AttrOr(d, "dimensions", "{}"))
		if src == nil || src.Opcode != hlo.OpIota || src.Shape == nil || src.Shape.Elem != hlo.S32 || !ok {
			return false
		}
		id := iotaDim(src)
		return id >= 0 && int(id) < len(bd) && bd[id] == int64(dim) && src.Shape.Dims[id] == d.Shape.Dims[dim]
	}
	return false
}

// computationOf is the computation holding in (nil: none).
func (c *compiler) computationOf(in *hlo.Instruction) *hlo.Computation {
	for _, cc := range c.m.Computations {
		for _, x := range cc.Instructions {
			if x == in {
				return cc
			}
		}
	}
	return nil
}

// usedResults says which elements of the tuple in returns something reads,
// when everything that reads it takes elements (get-tuple-element) that
// are read in turn or are the computation's result; nil
// when in is not a tuple, is its computation's result, or is read whole.
func (c *compiler) usedResults(in *hlo.Instruction) []bool {
	comp := c.computationOf(in)
	if comp == nil || in.Shape == nil || !in.Shape.IsTuple || comp.Root == in {
		return nil
	}
	read := map[string]bool{comp.Root.Name: true}
	for _, x := range comp.Instructions {
		for _, o := range x.Operands {
			read[o.Name] = true
		}
	}
	used := make([]bool, len(in.Shape.Tuple))
	for _, x := range comp.Instructions {
		for _, o := range x.Operands {
			if o.Name != in.Name {
				continue
			}
			i, err := strconv.Atoi(hlo.AttrOr(x, "index", "-1"))
			if x.Opcode != hlo.OpGetTupleElement || err != nil || i < 0 || i >= len(used) {
				return nil
			}
			used[i] = used[i] || read[x.Name] // an element taken and dropped is not used
		}
	}
	return used
}
