package lowering

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// A keyed sort is one whose comparator orders the elements by a single key
// of each: compare(f(a...), f(b...)), direction LT or GT, f the same
// function of either side's operands (JAX's sorts: the float itself, or
// its total-order integer key). The kernel computes every element's key
// once, before the network, where the general kernel (sort.go) evaluated
// the comparator twice in every step on copies of both sides; a step is
// then three compares and three logic ops on the keys and positions, and
// three ops per array it moves.
//
// Its second difference is the layout. A compare-exchange at distance j
// reads runs of j elements, and the SRAM banks serve a line per run: at
// j = 1 a 4-byte element costs what 128 bytes do. So the rows also have a
// transposed layout, element q*T + r of row w at r*M + w*np/T + q
// (M = rows*np/T): a distance j < T there is j*M elements, and every side
// of a step is runs of at least M. The phases with j >= T run in the
// row-major layout, the others in the transposed one, and an xpose per
// array (on the cross-lane units) moves between them at each change: two
// per merge stage past T.

// keyedSortPlan lays out a keyed sort kernel's SRAM.
type keyedSortPlan struct {
	rows, n, np, half int64
	// T and M: the transposed layout ([T, M]; T = 1: none).
	T, M      int64
	key       *hlo.Instruction   // the comparator's first-side key
	dag       []*hlo.Instruction // what computes it, in order (parameters and constants included)
	keyDT     isa.DType
	greater   bool // GT: the larger key goes first
	keyArray  int  // index into arrays of the key
	positions []bool
	live      []bool // the results used (nil: all)
	// arrays are what the network moves: the operands that are not
	// positions and whose result is used, the key when it is not an
	// operand, and the positions (last); and, still, the operands loaded
	// only for their keys. Each moved one has a row-major region and,
	// with T > 1, a transposed one.
	arrays  []sortArray
	scratch map[string]int64 // the key's intermediate values, full size
	masks   [4]int64         // pred [half]: swap, its second term, the position tie-break, the direction
	temp    int64            // [half] of up to 4 bytes: an array's lo side while it is swapped
	end     int64
	phases  int
	// inRegs: the network runs in the vector registers (placeInRegisters):
	// the moved arrays, masks and temp at regMasks, regTemp and each
	// array's reg, copied in from their SRAM regions after the keys and
	// back before the stores.
	inRegs   bool
	regMasks [4]int64
	regTemp  int64
	// comp: the network sorts one s64 array of keys and positions, in
	// compSpace at compAt's two places by turns (sortcomposite.go).
	comp      bool
	compSpace string
	compAt    [2]int64
}

type sortArray struct {
	dt                 isa.DType
	normal, transposed int64
	reg                int64 // in the vector registers, when the plan is inRegs
	operand            int   // the operand it holds; -1: the key, -2: the positions
	// still: an operand loaded only for its keys (its result unused),
	// not moved by the network.
	still bool
}

// maxTransposeFactor is the most rows of the transposed layout: a run of
// 32 four-byte elements is a whole bank line.
const maxTransposeFactor = 32

