package ref

import (
	"github.com/pulse-sim/pulse/isa"
)

// Exec applies the architectural effect of the unit instruction at pc, whose
// tile base addresses were captured at dispatch. The timing model calls it at
// the moment an instruction takes effect, so both models share these semantics.
func (m *Machine) Exec(pc int, bases [3]int64) error {
	in := &m.Prog.Code[pc]
	info := in.Op.Info()
	m.execPC, m.inExec = pc, true
	if m.part != nil {
		m.part.execs++
		m.dry = !m.part.compute[pc]
	}
	defer func() { m.dry, m.inExec, m.probe = false, false, false }()
	var v [3]view
	n := 0
	for _, k := range info.Format.Operands() {
		switch k {
		case isa.OpdTile0, isa.OpdTile1, isa.OpdTile2, isa.OpdTile2Opt:
			if in.Tiles[n].Layout != 0 {
				r, err := m.resolve(in.Tiles[n], bases[n])
				if err != nil {
					return err
				}
				v[n] = r
			}
			n++
		}
	}
	if m.dry && m.part.eager != nil && m.part.eager[pc] {
		// Compute it if everything it reads holds computed values.
		m.probe, m.dirty = true, false
		err := m.execUnit(in, info, v, n)
		m.probe = false
		if err != nil {
			return err
		}
		m.dry = m.dirty
		m.part.eagerOK[pc] = m.part.eagerOK[pc] || !m.dry
	}
	return m.execUnit(in, info, v, n)
}

// execUnit applies the instruction whose operands are v[:n].
func (m *Machine) execUnit(in *isa.Inst, info *isa.OpInfo, v [3]view, n int) error {
	switch info.Unit {
	case isa.UnitDMA:
		return m.execDMA(v[0], v[1])
	case isa.UnitMXU:
		return m.execMXU(in, info, v)
	case isa.UnitVPU:
		if err := onChip(info, v[:n]); err != nil {
			return err
		}
		return m.execVPU(in, info, v)
	case isa.UnitXLU:
		if err := onChip(info, v[:n]); err != nil {
			return err
		}
		return m.execXLU(info, v)
	}
	return errf("%s is not a unit instruction", info.Mnemonic)
}

// onChip checks that vector and cross-lane operands are in sram, acc or
// the vector registers.
func onChip(info *isa.OpInfo, vs []view) error {
	for i, v := range vs {
		if v.Layout != nil && v.Space != isa.SRAM && v.Space != isa.ACC && v.Space != isa.VREG {
			return errf("%s operand %d is in %s; the %s unit reads and writes only sram, acc and vreg", info.Mnemonic, i, v.Space, info.Unit)
		}
	}
	return nil
}

func dtypeErr(info *isa.OpInfo, format string, a ...any) error {
	return errf("dtype mismatch in "+info.Mnemonic+": "+format, a...)
}

func (m *Machine) execDMA(dst, src view) error {
	if dst.Space == isa.VREG || src.Space == isa.VREG {
		return errf("dma cannot reach the vector registers (vreg); move them to sram with vcopy")
	}
	if dst.DType != src.DType {
		return errf("dtype mismatch in dma: dst is %s, src is %s (dma copies bytes; convert on the vector unit)", dst.DType, src.DType)
	}
	if dst.Elems() != src.Elems() {
		return errf("dma element counts differ: dst %s has %d, src %s has %d", dst.Layout, dst.Elems(), src.Layout, src.Elems())
	}
	b, err := m.readBytes(src)
	if err != nil {
		return err
	}
	m.writeBytes(dst, b)
	return nil
}

