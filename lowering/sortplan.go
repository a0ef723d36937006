package lowering

import (
	"math/bits"
	"slices"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// A sort whose rows fit SRAM runs as one kernel there (sort.go), as TPUs
// sort in VMEM: every operand loads once, a bitonic network of vector ops
// over strided views of the rows puts them in order, every result stores
// once. sortPlan is that kernel's plan: where each array sits in SRAM and
// whether the comparator and the types are ones the vector unit computes;
// the legalization pipeline asks it (SortFits) which sorts to leave to the
// kernel rather than expand into a network of HLO ops, whose every phase
// was several kernels through HBM (an argsort of f32[8,1024]: 55 phases,
// 440,000 cycles).

// sortPlan lays out a sort kernel's SRAM.
type sortPlan struct {
	rows, n, np int64 // rows, their length, padded to a power of two
	half        int64 // elements a compare-exchange step takes: rows*np/2
	data        []int64
	pos         int64 // s32 positions [rows, np]: ties and padding
	nfill       int64 // s32 [half] filled with n: positions at or past it are padding
	// lo and hi are the contiguous copies of each side of a step: of the
	// operands the comparator reads (used), then of the positions.
	lo, hi    []int64
	temp      int64 // an operand's lo side kept while it is swapped
	masks     [6]int64
	scratch   map[string]int64 // the comparator's values (one evaluation's)
	roots     [2]int64         // each evaluation's result (pred)
	used      []int            // operands the comparator reads
	end       int64            // bytes of SRAM the plan uses
	phases    int              // compare-exchange phases: L(L+1)/2
	dtypes    []isa.DType
	cmpParams map[string]int // parameter name -> number
}

// maxSortRow bounds the padded row a sort kernel takes: the network is
// unrolled, log2(np)(log2(np)+1)/2 phases of a few dozen vector ops each.
const maxSortRow = 1 << 16

// sortElemOK are the operand types the kernel moves (vsel, vcopy): none
// wider than 32 bits.
var sortElemOK = map[string]bool{"f32": true, "bf16": true, "f16": true, "s32": true, "u32": true, "s16": true, "u16": true, "s8": true, "u8": true, hlo.Pred: true}

// sortCmpOps are the comparator ops the kernel evaluates with vector
// instructions (a TOTALORDER compare among them: the pipeline turns it
// into integer keys before the kernel reads it).
var sortCmpOps = map[string]bool{hlo.OpParameter: true, hlo.OpConstant: true, hlo.OpCompare: true, hlo.OpSelect: true,
	hlo.OpAnd: true, hlo.OpOr: true, hlo.OpNot: true, hlo.OpXor: true, hlo.OpNegate: true, hlo.OpAbs: true,
	hlo.OpAdd: true, hlo.OpSubtract: true, hlo.OpMultiply: true, hlo.OpMaximum: true, hlo.OpMinimum: true,
	hlo.OpConvert: true, hlo.OpBitcastConvert: true, hlo.OpCopy: true}

// planSort plans the kernel for rows rows of n elements of operands of
// types elems ordered by cmp, in sramBytes of SRAM (the kernels' half of
// it); false when it does not apply.
func planSort(cmp *hlo.Computation, elems []string, rows, n, sramBytes int64) (*sortPlan, bool) {
	if cmp == nil || cmp.Root == nil || len(elems) == 0 || n < 2 || rows < 1 {
		return nil, false
	}
	np := int64(1) << bits.Len64(uint64(n-1))
	if np > maxSortRow || rows > 1<<24 {
		return nil, false
	}
	p := &sortPlan{rows: rows, n: n, np: np, half: rows * np / 2, scratch: map[string]int64{}, cmpParams: map[string]int{}}
	for _, e := range elems {
		dt, ok := dtypeOf(e)
		if !sortElemOK[e] || !ok {
			return nil, false
		}
		p.dtypes = append(p.dtypes, dt)
	}
	if cmp.Root.Shape == nil || cmp.Root.Shape.Elem != hlo.Pred {
		return nil, false
	}
	used := map[int]bool{}
	byName := map[string]*hlo.Instruction{}
	for _, in := range cmp.Instructions {
		byName[in.Name] = in
	}
	for _, in := range cmp.Instructions {
		if in.Shape == nil || in.Shape.IsTuple || len(in.Shape.Dims) != 0 || !sortCmpOps[in.Opcode] {
			return nil, false
		}
		if _, ok := dtypeOf(in.Shape.Elem); !ok || in.Shape.Elem == "f64" || hlo.ElemBits(in.Shape.Elem) > 32 {
			return nil, false
		}
		switch in.Opcode {
		case hlo.OpParameter:
			if in.ParamNumber < 0 || int(in.ParamNumber) >= 2*len(elems) {
				return nil, false
			}
			p.cmpParams[in.Name] = int(in.ParamNumber)
			used[int(in.ParamNumber)/2] = true
		case hlo.OpBitcastConvert:
			// Read in place as another type: the same width only.
			var src *hlo.Instruction
			if len(in.Operands) == 1 {
				src = byName[in.Operands[0].Name]
			}
			if src == nil || src.Shape == nil || hlo.ElemBits(src.Shape.Elem) != hlo.ElemBits(in.Shape.Elem) {
				return nil, false
			}
		}
		if in == cmp.Root && in.Opcode == hlo.OpParameter {
			return nil, false
		}
	}
	for i := range elems {
		if used[i] {
			p.used = append(p.used, i)
		}
	}
	slices.Sort(p.used)
	var mem sramLayout
	take := mem.take
	for _, dt := range p.dtypes {
		p.data = append(p.data, take(rows*np*int64(dt.Size())))
	}
	p.pos = take(rows * np * 4)
	p.nfill = take(p.half * 4)
	for _, i := range append(slices.Clone(p.used), -1) {
		size := int64(4)
		if i >= 0 {
			size = int64(p.dtypes[i].Size())
		}
		p.lo = append(p.lo, take(p.half*size))
		p.hi = append(p.hi, take(p.half*size))
	}
	p.temp = take(p.half * 4)
	for i := range p.masks {
		p.masks[i] = take(p.half)
	}
	for _, in := range cmp.Instructions {
		if in.Opcode != hlo.OpParameter && in != cmp.Root {
			p.scratch[in.Name] = take(p.half * 4)
		}
	}
	p.roots = [2]int64{take(p.half), take(p.half)}
	p.end = mem.end
	if p.end > sramBytes {
		return nil, false
	}
	l := bits.Len64(uint64(np - 1))
	p.phases = l * (l + 1) / 2
	return p, true
}

// SortFits is the legalization's question for this chip: does a sort of
// these rows run as the SRAM sort kernel?
func SortFits(sramBytes int64) func(cmp *hlo.Computation, elems []string, rows, n int64) bool {
	return func(cmp *hlo.Computation, elems []string, rows, n int64) bool {
		_, ok := planSort(cmp, elems, rows, n, sramBytes/2)
		_, keyed := planKeyedSort(cmp, elems, nil, nil, rows, n, sramBytes/2, 0)
		return ok || keyed
	}
}
