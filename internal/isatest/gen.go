// Package isatest generates random valid instructions for round-trip tests.
package isatest

import (
	"math"
	"math/rand/v2"

	"github.com/pulse-sim/pulse/isa"
)

// Layouts is a small layout table the generated tiles index into.
func Layouts() []isa.Layout {
	var ls []isa.Layout
	for _, d := range []isa.DType{isa.F32, isa.BF16, isa.S8, isa.Pred} {
		for _, s := range []isa.Space{isa.HBM, isa.SRAM, isa.ACC} {
			l := isa.Layout{Space: s, DType: d, Rank: 2, Shape: [4]uint32{8, 128}}
			l.SetRowMajor()
			ls = append(ls, l)
		}
	}
	ls = append(ls, isa.Layout{Space: isa.HBM, DType: isa.F16, Rank: 4, Shape: [4]uint32{2, 3, 4, 5}, Strides: [4]int32{0, -1, 7, 1000}})
	return ls
}

// Inst returns a random valid instruction for op, with n code words (branch
// targets stay below n) over the table Layouts().
func Inst(op isa.Op, r *rand.Rand, n int) isa.Inst {
	info := op.Info()
	in := isa.Inst{Op: op}
	nl := len(Layouts())
	tiles := 0
	for _, k := range info.Format.Operands() {
		switch k {
		case isa.OpdRd:
			in.Rd = uint8(r.IntN(isa.NumRegs))
		case isa.OpdRs1:
			in.Rs1 = uint8(r.IntN(isa.NumRegs))
		case isa.OpdRs2:
			in.Rs2 = uint8(r.IntN(isa.NumRegs))
		case isa.OpdSem:
			in.Sem = uint8(r.IntN(isa.NumSems))
		case isa.OpdImm:
			in.Imm = int32(r.Uint32())
			switch info.Code {
			case isa.CodeSignal, isa.CodeWait:
				in.Imm = 1 + r.Int32N(1000)
			case isa.CodeSemSet:
				in.Imm = r.Int32N(1000)
			case isa.CodeVIota:
				in.Imm = r.Int32N(isa.MaxRank)
			}
		case isa.OpdTarget:
			in.Imm = r.Int32N(int32(n))
		case isa.OpdMem:
			in.Rs1 = uint8(r.IntN(isa.NumRegs))
			in.Imm = int32(r.Uint32())
		case isa.OpdFA:
			in.FA = randF32(r)
		case isa.OpdFB:
			in.FB = randF32(r)
		case isa.OpdTile0, isa.OpdTile1, isa.OpdTile2, isa.OpdTile2Opt:
			if k == isa.OpdTile2Opt && r.IntN(2) == 0 {
				tiles++
				continue
			}
			in.Tiles[tiles] = isa.Tile{Layout: uint16(1 + r.IntN(nl)), Reg: uint8(r.IntN(isa.NumRegs)),
				Off: r.Int64N(isa.MaxTileOff-isa.MinTileOff) + isa.MinTileOff}
			tiles++
		}
	}
	if info.TypedImm && in.Imm != 0 {
		in.Imm = int32(randF32(r)) // an f32 bit pattern or an integer: both valid
	}
	if info.Unit != isa.UnitScalar {
		in.Unit = uint8(r.IntN(isa.MaxUnitIndex + 1))
		if r.IntN(2) == 0 {
			in.Wait = isa.Sync{Enabled: true, Sem: uint8(r.IntN(isa.NumSems)), Count: uint16(1 + r.IntN(isa.MaxSyncCount))}
		}
		if r.IntN(2) == 0 {
			in.Signal = isa.Sync{Enabled: true, Sem: uint8(r.IntN(isa.NumSems)), Count: uint16(1 + r.IntN(isa.MaxSyncCount))}
		}
	}
	return in
}

func randF32(r *rand.Rand) uint32 {
	switch r.IntN(6) {
	case 0:
		return 0x7fc00000 // nan
	case 1:
		return math.Float32bits(float32(math.Inf(1 - 2*r.IntN(2))))
	case 2:
		return 0x7fc00001 + r.Uint32N(100) // NaN with payload
	case 3:
		return math.Float32bits(float32(r.IntN(2000) - 1000))
	}
	return r.Uint32()
}