func (m *Machine) execMXU(in *isa.Inst, info *isa.OpInfo, v [3]view) error {
	unit := int(in.Unit)
	if info.Format == isa.FmtT1 { // mxu.ldw
		w := v[0]
		if w.Space != isa.SRAM {
			return errf("%s reads weights from sram, not %s", info.Mnemonic, w.Space)
		}
		if w.Rank != 2 {
			return errf("%s weights must be rank 2, got %s", info.Mnemonic, w.Layout)
		}
		k, n := int(w.Shape[0]), int(w.Shape[1])
		transposed := info.Func == isa.LdwTransposed
		if transposed { // the tile is W^T[N,K]
			k, n = n, k
		}
		if err := m.checkWeights(k, n, w); err != nil {
			return err
		}
		if !m.Chip.MXUSupports(w.DType) {
			return dtypeErr(info, "chip %s's MXU does not multiply %s (it takes %v)", m.Chip.Name, w.DType, m.Chip.MXU.DTypes)
		}
		if transposed { // read W through a transposed view of the tile
			tl := *w.Layout
			tl.Shape[0], tl.Shape[1] = w.Shape[1], w.Shape[0]
			tl.Strides[0], tl.Strides[1] = w.Strides[1], w.Strides[0]
			w = view{&tl, w.base}
		}
		vals, err := m.read(w)
		if err != nil {
			return err
		}
		m.mxu[unit] = &weights{k, n, w.DType, vals, m.execPC}
		return nil
	}
	dst, x := v[0], v[1]
	w := m.mxu[unit]
	if w == nil {
		return errf("%s on mxu%d before any mxu.ldw loaded weights", info.Mnemonic, unit)
	}
	if x.Space != isa.SRAM {
		return errf("%s streams its moving operand from sram, not %s", info.Mnemonic, x.Space)
	}
	if dst.Space != isa.ACC {
		return errf("%s writes accumulator memory (acc), not %s", info.Mnemonic, dst.Space)
	}
	if x.Rank != 2 || dst.Rank != 2 {
		return errf("%s operands must be rank 2: dst [M,N], src [M,K]", info.Mnemonic)
	}
	mm, k, n := int(x.Shape[0]), int(x.Shape[1]), int(dst.Shape[1])
	if k != w.k {
		return errf("%s: src %s has K=%d but the loaded weights are %dx%d", info.Mnemonic, x.Layout, k, w.k, w.n)
	}
	if int(dst.Shape[0]) != mm || n != w.n {
		return errf("%s: dst %s must be [%d,%d] for src %s and weights %dx%d", info.Mnemonic, dst.Layout, mm, w.n, x.Layout, w.k, w.n)
	}
	// The stationary block bounds the rows an instruction may compute:
	// outputs (os, M <= rows) or inputs (is, M <= columns).
	switch df, c := m.Chip.MXU.Dataflow, m.Chip.MXU; {
	case df == "os" && mm > c.Rows:
		return errf("%s: src %s has %d rows, but the output-stationary MXU of chip %s holds %d rows of outputs", info.Mnemonic, x.Layout, mm, m.Chip.Name, c.Rows)
	case df == "is" && mm > c.Cols:
		return errf("%s: src %s has %d rows, but the input-stationary MXU of chip %s holds %d columns of inputs", info.Mnemonic, x.Layout, mm, m.Chip.Name, c.Cols)
	}
	if x.DType != w.dtype {
		return dtypeErr(info, "src is %s but the loaded weights are %s", x.DType, w.dtype)
	}
	if in.Passes != 0 && x.DType != isa.F32 {
		return errf("%s: passes %d: only an f32 stream is made of bf16 passes, not %s", info.Mnemonic, in.Passes, x.DType)
	}
	if wideOrU32(x.DType) || x.DType == isa.F64 {
		return dtypeErr(info, "the MXU multiplies f32, bf16, f16, s32, s8 and u8, not %s", x.DType)
	}
	intClass := x.DType.IsInt()
	want := isa.F32
	if intClass {
		want = isa.S32
	}
	if dst.DType != want {
		return dtypeErr(info, "%s inputs accumulate into %s, but dst is %s", x.DType, want, dst.DType)
	}
	xv, err := m.read(x)
	if err != nil {
		return err
	}
	var old []float64
	if info.Func == isa.MMAccumulate {
		if old, err = m.read(dst); err != nil {
			return err
		}
	}
	if m.dry {
		if w.vals == nil && m.part.shadows[isa.SRAM] != nil {
			m.part.need[w.ldw] = true
			m.noteDeps()
		}
		m.write(dst, nil)
		return nil
	}
	if w.vals == nil { // a partial run skipped the mxu.ldw
		m.part.need[w.ldw] = true
		return m.partialStop(isa.SRAM, -1)
	}
	out := MatMul(xv, w.vals, mm, k, n, intClass)
	if info.Func == isa.MMAccumulate {
		for i := range out {
			if intClass {
				out[i] = wrap32(int64(int32(old[i])) + int64(int32(out[i])))
			} else {
				out[i] = f32(old[i] + out[i])
			}
		}
	}
	m.write(dst, out)
	return nil
}

