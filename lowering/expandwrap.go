package lowering

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// 8- and 16-bit integer arithmetic wraps around in XLA; the vector unit computes
// in s32 and saturates when it stores a narrower type. So the op runs into
// an s32 scratch tile and is wrapped to 8 bits there — the low byte,
// sign-extended for s8: ((v + 128) & 255) - 128, and the same with 16 bits
// — before the store, which
// then has nothing to saturate. Shifts right take the variant whose s32
// form agrees with the 8-bit one (logical for u8, arithmetic for s8).

var wrapOps = map[string]string{
	"add": "vadd", "subtract": "vsub", "multiply": "vmul", "divide": "vdiv",
	"negate": "vneg", "abs": "vabs", "shift-left": "vshl", "power": "vpow",
}

// expansionOf is b's expansion: its op's own, or for 8-bit integer
// arithmetic the op in s32 wrapped back to 8 or 16 bits.
func expansionOf(b *hlo.Instruction) (expansion, bool) {
	if e, ok := expansions[b.Opcode]; ok {
		return e, true
	}
	dt, ok := dtypeOf(b.Shape.Elem)
	if !ok || dt != isa.S8 && dt != isa.U8 && dt != isa.S16 && dt != isa.U16 {
		return expansion{}, false
	}
	mn, ok := wrapOps[b.Opcode]
	switch {
	case b.Opcode == "shift-right-logical" && (dt == isa.U8 || dt == isa.U16):
		mn, ok = "vshr", true
	case b.Opcode == "shift-right-arithmetic" && (dt == isa.S8 || dt == isa.S16):
		mn, ok = "vsra", true
	}
	if !ok {
		return expansion{}, false
	}
	signed := dt.IsSigned()
	half := 1 << (8*dt.Size() - 1) // 128 or 32768
	return expansion{scratch: []string{"s32", "s32"}, emit: func(dst string, args, t []string) []string {
		v, k := t[0], t[1]
		seq := []string{fmt.Sprintf("%-7s %s, %s", mn, v, strings.Join(args, ", "))}
		mask := fmt.Sprint(2*half - 1)
		if signed {
			seq = append(seq,
				"vfill   "+k+", "+fmt.Sprint(half), "vadd    "+v+", "+v+", "+k,
				"vfill   "+k+", "+mask, "vand    "+v+", "+v+", "+k,
				"vfill   "+k+", "+fmt.Sprint(-half), "vadd    "+v+", "+v+", "+k)
		} else {
			seq = append(seq, "vfill   "+k+", "+mask, "vand    "+v+", "+v+", "+k)
		}
		return append(seq, "vcvt    "+dst+", "+v)
	}}, true
}

// expansionScratch is the element types of b's scratch tiles (none when
// it is not expanded).
func expansionScratch(b *hlo.Instruction) []string {
	e, _ := expansionOf(b)
	return e.scratch
}