// planKeyedSort plans the keyed kernel for rows rows of n elements of
// operands of types elems ordered by cmp, in sramBytes; positions marks
// the operands that are the elements' own positions along the row (an
// argsort's iota), which the kernel's position array stands for; live,
// when not nil, the results that are used. xlus is
// the chip's cross-lane units (none: no transposed layout). false when
// the comparator is not a key comparison or the plan does not fit.
func planKeyedSort(cmp *hlo.Computation, elems []string, positions, live []bool, rows, n, sramBytes int64, xlus int) (*keyedSortPlan, bool) {
	if cmp == nil || cmp.Root == nil || len(elems) == 0 || n < 2 || rows < 1 {
		return nil, false
	}
	np := int64(1) << bits.Len64(uint64(n-1))
	if np > maxSortRow || rows*np > maxTileDim {
		return nil, false
	}
	key, dag, greater, ok := sortKeyOf(cmp, len(elems))
	if !ok {
		return nil, false
	}
	keyDT, ok := dtypeOf(key.Shape.Elem)
	if !ok || !sortElemOK[key.Shape.Elem] {
		return nil, false
	}
	dts := make([]isa.DType, len(elems))
	for i, e := range elems {
		dt, ok := dtypeOf(e)
		if !ok || !sortElemOK[e] {
			return nil, false
		}
		dts[i] = dt
	}
	read := map[int]bool{} // operands the key reads
	for _, b := range dag {
		if b.Opcode == hlo.OpParameter {
			read[int(b.ParamNumber)/2] = true
		}
	}
	pos := make([]bool, len(elems))
	still := make([]bool, len(elems))
	for i := range pos {
		pos[i] = i < len(positions) && positions[i] && !read[i] && elems[i] == hlo.S32
		dead := live != nil && !live[i] && !(key.Opcode == hlo.OpParameter && int(key.ParamNumber)/2 == i)
		if dead {
			pos[i] = false
			still[i] = read[i]
		}
		if dead && !read[i] {
			pos[i] = true // neither loaded nor moved: its result is not stored
		}
	}
	T := int64(1)
	if xlus > 0 {
		for T*2 <= min(np, maxTransposeFactor) && (T*2)*(T*2) <= rows*np {
			T *= 2
		}
		if T < 4 {
			T = 1
		}
	}
	for {
		p := layoutKeyedSort(key, dag, greater, keyDT, dts, pos, still, rows, n, np, T)
		p.live = live
		if p.end <= sramBytes {
			return p, true
		}
		if T == 1 {
			return nil, false
		}
		T = 1 // without the transposed copies
	}
}

func layoutKeyedSort(key *hlo.Instruction, dag []*hlo.Instruction, greater bool, keyDT isa.DType, dts []isa.DType, pos, still []bool,
	rows, n, np, T int64) *keyedSortPlan {
	full := rows * np
	p := &keyedSortPlan{rows: rows, n: n, np: np, half: full / 2, T: T, M: full / T, key: key, dag: dag, keyDT: keyDT,
		greater: greater, keyArray: -1, positions: pos, scratch: map[string]int64{}}
	var mem sramLayout
	region := func(dt isa.DType, operand int) {
		a := sortArray{dt: dt, normal: mem.take(full * int64(dt.Size())), operand: operand, still: operand >= 0 && still[operand]}
		if T > 1 && !a.still {
			a.transposed = mem.take(full * int64(dt.Size()))
		}
		p.arrays = append(p.arrays, a)
	}
	for i, dt := range dts {
		if pos[i] {
			continue
		}
		if key.Opcode == hlo.OpParameter && int(key.ParamNumber)/2 == i {
			p.keyArray = len(p.arrays)
		}
		region(dt, i)
	}
	if p.keyArray < 0 {
		p.keyArray = len(p.arrays)
		region(keyDT, -1)
	}
	region(isa.S32, -2)
	for _, b := range dag {
		if b.Opcode != hlo.OpParameter && b != key {
			p.scratch[b.Name] = mem.take(full * 4)
		}
	}
	for i := range p.masks {
		p.masks[i] = mem.take(p.half)
	}
	p.temp = mem.take(p.half * 4)
	p.end = mem.end
	l := bits.Len64(uint64(np - 1))
	p.phases = l * (l + 1) / 2
	return p
}

// placeInRegisters moves the network into the vector registers when its
// arrays, masks and temp fit vregBytes: the registers have no banks, so a
// compare-exchange at any distance costs its elements' passes, where in
// SRAM the short distances cost a bank line per run (an argsort of
// f32[8,1024] spent 2.9 of its 6.8 us on bank conflicts, transposed
// layout and all). The operands still load into SRAM, the keys are
// computed there, and the results store from there: one copy of each
// moved array each way. It reports whether it did.
func (p *keyedSortPlan) placeInRegisters(vregBytes int64) bool {
	full := p.rows * p.np
	var v regLayout
	for i := range p.arrays {
		if !p.arrays[i].still {
			p.arrays[i].reg = v.take(full * int64(p.arrays[i].dt.Size()))
		}
	}
	for i := range p.regMasks {
		p.regMasks[i] = v.take(p.half)
	}
	p.regTemp = v.take(p.half * 4)
	p.inRegs = vregBytes > 0 && v.end <= vregBytes
	return p.inRegs
}

