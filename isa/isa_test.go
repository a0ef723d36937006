package isa_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pulse-sim/pulse/internal/isatest"
	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

func words(b []byte) [4]uint64 {
	var w [4]uint64
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w
}

// TestKnownEncodings pins encodings worked out by hand from the field table in
// docs/isa.md, so a change to the table cannot silently change the format.
func TestKnownEncodings(t *testing.T) {
	tile := func(l uint16, r uint8, off int64) isa.Tile { return isa.Tile{Layout: l, Reg: r, Off: off} }
	cases := []struct {
		name string
		in   isa.Inst
		want [4]uint64
	}{
		{"nop", isa.Inst{Op: isa.OpByName("nop")}, [4]uint64{}},
		{"halt", isa.Inst{Op: isa.OpByName("halt")}, [4]uint64{0x09}},
		// add: opcode 0x01, func 0; rd=1 bits 0..4, rs1=2 bits 8..12, rs2=3 bits 16..20 of word 1.
		{"add r1, r2, r3", isa.Inst{Op: isa.OpByName("add"), Rd: 1, Rs1: 2, Rs2: 3}, [4]uint64{0x01, 0x030201}},
		// sra: func 8 -> word0 = 0x0801.
		{"sra r31, r0, r5", isa.Inst{Op: isa.OpByName("sra"), Rd: 31, Rs2: 5}, [4]uint64{0x0801, 0x05001f}},
		// addi r4, r4, -1: opcode 0x02; imm in word 2 bits 0..31.
		{"addi r4, r4, -1", isa.Inst{Op: isa.OpByName("addi"), Rd: 4, Rs1: 4, Imm: -1}, [4]uint64{0x02, 0x0404, 0xffffffff}},
		{"bne r1, r2, 7", isa.Inst{Op: isa.OpByName("bne"), Rs1: 1, Rs2: 2, Imm: 7}, [4]uint64{0x0104, 0x020100, 7}},
		{"wait s3, 2", isa.Inst{Op: isa.OpByName("wait"), Sem: 3, Imm: 2}, [4]uint64{0x11, 3 << 24, 2}},
		// dma @2 wait s1:3 signal s4: unit bits 24..27; wait.en bit 32, wait.sem 33..37,
		// signal.en 38, signal.sem 39..43, wait.count 44..53, signal.count 54..63.
		{"dma t1, t2 @2 wait s1:3 signal s4", isa.Inst{Op: isa.OpByName("dma"), Unit: 2,
			Wait: isa.Sync{Enabled: true, Sem: 1, Count: 3}, Signal: isa.Sync{Enabled: true, Sem: 4, Count: 1},
			Tiles: [3]isa.Tile{tile(1, 0, 0x100), tile(2, 5, -16)}},
			[4]uint64{0x20 | 2<<24 | 1<<32 | 1<<33 | 1<<38 | 4<<39 | 3<<44 | 1<<54,
				1 | 0x100<<32,
				2 | 5<<16 | 0x7ff<<21 | 0xfffffff0<<32}},
		// A tile offset above 4 GiB uses the high offset bits 21..31.
		{"mxu.ldw far", isa.Inst{Op: isa.OpByName("mxu.ldw"), Tiles: [3]isa.Tile{tile(3, 0, 5<<32|8)}},
			[4]uint64{0x30, 3 | 5<<21 | 8<<32}},
		{"vscale", isa.Inst{Op: isa.OpByName("vscale"), Tiles: [3]isa.Tile{tile(1, 0, 0), tile(1, 0, 64)}, FA: math.Float32bits(0.5), FB: math.Float32bits(-1)},
			[4]uint64{0x4a, 1, 1 | 64<<32, 0x3f000000 | 0xbf800000<<32}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.in.Encode(nil)
			require.Len(t, b, isa.InstBytes)
			require.Equal(t, c.want, words(b))
			got, err := isa.Decode(b)
			require.NoError(t, err)
			require.Equal(t, c.in, got)
		})
	}
}

