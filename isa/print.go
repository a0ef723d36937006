package isa

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Context gives the printer what an instruction word alone does not hold.
type Context interface {
	// Layout returns the layout with 1-based index i.
	Layout(i uint16) (*Layout, bool)
	// Label names the instruction at pc, or returns "" to print the number.
	Label(pc int32) string
}

// RegName is the assembler name of scalar register r.
func RegName(r uint8) string { return "r" + strconv.Itoa(int(r)) }

// SemName is the assembler name of semaphore s.
func SemName(s uint8) string { return "s" + strconv.Itoa(int(s)) }

// FormatF32 prints f32 bits so that the assembler reads back the same bits.
func FormatF32(bits uint32) string {
	f := math.Float32frombits(bits)
	switch {
	case f != f:
		if bits == 0x7fc00000 {
			return "nan"
		}
		return fmt.Sprintf("f32bits(0x%08x)", bits)
	case math.IsInf(float64(f), 1):
		return "inf"
	case math.IsInf(float64(f), -1):
		return "-inf"
	}
	s := strconv.FormatFloat(float64(f), 'g', -1, 32)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0" // keep it a float literal
	}
	return s
}

// FormatAddr prints a base address as the assembler reads it: "r4+0x100",
// "r4", "0x100".
func FormatAddr(reg uint8, off int64) string {
	if reg == 0 {
		if off < 0 {
			return "-" + hex(-off)
		}
		return hex(off)
	}
	switch {
	case off == 0:
		return RegName(reg)
	case off < 0:
		return RegName(reg) + "-" + hex(-off)
	}
	return RegName(reg) + "+" + hex(off)
}

func hex(v int64) string { return "0x" + strconv.FormatInt(v, 16) }

// FormatTile prints a tile operand: "sram[r4+0x100]:bf16[128,128]".
func FormatTile(t Tile, ctx Context) string {
	l, ok := ctx.Layout(t.Layout)
	if !ok {
		return fmt.Sprintf("?layout%d[%s]", t.Layout, FormatAddr(t.Reg, t.Off))
	}
	return l.Space.String() + "[" + FormatAddr(t.Reg, t.Off) + "]:" + l.String()
}

// Format prints an instruction in assembler syntax.
func (in *Inst) Format(ctx Context) string {
	info := in.Op.Info()
	var b strings.Builder
	b.WriteString(info.Mnemonic)
	tiles := 0
	first := true
	sep := func() {
		if first {
			b.WriteByte(' ')
			first = false
		} else {
			b.WriteString(", ")
		}
	}
	for _, k := range info.Format.Operands() {
		switch k {
		case OpdRd:
			sep()
			b.WriteString(RegName(in.Rd))
		case OpdRs1:
			sep()
			b.WriteString(RegName(in.Rs1))
		case OpdRs2:
			sep()
			b.WriteString(RegName(in.Rs2))
		case OpdImm:
			sep()
			b.WriteString(in.formatImm(ctx))
		case OpdTarget:
			sep()
			if l := ctx.Label(in.Imm); l != "" {
				b.WriteString(l)
			} else {
				b.WriteString(strconv.Itoa(int(in.Imm)))
			}
		case OpdMem:
			sep()
			b.WriteString("[" + FormatAddr(in.Rs1, int64(in.Imm)) + "]")
		case OpdSem:
			sep()
			b.WriteString(SemName(in.Sem))
		case OpdFA:
			sep()
			b.WriteString(FormatF32(in.FA))
		case OpdFB:
			sep()
			b.WriteString(FormatF32(in.FB))
		case OpdTile0, OpdTile1, OpdTile2, OpdTile2Opt:
			t := in.Tiles[tiles]
			tiles++
			if k == OpdTile2Opt && t.Layout == 0 {
				continue
			}
			sep()
			b.WriteString(FormatTile(t, ctx))
		}
	}
	if in.Passes != 0 {
		b.WriteString(" passes " + strconv.Itoa(int(in.Passes)))
	}
	if in.Unit != 0 {
		b.WriteString(" @" + strconv.Itoa(int(in.Unit)))
	}
	if in.Wait.Enabled {
		b.WriteString(" wait " + formatSync(in.Wait))
	}
	if in.Signal.Enabled {
		b.WriteString(" signal " + formatSync(in.Signal))
	}
	return b.String()
}

func formatSync(s Sync) string {
	if s.Count == 1 {
		return SemName(s.Sem)
	}
	return SemName(s.Sem) + ":" + strconv.Itoa(int(s.Count))
}

func (in *Inst) formatImm(ctx Context) string {
	info := in.Op.Info()
	if info.TypedImm {
		if l, ok := ctx.Layout(in.Tiles[0].Layout); ok && l.DType.IsFloat() {
			return FormatF32(uint32(in.Imm))
		} else if ok && (l.DType == U32 || l.DType == U64) {
			return strconv.FormatUint(uint64(uint32(in.Imm)), 10)
		}
	}
	return strconv.Itoa(int(in.Imm))
}

// LayoutTable is a Context over a slice of layouts (index 1 = element 0), with
// numeric branch targets.
type LayoutTable []Layout

// Layout implements Context.
func (t LayoutTable) Layout(i uint16) (*Layout, bool) {
	if i == 0 || int(i) > len(t) {
		return nil, false
	}
	return &t[i-1], true
}

// Label implements Context.
func (LayoutTable) Label(int32) string { return "" }
