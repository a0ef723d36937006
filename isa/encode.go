package isa

import (
	"encoding/binary"
	"fmt"
)

// InstBytes is the size of one encoded instruction: four little-endian 64-bit
// words. Word 0 is the header; words 1..3 hold operands.
const InstBytes = 32

// NumRegs and NumSems are the sizes of the scalar register file (r0 reads as 0)
// and of the semaphore file.
const (
	NumRegs = 32
	NumSems = 32
	// SemLink and SemLinkDone are the interconnect's on a chip of several
	// (core.Link): signalling SemLink hands the link the collective whose
	// number the program stored at scalar-memory byte LinkWord; the link
	// signals SemLinkDone when this device's part of it is done. On a
	// single device they are semaphores like the others.
	SemLink     = 31
	SemLinkDone = 30
	LinkWord    = 8
	// CoreWord is the scalar-memory byte where a core of a multi-core
	// chip finds its number (0 on a chip of one core), and CoreSyncID
	// the number at LinkWord that rings the chip's core barrier rather
	// than a collective (core.CoreSync).
	CoreWord   = 248
	CoreSyncID = -1
	// MaxSyncCount is the largest wait/signal count on a unit instruction.
	MaxSyncCount = 1<<10 - 1
	// MaxUnitIndex is the largest unit index (which MXU, which DMA engine).
	MaxUnitIndex = 15
)

// Sync is a semaphore wait or signal carried by a unit instruction.
type Sync struct {
	Enabled bool
	Sem     uint8
	Count   uint16
}

// Tile is a tile operand: a layout-table index (0 = no operand) and a base
// address = register + offset, in bytes.
type Tile struct {
	Layout uint16
	Reg    uint8
	Off    int64 // 43-bit signed: MinTileOff..MaxTileOff
}

// Tile offsets are 43-bit two's complement: 32 low bits and 11 high bits.
const (
	MaxTileOff = 1<<42 - 1
	MinTileOff = -(1 << 42)
)

// Inst is a decoded instruction.
type Inst struct {
	Op     Op
	Unit   uint8 // which unit of the class (MXU 0..n-1, DMA engine 0..n-1)
	Wait   Sync  // wait until sem >= Count, then subtract Count, before executing
	Signal Sync  // add Count to sem after completing
	Rd     uint8
	Rs1    uint8
	Rs2    uint8
	Sem    uint8
	Imm    int32 // immediate, branch target (absolute pc), or typed value bits
	Tiles  [3]Tile
	FA, FB uint32 // f32 immediates (bits)
	// Passes (mxu.mm, mxu.mma: OpInfo.Passes) are the bf16 passes an f32
	// stream takes, 0 for the chip's f32 rate.
	Passes uint8
}

// Field is one bit field of the encoding. The list drives Encode, Decode and
// the bit-by-bit tables of docs/isa.md.
type Field struct {
	Name  string
	Word  int
	Lo    int
	Width int
	Doc   string
}

// Field names used by the encoder.
const (
	fOpcode = iota
	fFunc
	fFlags
	fUnit
	fRsv0
	fWaitEn
	fWaitSem
	fSigEn
	fSigSem
	fWaitCount
	fSigCount
	fRd
	fRsv1a
	fRs1
	fRsv1b
	fRs2
	fRsv1c
	fSem
	fRsv1d
	fImm
	fRsv2
	fT0Layout
	fT0Reg
	fT0OffHi
	fT0Off
	fT1Layout
	fT1Reg
	fT1OffHi
	fT1Off
	fT2Layout
	fT2Reg
	fT2OffHi
	fT2Off
	fFA
	fFB
	numFields
)