// TestRoundTripEveryOp encodes and decodes random valid instances of every
// table entry and checks that the printer names the mnemonic.
func TestRoundTripEveryOp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	layouts := isa.LayoutTable(isatest.Layouts())
	for op := range isa.Table {
		op := isa.Op(op)
		for i := 0; i < 200; i++ {
			in := isatest.Inst(op, r, 1000)
			require.NoError(t, in.Check(len(layouts)), "%s", op)
			b := in.Encode(nil)
			got, err := isa.Decode(b)
			require.NoError(t, err, "%s: %x", op, b)
			require.Equal(t, in, got, "%s", op)
			require.Equal(t, b, got.Encode(nil))
			text := got.Format(layouts)
			require.Contains(t, text, op.Info().Mnemonic)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	good := isa.Inst{Op: isa.OpByName("add"), Rd: 1, Rs1: 2, Rs2: 3}
	mutate := func(f func(w *[4]uint64)) []byte {
		w := words(good.Encode(nil))
		f(&w)
		b := make([]byte, 0, 32)
		for _, x := range w {
			b = binary.LittleEndian.AppendUint64(b, x)
		}
		return b
	}
	cases := []struct {
		name string
		b    []byte
		msg  string
	}{
		{"truncated", good.Encode(nil)[:20], "truncated"},
		{"unknown opcode", mutate(func(w *[4]uint64) { w[0] = 0xff }), "unknown opcode"},
		{"unknown func", mutate(func(w *[4]uint64) { w[0] |= 0x7f << 8 }), "unknown opcode"},
		{"reserved flags", mutate(func(w *[4]uint64) { w[0] |= 1 << 16 }), "reserved"},
		{"unused word", mutate(func(w *[4]uint64) { w[3] = 1 }), "bits set that the format does not use"},
		{"unused rd bits", mutate(func(w *[4]uint64) { w[1] |= 1 << 6 }), "bits set"},
		{"scalar with sync", mutate(func(w *[4]uint64) { w[0] |= 1<<32 | 1<<44 }), "scalar instructions take no wait"},
		{"scalar with unit", mutate(func(w *[4]uint64) { w[0] |= 1 << 24 }), "unit index 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := isa.Decode(c.b)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.msg)
		})
	}
}

func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for op := range isa.Table {
		in := isatest.Inst(isa.Op(op), r, 10)
		f.Add(in.Encode(nil))
	}
	f.Add(make([]byte, 7))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := isa.Decode(b)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to the same bytes and prints.
		require.Equal(t, b[:isa.InstBytes], in.Encode(nil))
		_ = in.Format(isa.LayoutTable(nil))
	})
}

// nearest returns, by brute force over the candidates' neighbourhood, the
// representable value closest to x with ties to an even encoding.
func nearestBits(x float64, lo, hi uint16, val func(uint16) float64) uint16 {
	best := lo
	bestD := math.Inf(1)
	for h := lo; ; h++ {
		v := val(h)
		d := math.Abs(v - x)
		if d < bestD || d == bestD && h%2 == 0 {
			best, bestD = h, d
		}
		if h == hi {
			break
		}
	}
	return best
}

func TestF16Exhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := isa.F16ToF32(uint16(h))
		back := isa.F32ToF16(f)
		if f != f {
			require.True(t, back&0x7c00 == 0x7c00 && back&0x3ff != 0, "NaN %04x", h)
			continue
		}
		require.Equal(t, uint16(h), back, "f16 %04x -> %g", h, f)
	}
}

func TestBF16Exhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := isa.BF16ToF32(uint16(h))
		back := isa.F32ToBF16(f)
		if f != f {
			require.True(t, back&0x7f80 == 0x7f80 && back&0x7f != 0, "NaN %04x", h)
			continue
		}
		require.Equal(t, uint16(h), back)
	}
}

