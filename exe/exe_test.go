package exe_test

import (
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/internal/isatest"
	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

func sample() *exe.Program {
	r := rand.New(rand.NewPCG(9, 10))
	p := &exe.Program{Layouts: isatest.Layouts()}
	for op := range isa.Table {
		p.Code = append(p.Code, isatest.Inst(isa.Op(op), r, len(isa.Table)))
		p.Debug = append(p.Debug, exe.Debug{File: "k.s", Line: int32(op + 1), Col: 3, Origin: "fusion.1/dot"})
	}
	p.Segments = []exe.Segment{{Space: isa.HBM, Addr: 0x100, Data: []byte{1, 2, 3}}, {Space: isa.SRAM, Addr: 0, Data: make([]byte, 16)}}
	p.Symbols = []exe.Symbol{{Name: "x", Space: isa.HBM, Addr: 0x100, DType: isa.S8, Shape: []uint32{3}},
		{Name: "w.1", Space: isa.SRAM, Addr: 0, DType: isa.F32, Shape: []uint32{2, 2}}}
	return p
}

func TestRoundTrip(t *testing.T) {
	p := sample()
	b, err := p.Marshal()
	require.NoError(t, err)
	q, err := exe.Unmarshal(b)
	require.NoError(t, err)
	require.Equal(t, p, q)
	b2, err := q.Marshal()
	require.NoError(t, err)
	require.Equal(t, b, b2)
}

// TestCanonicalLayouts: the layout table is written in first-use order, so
// programs that differ only in how their table was built have equal bytes.
func TestCanonicalLayouts(t *testing.T) {
	l1 := isa.Layout{Space: isa.SRAM, DType: isa.F32, Rank: 1, Shape: [4]uint32{4}, Strides: [4]int32{1}}
	l2 := l1
	l2.Shape[0] = 8
	mk := func(ls []isa.Layout, a, b uint16) *exe.Program {
		dma := isa.OpByName("dma")
		return &exe.Program{Layouts: ls, Debug: make([]exe.Debug, 2),
			Code: []isa.Inst{{Op: dma, Tiles: [3]isa.Tile{{Layout: a}, {Layout: b}}}, {Op: isa.OpByName("halt")}}}
	}
	b1, err := mk([]isa.Layout{l1, l2}, 1, 2).Marshal()
	require.NoError(t, err)
	b2, err := mk([]isa.Layout{l2, l1, l2}, 2, 1).Marshal()
	require.NoError(t, err)
	require.Equal(t, b1, b2)
}

// TestTruncated: every prefix of a valid file is rejected with an error, never a panic.
func TestTruncated(t *testing.T) {
	b, err := sample().Marshal()
	require.NoError(t, err)
	for n := 0; n < len(b); n++ {
		_, err := exe.Unmarshal(b[:n])
		require.Error(t, err, "prefix of %d bytes", n)
	}
}

// TestCorrupt: flipping any byte is caught (the checksum, or a field check
// when the checksum is recomputed to match).
func TestCorrupt(t *testing.T) {
	b, err := sample().Marshal()
	require.NoError(t, err)
	for i := 0; i < len(b); i++ {
		c := append([]byte(nil), b...)
		c[i] ^= 0x5a
		_, err := exe.Unmarshal(c)
		require.Error(t, err, "byte %d", i)
	}
	// With a fixed-up checksum the structural checks still catch bad fields.
	fix := func(c []byte) []byte {
		binary.LittleEndian.PutUint32(c[24:], crc32.ChecksumIEEE(c[32:]))
		return c
	}
	cases := map[string]func(c []byte){
		"version":  func(c []byte) { c[8] = 9 },
		"sections": func(c []byte) { c[12] = 2 },
		"length":   func(c []byte) { c[16]++ },
		"magic":    func(c []byte) { c[0] = 'X' },
	}
	for name, f := range cases {
		c := append([]byte(nil), b...)
		f(c)
		_, err := exe.Unmarshal(fix(c))
		require.Error(t, err, name)
	}
	_, err = exe.Unmarshal([]byte("hello, world: not an executable at all, just text"))
	require.ErrorIs(t, err, exe.ErrNotExecutable)
}

func TestValidate(t *testing.T) {
	halt := isa.Inst{Op: isa.OpByName("halt")}
	jmp := isa.Inst{Op: isa.OpByName("jmp"), Imm: 5}
	cases := map[string]struct {
		p   exe.Program
		msg string
	}{
		"target":    {exe.Program{Code: []isa.Inst{jmp}, Debug: make([]exe.Debug, 1)}, "outside the code"},
		"debug":     {exe.Program{Code: []isa.Inst{halt}}, "debug map has 0 entries"},
		"dup sym":   {exe.Program{Symbols: []exe.Symbol{{Name: "a", Space: isa.HBM, DType: isa.F32, Shape: []uint32{1}}, {Name: "a", Space: isa.HBM, DType: isa.F32, Shape: []uint32{1}}}}, "defined twice"},
		"bad name":  {exe.Program{Symbols: []exe.Symbol{{Name: "1a", Space: isa.HBM, DType: isa.F32, Shape: []uint32{1}}}}, "invalid name"},
		"bad space": {exe.Program{Segments: []exe.Segment{{Space: 9}}}, "invalid memory space"},
		"layout":    {exe.Program{Layouts: []isa.Layout{{Space: isa.HBM, DType: isa.F32, Rank: 1}}}, "size 0"},
	}
	for name, c := range cases {
		err := c.p.Validate()
		require.ErrorContains(t, err, c.msg, name)
	}
}

func FuzzUnmarshal(f *testing.F) {
	b, _ := sample().Marshal()
	f.Add(b)
	small, _ := (&exe.Program{Code: []isa.Inst{{Op: isa.OpByName("halt")}}, Debug: make([]exe.Debug, 1)}).Marshal()
	f.Add(small)
	f.Add([]byte(exe.Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		try := func(b []byte) {
			p, err := exe.Unmarshal(b)
			if err != nil {
				return
			}
			// Whatever loads is valid and marshals again.
			if _, err := p.Marshal(); err != nil {
				t.Fatalf("loaded program does not marshal: %v", err)
			}
		}
		try(data)
		if len(data) >= 32 {
			// Again with the checksum repaired, to reach the structural checks.
			c := append([]byte(nil), data...)
			binary.LittleEndian.PutUint32(c[24:], crc32.ChecksumIEEE(c[32:]))
			try(c)
		}
	})
}