// MaxStreamed bounds the streamed dimension of an MXU operand (K for an
// output-stationary array, N for an input-stationary one).
const MaxStreamed = 1 << 16

// checkWeights checks a weight tile [k, n] against the MXU's dataflow:
// weight-stationary holds it whole (k <= rows, n <= columns); output-
// stationary streams its k rows (n <= columns); input-stationary streams
// its n columns (k <= rows).
func (m *Machine) checkWeights(k, n int, w view) error {
	c := m.Chip.MXU
	kMax, nMax := c.Rows, c.Cols
	switch c.Dataflow {
	case "os":
		kMax = MaxStreamed
	case "is":
		nMax = MaxStreamed
	}
	if k > kMax || n > nMax {
		return errf("oversized weight tile %s: the %s MXU of chip %s is %dx%d and takes at most %dx%d", w.Layout, c.Dataflow, m.Chip.Name, c.Rows, c.Cols, kMax, nMax)
	}
	return nil
}

func shapeErr(info *isa.OpInfo, a, b view) error {
	return errf("%s shapes differ: %s vs %s", info.Mnemonic, a.Layout, b.Layout)
}

func (m *Machine) execVPU(in *isa.Inst, info *isa.OpInfo, v [3]view) error {
	dst := v[0]
	if m.Chip.VPU.F64Cost == 0 {
		for _, x := range v {
			if x.Layout != nil && x.DType == isa.F64 && info.Code != isa.CodeVCopy {
				return dtypeErr(info, "chip %s has no f64 arithmetic (vpu.f64_cost is 0)", m.Chip.Name)
			}
		}
	}
	switch info.Format {
	case isa.FmtT3:
		a, b := v[1], v[2]
		if !sameShape(dst, a) {
			return shapeErr(info, dst, a)
		}
		if !sameShape(dst, b) {
			return shapeErr(info, dst, b)
		}
		av, err := m.read(a)
		if err != nil {
			return err
		}
		bv, err := m.read(b)
		if err != nil {
			return err
		}
		out := make([]float64, len(av))
		switch info.Code {
		case isa.CodeVSel:
			if a.DType != isa.Pred {
				return dtypeErr(info, "the mask must be pred, got %s", a.DType)
			}
			if (dst.DType.IsWide() || b.DType.IsWide()) && dst.DType != b.DType {
				return dtypeErr(info, "vsel of %s into %s: convert first (vcvt)", b.DType, dst.DType)
			}
			old, err := m.read(dst)
			if err != nil {
				return err
			}
			for i := range out {
				if av[i] != 0 {
					out[i] = bv[i]
				} else {
					out[i] = old[i]
				}
			}
		default:
			ct, err := computeType(info, a.DType, b.DType)
			if err != nil {
				return err
			}
			if info.Code == isa.CodeVCmp {
				if dst.DType != isa.Pred {
					return dtypeErr(info, "comparisons write pred, dst is %s", dst.DType)
				}
				for i := range out {
					if ct.IsInt() {
						out[i] = b2f(IntCompare(info.Func, ct, av[i], bv[i], a.DType, b.DType))
					} else {
						out[i] = b2f(Compare(info.Func, av[i], bv[i]))
					}
				}
				break
			}
			if ct != isa.S32 && ct.IsInt() && dst.DType != ct {
				return dtypeErr(info, "%s operands compute in %s and write %s, but dst is %s", ct, ct, ct, dst.DType)
			}
			if ct.IsInt() {
				for i := range out {
					out[i] = IntBinary(info.Func, ct, av[i], bv[i], a.DType, b.DType)
				}
			} else {
				binaryInto(out, ct, info.Func, av, bv)
			}
		}
		m.write(dst, out)
	case isa.FmtT2:
		src := v[1]
		switch info.Code {
		case isa.CodeVCopy:
			if dst.DType != src.DType {
				return dtypeErr(info, "vcopy keeps the dtype (dst %s, src %s); use vcvt", dst.DType, src.DType)
			}
			if dst.Elems() != src.Elems() {
				return errf("vcopy element counts differ: %s vs %s", dst.Layout, src.Layout)
			}
			b, err := m.readBytes(src)
			if err != nil {
				return err
			}
			m.writeBytes(dst, b)
			return nil
		case isa.CodeVCvt:
			if dst.Elems() != src.Elems() {
				return errf("vcvt element counts differ: %s vs %s", dst.Layout, src.Layout)
			}
			sv, err := m.read(src)
			if err != nil {
				return err
			}
			for i, x := range sv {
				sv[i] = Convert(src.DType, dst.DType, x)
			}
			m.write(dst, sv)
			return nil
		case isa.CodeVBcast:
			if dst.Rank != src.Rank {
				return errf("vbcast ranks differ: %s vs %s", dst.Layout, src.Layout)
			}
			sl := *src.Layout
			for i := 0; i < int(dst.Rank); i++ {
				if sl.Shape[i] == 1 && dst.Shape[i] != 1 {
					sl.Shape[i], sl.Strides[i] = dst.Shape[i], 0
				} else if sl.Shape[i] != dst.Shape[i] {
					return errf("vbcast: src %s does not broadcast to %s (dimension %d)", src.Layout, dst.Layout, i)
				}
			}
			sv, err := m.read(view{&sl, src.base})
			if err != nil {
				return err
			}
			m.write(dst, sv)
			return nil
		}
		sv, err := m.read(src)
		if err != nil {
			return err
		}
		if info.Code == isa.CodeVRed {
			last := int(src.Shape[src.Rank-1])
			if dst.Elems()*int64(last) != src.Elems() || dst.Shape[dst.Rank-1] != 1 {
				return errf("%s: dst %s must be src %s with its last dimension 1", info.Mnemonic, dst.Layout, src.Layout)
			}
			red, err := m.reducer(info, src.DType, dst.DType)
			if err != nil {
				return err
			}
			if m.dry {
				m.write(dst, nil)
				return nil
			}
			out := make([]float64, dst.Elems())
			for i := range out {
				out[i] = red(sv[i*last : (i+1)*last])
			}
			m.write(dst, out)
			return nil
		}
		if !sameShape(dst, src) {
			return shapeErr(info, dst, src)
		}
		if wideOrU32(src.DType) && dst.DType != src.DType {
			return dtypeErr(info, "%s of %s writes %s, but dst is %s", info.Mnemonic, src.DType, src.DType, dst.DType)
		}
		for i := range sv {
			sv[i] = Unary(info.Func, sv[i], src.DType)
		}
		m.write(dst, sv)
	case isa.FmtT1Imm:
		if info.Code == isa.CodeVIota && int(in.Imm) >= int(dst.Rank) {
			return errf("viota dimension %d but dst %s has rank %d", in.Imm, dst.Layout, dst.Rank)
		}
		if m.dry {
			m.write(dst, nil)
			return nil
		}
		out := make([]float64, dst.Elems())
		if info.Code == isa.CodeVIota {
			d := int(in.Imm)
			inner := int64(1)
			for i := d + 1; i < int(dst.Rank); i++ {
				inner *= int64(dst.Shape[i])
			}
			for i := range out {
				out[i] = float64((int64(i) / inner) % int64(dst.Shape[d]))
			}
			if dst.DType.IsInt() && dst.DType != isa.Pred {
				// Integers wrap around their width, as XLA's iota does
				// (and 64-bit ones are carried as bits).
				for i, x := range out {
					out[i] = isa.FromBits(dst.DType, uint64(x))
				}
			}
		} else { // vfill
			val := float64(in.Imm)
			switch {
			case dst.DType.IsFloat():
				val = float64(mathFloat32frombits(uint32(in.Imm)))
			case dst.DType == isa.U32:
				val = float64(uint32(in.Imm))
			case dst.DType == isa.S64:
				val = isa.FromBits(dst.DType, uint64(int64(in.Imm))) // sign-extended
			case dst.DType == isa.U64:
				val = isa.FromBits(dst.DType, uint64(uint32(in.Imm))) // zero-extended
			}
			for i := range out {
				out[i] = val
			}
		}
		m.write(dst, out)
	case isa.FmtT2F2: // vscale
		src := v[1]
		if src.DType.IsWide() || dst.DType.IsWide() {
			return dtypeErr(info, "%s computes in f32, not on 64-bit integers (convert first: vcvt)", info.Mnemonic)
		}
		if !sameShape(dst, src) {
			return shapeErr(info, dst, src)
		}
		sv, err := m.read(src)
		if err != nil {
			return err
		}
		a, b := float64(mathFloat32frombits(in.FA)), float64(mathFloat32frombits(in.FB))
		f32 := rounding(src.DType) // f64 sources compute in f64
		for i := range sv {
			sv[i] = f32(f32(f32(sv[i])*a) + b)
		}
		m.write(dst, sv)
	case isa.FmtT3Opt: // vact
		src := v[1]
		if src.DType.IsWide() || dst.DType.IsWide() {
			return dtypeErr(info, "%s computes in f32, not on 64-bit integers (convert first: vcvt)", info.Mnemonic)
		}
		if !sameShape(dst, src) {
			return shapeErr(info, dst, src)
		}
		sv, err := m.read(src)
		if err != nil {
			return err
		}
		if bias := v[2]; bias.Layout != nil {
			rowBias := bias.Rank == 2 && bias.Shape[0] == 1 && src.Rank == 2 && bias.Shape[1] == src.Shape[1]
			if !rowBias && !sameShape(bias, src) {
				return errf("vact bias %s must be a row [1,%d] or match src %s", bias.Layout, src.Shape[src.Rank-1], src.Layout)
			}
			bv, err := m.read(bias)
			if err != nil {
				return err
			}
			for i := range sv {
				j := i
				if rowBias {
					j = i % int(src.Shape[1])
				}
				sv[i] = rounding(src.DType)(sv[i] + bv[j])
			}
		}
		dt := src.DType
		if v[2].Layout != nil && dt != isa.F64 {
			dt = isa.F32 // the bias add is computed in f32 (f64 sources: in f64)
		}
		for i := range sv {
			sv[i] = Unary(info.Func, sv[i], dt)
		}
		m.write(dst, sv)
	}
	return nil
}

