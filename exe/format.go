package exe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/pulse-sim/pulse/isa"
)

// The file layout (all integers little endian):
//
//	header, 32 bytes:
//	  magic     [8]byte  "PULSEEXE"
//	  version   uint16   Version
//	  reserved  uint16   0
//	  nsections uint32   6
//	  length    uint64   whole file size in bytes
//	  crc32     uint32   IEEE CRC-32 of every byte after the header
//	  reserved  uint32   0
//	section table: nsections entries of 24 bytes (kind uint32, 0 uint32, offset uint64, length uint64),
//	  kinds 1..6 in order, sections back to back, each starting at a multiple of 8
//	sections: strings, code, layouts, data, symbols, debug (see the marshal* functions).
//
// Strings are referenced as (offset uint32, length uint32) into the strings section.
const (
	Magic      = "PULSEEXE"
	Version    = 1
	headerSize = 32
	secEntry   = 24
)

const (
	secStrings = 1 + iota
	secCode
	secLayouts
	secData
	secSymbols
	secDebug
	numSections = secDebug
)

var secNames = [...]string{"", "strings", "code", "layouts", "data", "symbols", "debug"}

const (
	layoutSize = 36
	symbolSize = 36
	debugSize  = 24
	segHdrSize = 24
)

type strtab struct {
	buf []byte
	idx map[string]uint32
}

func (t *strtab) ref(s string) []byte {
	off, ok := t.idx[s]
	if !ok {
		off = uint32(len(t.buf))
		t.buf = append(t.buf, s...)
		t.idx[s] = off
	}
	var b [8]byte
	binary.LittleEndian.PutUint32(b[0:], off)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(s)))
	return b[:]
}

func pad8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// Marshal canonicalizes p and returns its bytes. p must be valid.
func (p *Program) Marshal() ([]byte, error) {
	p.Canonicalize()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	st := &strtab{idx: map[string]uint32{}}
	le := binary.LittleEndian
	u32 := func(b []byte, v uint32) []byte { return le.AppendUint32(b, v) }

	var code []byte
	for i := range p.Code {
		code = p.Code[i].Encode(code)
	}
	layouts := u32(nil, uint32(len(p.Layouts)))
	for _, l := range p.Layouts {
		layouts = append(layouts, byte(l.Space), byte(l.DType), l.Rank, 0)
		for _, d := range l.Shape {
			layouts = u32(layouts, d)
		}
		for _, s := range l.Strides {
			layouts = u32(layouts, uint32(s))
		}
	}
	data := u32(nil, uint32(len(p.Segments)))
	data = u32(data, 0)
	for _, s := range p.Segments {
		data = append(data, byte(s.Space), 0, 0, 0, 0, 0, 0, 0)
		data = le.AppendUint64(data, s.Addr)
		data = le.AppendUint64(data, uint64(len(s.Data)))
		data = pad8(append(data, s.Data...))
	}
	syms := u32(nil, uint32(len(p.Symbols)))
	for _, s := range p.Symbols {
		syms = append(syms, st.ref(s.Name)...)
		syms = append(syms, byte(s.Space), byte(s.DType), byte(len(s.Shape)), 0)
		syms = le.AppendUint64(syms, s.Addr)
		for i := 0; i < isa.MaxRank; i++ {
			var d uint32
			if i < len(s.Shape) {
				d = s.Shape[i]
			}
			syms = u32(syms, d)
		}
	}
	dbg := u32(nil, uint32(len(p.Debug)))
	for _, d := range p.Debug {
		dbg = append(dbg, st.ref(d.File)...)
		dbg = u32(dbg, uint32(d.Line))
		dbg = u32(dbg, uint32(d.Col))
		dbg = append(dbg, st.ref(d.Origin)...)
	}

	secs := [][]byte{nil, st.buf, code, layouts, data, syms, dbg}
	off := uint64(headerSize + numSections*secEntry)
	table := make([]byte, 0, numSections*secEntry)
	var body []byte
	for k := 1; k <= numSections; k++ {
		table = u32(table, uint32(k))
		table = u32(table, 0)
		table = le.AppendUint64(table, off)
		table = le.AppendUint64(table, uint64(len(secs[k])))
		body = pad8(append(body, secs[k]...))
		off = uint64(headerSize+numSections*secEntry) + uint64(len(body))
	}
	rest := append(table, body...)
	out := make([]byte, 0, headerSize+len(rest))
	out = append(out, Magic...)
	out = le.AppendUint16(out, Version)
	out = le.AppendUint16(out, 0)
	out = u32(out, numSections)
	out = le.AppendUint64(out, uint64(headerSize+len(rest)))
	out = u32(out, crc32.ChecksumIEEE(rest))
	out = u32(out, 0)
	return append(out, rest...), nil
}