// Fields is the encoding, bit by bit. Fields of word 1..3 overlap: which ones
// an instruction uses depends on its format (see FormatFields).
var Fields = [numFields]Field{
	fOpcode:    {"opcode", 0, 0, 8, "operation code"},
	fFunc:      {"func", 0, 8, 8, "sub-operation (ALU function, comparison, unary function, reduction, ...)"},
	fFlags:     {"flags", 0, 16, 8, "mxu.mm, mxu.mma: passes (bf16 passes of an f32 stream, 0: the chip's f32 rate); otherwise reserved, 0"},
	fUnit:      {"unit", 0, 24, 4, "which unit of the class executes it (MXU or DMA engine number)"},
	fRsv0:      {"rsv0", 0, 28, 4, "reserved, must be 0"},
	fWaitEn:    {"wait.en", 0, 32, 1, "1: wait on a semaphore before executing"},
	fWaitSem:   {"wait.sem", 0, 33, 5, "semaphore to wait on"},
	fSigEn:     {"signal.en", 0, 38, 1, "1: signal a semaphore on completion"},
	fSigSem:    {"signal.sem", 0, 39, 5, "semaphore to signal"},
	fWaitCount: {"wait.count", 0, 44, 10, "wait until sem >= count, then subtract count"},
	fSigCount:  {"signal.count", 0, 54, 10, "amount added to the semaphore"},
	fRd:        {"rd", 1, 0, 5, "destination register"},
	fRsv1a:     {"rsv1a", 1, 5, 3, "reserved, must be 0"},
	fRs1:       {"rs1", 1, 8, 5, "first source register"},
	fRsv1b:     {"rsv1b", 1, 13, 3, "reserved, must be 0"},
	fRs2:       {"rs2", 1, 16, 5, "second source register"},
	fRsv1c:     {"rsv1c", 1, 21, 3, "reserved, must be 0"},
	fSem:       {"sem", 1, 24, 5, "semaphore operand"},
	fRsv1d:     {"rsv1d", 1, 29, 35, "reserved, must be 0"},
	fImm:       {"imm", 2, 0, 32, "32-bit immediate (two's complement), branch target, or element value"},
	fRsv2:      {"rsv2", 2, 32, 32, "reserved, must be 0"},
	fT0Layout:  {"t0.layout", 1, 0, 16, "tile 0: layout-table index (1-based)"},
	fT0Reg:     {"t0.reg", 1, 16, 5, "tile 0: base register"},
	fT0OffHi:   {"t0.offhi", 1, 21, 11, "tile 0: offset bits 32..42 (sign bit 42)"},
	fT0Off:     {"t0.off", 1, 32, 32, "tile 0: signed byte offset added to the base register"},
	fT1Layout:  {"t1.layout", 2, 0, 16, "tile 1: layout-table index"},
	fT1Reg:     {"t1.reg", 2, 16, 5, "tile 1: base register"},
	fT1OffHi:   {"t1.offhi", 2, 21, 11, "tile 1: offset bits 32..42 (sign bit 42)"},
	fT1Off:     {"t1.off", 2, 32, 32, "tile 1: signed byte offset"},
	fT2Layout:  {"t2.layout", 3, 0, 16, "tile 2: layout-table index (0: absent, for optional operands)"},
	fT2Reg:     {"t2.reg", 3, 16, 5, "tile 2: base register"},
	fT2OffHi:   {"t2.offhi", 3, 21, 11, "tile 2: offset bits 32..42 (sign bit 42)"},
	fT2Off:     {"t2.off", 3, 32, 32, "tile 2: signed byte offset"},
	fFA:        {"fa", 3, 0, 32, "f32 immediate a (IEEE bits)"},
	fFB:        {"fb", 3, 32, 32, "f32 immediate b (IEEE bits)"},
}

var headerFields = []int{fOpcode, fFunc, fFlags, fUnit, fRsv0, fWaitEn, fWaitSem, fSigEn, fSigSem, fWaitCount, fSigCount}

var tileFields = [3][]int{
	{fT0Layout, fT0Reg, fT0OffHi, fT0Off},
	{fT1Layout, fT1Reg, fT1OffHi, fT1Off},
	{fT2Layout, fT2Reg, fT2OffHi, fT2Off},
}

// FormatFields lists the fields words 1..3 hold for a format; every other bit
// of words 1..3 must be zero.
func FormatFields(f Format) []Field {
	var idx []int
	tiles := 0
	scalar := map[OperandKind][]int{
		OpdRd: {fRd}, OpdRs1: {fRs1}, OpdRs2: {fRs2}, OpdImm: {fImm}, OpdTarget: {fImm},
		OpdMem: {fRs1, fImm}, OpdSem: {fSem}, OpdFA: {fFA}, OpdFB: {fFB},
	}
	for _, k := range f.Operands() {
		switch k {
		case OpdTile0, OpdTile1, OpdTile2, OpdTile2Opt:
			idx = append(idx, tileFields[tiles]...)
			tiles++
		default:
			idx = append(idx, scalar[k]...)
		}
	}
	out := make([]Field, 0, len(idx))
	seen := map[int]bool{}
	for _, i := range idx {
		if !seen[i] {
			seen[i] = true
			out = append(out, Fields[i])
		}
	}
	return out
}

// HeaderFields lists the fields of word 0.
func HeaderFields() []Field {
	out := make([]Field, len(headerFields))
	for i, f := range headerFields {
		out[i] = Fields[f]
	}
	return out
}

func (f *Field) get(w *[4]uint64) uint64 {
	return (w[f.Word] >> f.Lo) & (1<<f.Width - 1)
}