func (m *Machine) execXLU(info *isa.OpInfo, v [3]view) error {
	dst, src := v[0], v[1]
	if info.Code == isa.CodeXpose {
		if src.Rank != 2 || dst.Rank != 2 || dst.Shape[0] != src.Shape[1] || dst.Shape[1] != src.Shape[0] {
			return errf("xpose: dst %s must be the transpose of src %s (rank 2)", dst.Layout, src.Layout)
		}
		if dst.DType != src.DType {
			return dtypeErr(info, "dst %s, src %s", dst.DType, src.DType)
		}
		// A transposed view of src, read in dst's order.
		tl := *src.Layout
		tl.Shape[0], tl.Shape[1] = src.Shape[1], src.Shape[0]
		tl.Strides[0], tl.Strides[1] = src.Strides[1], src.Strides[0]
		b, err := m.readBytes(view{&tl, src.base})
		if err != nil {
			return err
		}
		m.writeBytes(dst, b)
		return nil
	}
	first := int64(src.Shape[0])
	if dst.Shape[0] != 1 || dst.Elems()*first != src.Elems() || dst.Rank != src.Rank {
		return errf("%s: dst %s must be src %s with its first dimension 1", info.Mnemonic, dst.Layout, src.Layout)
	}
	red, err := m.reducer(info, src.DType, dst.DType)
	if err != nil {
		return err
	}
	sv, err := m.read(src)
	if err != nil {
		return err
	}
	if m.dry {
		m.write(dst, nil)
		return nil
	}
	inner := dst.Elems()
	out := make([]float64, inner)
	col := make([]float64, first)
	for j := int64(0); j < inner; j++ {
		for i := int64(0); i < first; i++ {
			col[i] = sv[i*inner+j]
		}
		out[j] = red(col)
	}
	m.write(dst, out)
	return nil
}