// ErrNotExecutable is returned (wrapped) when the bytes do not start with Magic.
var ErrNotExecutable = errors.New("not a Pulse executable (bad magic number)")

// IsExecutable reports whether b starts with the executable magic number.
func IsExecutable(b []byte) bool { return len(b) >= len(Magic) && string(b[:len(Magic)]) == Magic }

// reader walks one section with bounds checks; the first error sticks.
type reader struct {
	b    []byte
	off  int
	err  error
	name string
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s section, byte %d: %s", r.name, r.off, fmt.Sprintf(format, a...))
	}
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || r.off+n > len(r.b) {
		r.fail("truncated: need %d bytes, %d left", n, len(r.b)-r.off)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// count reads an entry count and checks that count entries of at least size
// bytes fit in what is left, before anything is allocated.
func (r *reader) count(size, max int) int {
	n := r.u32()
	if r.err != nil {
		return 0
	}
	if int64(n) > int64(max) {
		r.fail("count %d above the limit %d", n, max)
		return 0
	}
	if int64(n)*int64(size) > int64(len(r.b)-r.off) {
		r.fail("count %d does not fit in the section", n)
		return 0
	}
	return int(n)
}

func (r *reader) zero(n int) {
	for _, c := range r.take(n) {
		if c != 0 {
			r.fail("reserved bytes are not zero")
			return
		}
	}
}

func (r *reader) end() {
	if r.err == nil && r.off != len(r.b) {
		r.fail("%d unexpected trailing bytes", len(r.b)-r.off)
	}
}

// Unmarshal parses and validates an executable. Any truncation, corruption or
// inconsistency is an error saying where; it never panics.
func Unmarshal(b []byte) (*Program, error) {
	if len(b) < headerSize {
		if !IsExecutable(b) {
			return nil, ErrNotExecutable
		}
		return nil, fmt.Errorf("truncated executable: %d bytes, the header alone is %d", len(b), headerSize)
	}
	if !IsExecutable(b) {
		return nil, ErrNotExecutable
	}
	le := binary.LittleEndian
	if v := le.Uint16(b[8:]); v != Version {
		return nil, fmt.Errorf("executable format version %d, this Pulse reads version %d", v, Version)
	}
	if le.Uint16(b[10:]) != 0 || le.Uint32(b[28:]) != 0 {
		return nil, fmt.Errorf("corrupt executable: reserved header fields are not zero")
	}
	if n := le.Uint32(b[12:]); n != numSections {
		return nil, fmt.Errorf("corrupt executable: %d sections, expected %d", n, numSections)
	}
	if n := le.Uint64(b[16:]); n != uint64(len(b)) {
		if n > uint64(len(b)) {
			return nil, fmt.Errorf("truncated executable: header says %d bytes, file has %d", n, len(b))
		}
		return nil, fmt.Errorf("corrupt executable: header says %d bytes, file has %d", n, len(b))
	}
	if sum := crc32.ChecksumIEEE(b[headerSize:]); sum != le.Uint32(b[24:]) {
		return nil, fmt.Errorf("corrupt executable: checksum mismatch (stored %08x, computed %08x)", le.Uint32(b[24:]), sum)
	}
	if len(b) < headerSize+numSections*secEntry {
		return nil, fmt.Errorf("truncated executable: no room for the section table")
	}
	var secs [numSections + 1][]byte
	next := uint64(headerSize + numSections*secEntry)
	for k := 1; k <= numSections; k++ {
		e := b[headerSize+(k-1)*secEntry:]
		kind, rsv, off, n := le.Uint32(e), le.Uint32(e[4:]), le.Uint64(e[8:]), le.Uint64(e[16:])
		if kind != uint32(k) || rsv != 0 {
			return nil, fmt.Errorf("corrupt executable: section table entry %d has kind %d", k, kind)
		}
		if off != next || n > uint64(len(b)) || off+n > uint64(len(b)) {
			return nil, fmt.Errorf("corrupt executable: %s section at %d+%d is out of place", secNames[k], off, n)
		}
		secs[k] = b[off : off+n]
		next = (off + n + 7) &^ 7
		for _, c := range b[off+n : min(next, uint64(len(b)))] {
			if c != 0 {
				return nil, fmt.Errorf("corrupt executable: padding after the %s section is not zero", secNames[k])
			}
		}
	}
	if next != uint64(len(b)) {
		return nil, fmt.Errorf("corrupt executable: %d bytes after the last section", int64(len(b))-int64(next))
	}

	strs := secs[secStrings]
	str := func(r *reader) string {
		off, n := r.u32(), r.u32()
		if r.err != nil {
			return ""
		}
		if uint64(off)+uint64(n) > uint64(len(strs)) {
			r.fail("string reference %d+%d outside the strings section (%d bytes)", off, n, len(strs))
			return ""
		}
		return string(strs[off : off+n])
	}

	p := &Program{}
	code := secs[secCode]
	if len(code)%isa.InstBytes != 0 {
		return nil, fmt.Errorf("corrupt executable: code section is %d bytes, not a multiple of %d", len(code), isa.InstBytes)
	}
	if len(code)/isa.InstBytes > MaxCode {
		return nil, fmt.Errorf("code has %d instructions, above the limit %d", len(code)/isa.InstBytes, MaxCode)
	}
	p.Code = make([]isa.Inst, len(code)/isa.InstBytes)
	for i := range p.Code {
		in, err := isa.Decode(code[i*isa.InstBytes:])
		if err != nil {
			return nil, fmt.Errorf("instruction %d: %v", i, err)
		}
		p.Code[i] = in
	}

	r := &reader{b: secs[secLayouts], name: "layouts"}
	p.Layouts = make([]isa.Layout, r.count(layoutSize, MaxLayouts))
	for i := range p.Layouts {
		l := &p.Layouts[i]
		l.Space, l.DType, l.Rank = isa.Space(r.u8()), isa.DType(r.u8()), r.u8()
		r.zero(1)
		for d := range l.Shape {
			l.Shape[d] = r.u32()
		}
		for d := range l.Strides {
			l.Strides[d] = int32(r.u32())
		}
	}
	r.end()
	if r.err != nil {
		return nil, r.err
	}

	r = &reader{b: secs[secData], name: "data"}
	nseg := r.count(segHdrSize, MaxSegments)
	r.zero(4)
	p.Segments = make([]Segment, nseg)
	for i := range p.Segments {
		s := &p.Segments[i]
		s.Space = isa.Space(r.u8())
		r.zero(7)
		s.Addr = r.u64()
		n := r.u64()
		if n > uint64(len(r.b)) {
			r.fail("segment %d length %d beyond the section", i, n)
			break
		}
		s.Data = r.take(int(n))
		r.zero((8 - int(n)%8) % 8)
	}
	r.end()
	if r.err != nil {
		return nil, r.err
	}

	r = &reader{b: secs[secSymbols], name: "symbols"}
	p.Symbols = make([]Symbol, r.count(symbolSize, MaxSymbols))
	for i := range p.Symbols {
		s := &p.Symbols[i]
		s.Name = str(r)
		s.Space, s.DType = isa.Space(r.u8()), isa.DType(r.u8())
		rank := int(r.u8())
		r.zero(1)
		s.Addr = r.u64()
		if rank > isa.MaxRank {
			r.fail("symbol %d rank %d above %d", i, rank, isa.MaxRank)
		}
		var shape [isa.MaxRank]uint32
		for d := range shape {
			shape[d] = r.u32()
			if d >= rank && shape[d] != 0 {
				r.fail("symbol %d dimension %d beyond its rank is not zero", i, d)
			}
		}
		s.Shape = append([]uint32(nil), shape[:min(rank, isa.MaxRank)]...)
	}
	r.end()
	if r.err != nil {
		return nil, r.err
	}

	r = &reader{b: secs[secDebug], name: "debug"}
	p.Debug = make([]Debug, r.count(debugSize, MaxCode))
	for i := range p.Debug {
		d := &p.Debug[i]
		d.File = str(r)
		d.Line, d.Col = int32(r.u32()), int32(r.u32())
		d.Origin = str(r)
	}
	r.end()
	if r.err != nil {
		return nil, r.err
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("invalid executable: %v", err)
	}
	return p, nil
}