func (f *Field) set(w *[4]uint64, v uint64) {
	m := uint64(1)<<f.Width - 1
	w[f.Word] = w[f.Word]&^(m<<f.Lo) | (v&m)<<f.Lo
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// words packs an instruction into its four words.
func (in *Inst) words() [4]uint64 {
	var w [4]uint64
	info := in.Op.Info()
	set := func(f int, v uint64) { Fields[f].set(&w, v) }
	set(fOpcode, uint64(info.Code))
	set(fFunc, uint64(info.Func))
	set(fFlags, uint64(in.Passes))
	set(fUnit, uint64(in.Unit))
	set(fWaitEn, b2u(in.Wait.Enabled))
	set(fWaitSem, uint64(in.Wait.Sem))
	set(fWaitCount, uint64(in.Wait.Count))
	set(fSigEn, b2u(in.Signal.Enabled))
	set(fSigSem, uint64(in.Signal.Sem))
	set(fSigCount, uint64(in.Signal.Count))
	tiles := 0
	for _, k := range info.Format.Operands() {
		switch k {
		case OpdRd:
			set(fRd, uint64(in.Rd))
		case OpdRs1:
			set(fRs1, uint64(in.Rs1))
		case OpdRs2:
			set(fRs2, uint64(in.Rs2))
		case OpdImm, OpdTarget:
			set(fImm, uint64(uint32(in.Imm)))
		case OpdMem:
			set(fRs1, uint64(in.Rs1))
			set(fImm, uint64(uint32(in.Imm)))
		case OpdSem:
			set(fSem, uint64(in.Sem))
		case OpdFA:
			set(fFA, uint64(in.FA))
		case OpdFB:
			set(fFB, uint64(in.FB))
		case OpdTile0, OpdTile1, OpdTile2, OpdTile2Opt:
			t := in.Tiles[tiles]
			tf := tileFields[tiles]
			set(tf[0], uint64(t.Layout))
			set(tf[1], uint64(t.Reg))
			set(tf[2], uint64(t.Off>>32))
			set(tf[3], uint64(uint32(t.Off)))
			tiles++
		}
	}
	return w
}

// Check validates field ranges that the encoding cannot hold or that the
// machine forbids. numLayouts bounds tile layout indices (0 disables the check).
func (in *Inst) Check(numLayouts int) error {
	if int(in.Op) >= len(Table) {
		return fmt.Errorf("unknown operation %d", in.Op)
	}
	info := in.Op.Info()
	if in.Rd >= NumRegs || in.Rs1 >= NumRegs || in.Rs2 >= NumRegs {
		return fmt.Errorf("%s: register number out of range 0..%d", info.Mnemonic, NumRegs-1)
	}
	if in.Sem >= NumSems || in.Wait.Sem >= NumSems || in.Signal.Sem >= NumSems {
		return fmt.Errorf("%s: semaphore number out of range 0..%d", info.Mnemonic, NumSems-1)
	}
	if in.Unit > MaxUnitIndex {
		return fmt.Errorf("%s: unit index %d out of range 0..%d", info.Mnemonic, in.Unit, MaxUnitIndex)
	}
	for _, s := range []struct {
		name string
		s    Sync
	}{{"wait", in.Wait}, {"signal", in.Signal}} {
		if s.s.Enabled {
			if info.Unit == UnitScalar {
				return fmt.Errorf("%s: scalar instructions take no %s field (use the %s instruction)", info.Mnemonic, s.name, s.name)
			}
			if s.s.Count < 1 || s.s.Count > MaxSyncCount {
				return fmt.Errorf("%s: %s count %d out of range 1..%d", info.Mnemonic, s.name, s.s.Count, MaxSyncCount)
			}
		} else if s.s.Sem != 0 || s.s.Count != 0 {
			return fmt.Errorf("%s: disabled %s field is not zero", info.Mnemonic, s.name)
		}
	}
	if info.Unit == UnitScalar && in.Unit != 0 {
		return fmt.Errorf("%s: scalar instructions have unit index 0", info.Mnemonic)
	}
	ntiles := 0
	for _, k := range info.Format.Operands() {
		switch k {
		case OpdTile0, OpdTile1, OpdTile2, OpdTile2Opt:
			t := in.Tiles[ntiles]
			if t.Reg >= NumRegs {
				return fmt.Errorf("%s: tile %d base register out of range", info.Mnemonic, ntiles)
			}
			if t.Layout == 0 && k != OpdTile2Opt {
				return fmt.Errorf("%s: tile %d has no layout", info.Mnemonic, ntiles)
			}
			if t.Off < MinTileOff || t.Off > MaxTileOff {
				return fmt.Errorf("%s: tile %d offset %d outside the 43-bit range", info.Mnemonic, ntiles, t.Off)
			}
			if t.Layout == 0 && (t.Reg != 0 || t.Off != 0) {
				return fmt.Errorf("%s: absent tile %d has an address", info.Mnemonic, ntiles)
			}
			if numLayouts > 0 && int(t.Layout) > numLayouts {
				return fmt.Errorf("%s: tile %d layout index %d beyond the layout table (%d entries)", info.Mnemonic, ntiles, t.Layout, numLayouts)
			}
			ntiles++
		}
	}
	switch info.Code {
	case CodeSignal, CodeWait:
		if in.Imm < 1 {
			return fmt.Errorf("%s: count must be at least 1, got %d", info.Mnemonic, in.Imm)
		}
	case CodeSemSet:
		if in.Imm < 0 {
			return fmt.Errorf("%s: value must not be negative, got %d", info.Mnemonic, in.Imm)
		}
	case CodeVIota:
		if in.Imm < 0 || in.Imm >= MaxRank {
			return fmt.Errorf("%s: dimension %d out of range 0..%d", info.Mnemonic, in.Imm, MaxRank-1)
		}
	}
	return nil
}

// Encode appends the 32-byte encoding of in to dst.
func (in *Inst) Encode(dst []byte) []byte {
	w := in.words()
	for _, x := range w {
		dst = binary.LittleEndian.AppendUint64(dst, x)
	}
	return dst
}

// Decode decodes one instruction from the first InstBytes of b. It rejects
// unknown opcodes, set reserved bits and fields the format does not use, so
// that every accepted word re-encodes to the same bytes.
func Decode(b []byte) (Inst, error) {
	var in Inst
	if len(b) < InstBytes {
		return in, fmt.Errorf("truncated instruction: %d of %d bytes", len(b), InstBytes)
	}
	var w [4]uint64
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	get := func(f int) uint64 { return Fields[f].get(&w) }
	key := uint16(get(fOpcode))<<8 | uint16(get(fFunc))
	op, ok := byCode[key]
	if !ok {
		return in, fmt.Errorf("unknown opcode 0x%02x func %d", get(fOpcode), get(fFunc))
	}
	info := op.Info()
	if (get(fFlags) != 0 && !info.Passes) || get(fRsv0) != 0 {
		return in, fmt.Errorf("%s: reserved header bits set", info.Mnemonic)
	}
	if p := get(fFlags); p > MaxPasses {
		return in, fmt.Errorf("%s: passes %d out of range 0..%d", info.Mnemonic, p, MaxPasses)
	}
	in.Passes = uint8(get(fFlags))
	in.Op = op
	in.Unit = uint8(get(fUnit))
	in.Wait = Sync{get(fWaitEn) == 1, uint8(get(fWaitSem)), uint16(get(fWaitCount))}
	in.Signal = Sync{get(fSigEn) == 1, uint8(get(fSigSem)), uint16(get(fSigCount))}
	tiles := 0
	for _, k := range info.Format.Operands() {
		switch k {
		case OpdRd:
			in.Rd = uint8(get(fRd))
		case OpdRs1:
			in.Rs1 = uint8(get(fRs1))
		case OpdRs2:
			in.Rs2 = uint8(get(fRs2))
		case OpdImm, OpdTarget:
			in.Imm = int32(uint32(get(fImm)))
		case OpdMem:
			in.Rs1 = uint8(get(fRs1))
			in.Imm = int32(uint32(get(fImm)))
		case OpdSem:
			in.Sem = uint8(get(fSem))
		case OpdFA:
			in.FA = uint32(get(fFA))
		case OpdFB:
			in.FB = uint32(get(fFB))
		case OpdTile0, OpdTile1, OpdTile2, OpdTile2Opt:
			tf := tileFields[tiles]
			off := int64(get(tf[2])<<32|get(tf[3])) << 21 >> 21 // sign-extend 43 bits
			in.Tiles[tiles] = Tile{uint16(get(tf[0])), uint8(get(tf[1])), off}
			tiles++
		}
	}
	// Unused bits must be zero: re-encode and compare.
	if again := in.words(); again != w {
		for i := range w {
			if again[i] != w[i] {
				return in, fmt.Errorf("%s: word %d has bits set that the format does not use (0x%016x)", info.Mnemonic, i, w[i]^again[i])
			}
		}
	}
	if err := in.Check(0); err != nil {
		return in, err
	}
	return in, nil
}