// TestRoundingMatchesNearest checks f32 -> f16/bf16 rounding against a brute
// force search for the nearest value (ties to even) on random inputs and on
// every halfway point between neighbours.
func TestRoundingMatchesNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	f16 := func(h uint16) float64 { return float64(isa.F16ToF32(h)) }
	bf16 := func(h uint16) float64 { return float64(isa.BF16ToF32(h)) }
	check := func(x float32) {
		if x != x || math.IsInf(float64(x), 0) {
			return
		}
		sign := uint16(0)
		ax := math.Abs(float64(x))
		if math.Signbit(float64(x)) {
			sign = 0x8000
		}
		// f16: positive finite encodings 0..0x7bff, then overflow to inf.
		got := isa.F32ToF16(x)
		if ax >= 65520 {
			require.Equal(t, sign|0x7c00, got, "f16 overflow %g", x)
		} else {
			want := sign | nearestBits(ax, 0, 0x7bff, f16)
			require.Equal(t, want, got, "f16(%g)", x)
		}
		gotB := isa.F32ToBF16(x)
		approx := isa.F32ToBF16(float32(ax)) // narrow the brute-force window around the answer
		lo, hi := approx-2, approx+2
		if approx < 2 {
			lo = 0
		}
		if hi > 0x7f7f {
			hi = 0x7f7f
		}
		if ax > float64(isa.BF16ToF32(0x7f7f))+float64(isa.BF16ToF32(0x7f7f)-isa.BF16ToF32(0x7f7e))/2 {
			require.Equal(t, sign|0x7f80, gotB)
		} else {
			require.Equal(t, sign|nearestBits(ax, lo, hi, bf16), gotB, "bf16(%g)", x)
		}
	}
	for i := 0; i < 3000; i++ {
		check(math.Float32frombits(r.Uint32()))
		check(float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(40)-25))))
	}
	for h := uint16(0); h < 0x7bff; h += 7 { // f16 halfway points
		check(float32((f16(h) + f16(h+1)) / 2))
	}
}

func TestRoundCasts(t *testing.T) {
	cases := []struct {
		d    isa.DType
		in   float64
		want float64
	}{
		{isa.S8, 127.9, 127}, {isa.S8, -128.9, -128}, {isa.S8, 1e9, 127}, {isa.S8, math.NaN(), 0},
		{isa.U8, -3, 0}, {isa.U8, 255.5, 255}, {isa.S32, 3e9, math.MaxInt32}, {isa.S32, -2.9, -2},
		{isa.Pred, -0.1, 1}, {isa.Pred, 0, 0}, {isa.Pred, math.NaN(), 1},
		{isa.F32, 1 + 1e-9, 1}, {isa.BF16, 1 + 1.0/256, 1}, {isa.F16, 1 + 1.0/2048, 1},
		{isa.S4, 7.9, 7}, {isa.S4, -8.5, -8}, {isa.S4, 100, 7}, {isa.S4, math.NaN(), 0},
		{isa.U4, -1, 0}, {isa.U4, 15.9, 15}, {isa.U4, 16, 15},
	}
	for _, c := range cases {
		require.Equal(t, c.want, isa.Round(c.d, c.in), "%s(%v)", c.d, c.in)
	}
}

// TestInt4Storage: the 4-bit integers take a byte each; every value stores
// and loads back, a load reads the low nibble (sign-extended for s4), and
// FromBits wraps to 4 bits as integer conversions do.
func TestInt4Storage(t *testing.T) {
	for _, c := range []struct {
		d      isa.DType
		lo, hi int
	}{{isa.S4, -8, 7}, {isa.U4, 0, 15}} {
		require.Equal(t, 1, c.d.Size())
		require.Equal(t, 4, c.d.Width())
		require.True(t, c.d.IsInt())
		require.Equal(t, c.lo < 0, c.d.IsSigned())
		for v := c.lo; v <= c.hi; v++ {
			b := []byte{0}
			isa.StoreElem(c.d, b, float64(v))
			require.Equal(t, float64(v), isa.LoadElem(c.d, b), "%s %d", c.d, v)
			require.Equal(t, float64(v), isa.LoadElem(c.d, []byte{b[0]&15 | 0xa0}), "%s %d: the high nibble is not the value's", c.d, v)
		}
	}
	require.Equal(t, -8.0, isa.FromBits(isa.S4, 8))
	require.Equal(t, 4.0, isa.FromBits(isa.S4, 20))
	require.Equal(t, -1.0, isa.FromBits(isa.S4, 0xff))
	require.Equal(t, 15.0, isa.FromBits(isa.U4, 0xff))
}