// sortKeyOf finds a key comparison in a comparator of k operands: its root
// compares X and Y (LT, or GT: greater), X computed from the first side's
// parameters (even numbers) exactly as Y is from the second's. It returns
// X and the instructions X depends on, in the comparator's order.
func sortKeyOf(cmp *hlo.Computation, k int) (*hlo.Instruction, []*hlo.Instruction, bool, bool) {
	root := cmp.Root
	if root.Opcode != hlo.OpCompare || len(root.Operands) != 2 || root.Shape == nil || root.Shape.Elem != hlo.Pred {
		return nil, nil, false, false
	}
	dir, _ := root.Attr("direction")
	if dir != "LT" && dir != "GT" {
		return nil, nil, false, false
	}
	if t, _ := root.Attr("type"); t == "TOTALORDER" {
		return nil, nil, false, false
	}
	byName := map[string]*hlo.Instruction{}
	for _, in := range cmp.Instructions {
		byName[in.Name] = in
	}
	x, y := byName[root.Operands[0].Name], byName[root.Operands[1].Name]
	if x == nil || y == nil {
		return nil, nil, false, false
	}
	memo := map[string]string{}
	var canon func(in *hlo.Instruction, side int) (string, bool)
	canon = func(in *hlo.Instruction, side int) (string, bool) {
		key := fmt.Sprint(side, "/", in.Name)
		if s, ok := memo[key]; ok {
			return s, s != ""
		}
		memo[key] = "" // a cycle is not a key
		if in.Shape == nil || in.Shape.IsTuple || len(in.Shape.Dims) != 0 || !sortCmpOps[in.Opcode] {
			return "", false
		}
		var b strings.Builder
		switch in.Opcode {
		case hlo.OpParameter:
			if int(in.ParamNumber)%2 != side || int(in.ParamNumber) >= 2*k {
				return "", false
			}
			fmt.Fprintf(&b, "P%d:%s", in.ParamNumber/2, in.Shape.Elem)
		case hlo.OpConstant:
			fmt.Fprintf(&b, "C%s:%s", in.Shape.Elem, strings.TrimSpace(in.Literal))
		default:
			fmt.Fprintf(&b, "%s:%s", in.Opcode, in.Shape.Elem)
			var attrs []string
			for _, a := range in.Attrs {
				if a.Key != "metadata" {
					attrs = append(attrs, a.Key+"="+a.Value)
				}
			}
			slices.Sort(attrs)
			fmt.Fprintf(&b, "{%s}(", strings.Join(attrs, ","))
			for i, o := range in.Operands {
				d := byName[o.Name]
				if d == nil {
					return "", false
				}
				s, ok := canon(d, side)
				if !ok {
					return "", false
				}
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(s)
			}
			b.WriteString(")")
		}
		memo[key] = b.String()
		return memo[key], true
	}
	sx, okx := canon(x, 0)
	sy, oky := canon(y, 1)
	if !okx || !oky || sx != sy {
		return nil, nil, false, false
	}
	need := map[string]bool{}
	var mark func(in *hlo.Instruction)
	mark = func(in *hlo.Instruction) {
		if need[in.Name] {
			return
		}
		need[in.Name] = true
		for _, o := range in.Operands {
			mark(byName[o.Name])
		}
	}
	mark(x)
	var dag []*hlo.Instruction
	for _, in := range cmp.Instructions {
		if need[in.Name] {
			dag = append(dag, in)
		}
	}
	return x, dag, dir == "GT", true
}

// lastKey is the fill of the key's padding: a value no element's key goes
// after (ties with it are broken by position, and padding's positions are
// the row's last), for the key order.
func lastKey(dt isa.DType, greater bool) string {
	hi := map[isa.DType]string{isa.F32: "inf", isa.BF16: "inf", isa.F16: "inf", isa.S32: "2147483647", isa.U32: "4294967295",
		isa.S16: "32767", isa.U16: "65535", isa.S8: "127", isa.U8: "255", isa.Pred: "1"}
	lo := map[isa.DType]string{isa.F32: "-inf", isa.BF16: "-inf", isa.F16: "-inf", isa.S32: "-2147483648", isa.U32: "0",
		isa.S16: "-32768", isa.U16: "0", isa.S8: "-128", isa.U8: "0", isa.Pred: "0"}
	if greater {
		return lo[dt]
	}
	return hi[dt]
}
