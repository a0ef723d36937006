// Package exe defines the Pulse executable: code, the tile layout table,
// initial data segments, a symbol table of named tensors and a debug map.
// It is to Pulse what NEFF is to Neuron. The byte format is in format.go and
// documented in docs/isa.md ("Executable format").
package exe

import (
	"fmt"

	"github.com/pulse-sim/pulse/isa"
)

// Segment is initial data placed in a memory space before the program runs.
type Segment struct {
	Space isa.Space
	Addr  uint64
	Data  []byte
}

// Symbol names a tensor: where it lives, its dtype and shape (row-major).
type Symbol struct {
	Name  string
	Space isa.Space
	Addr  uint64
	DType isa.DType
	Shape []uint32
}

// Elems is the symbol's element count.
func (s *Symbol) Elems() int64 {
	n := int64(1)
	for _, d := range s.Shape {
		n *= int64(d)
	}
	return n
}

// Bytes is the symbol's size in bytes.
func (s *Symbol) Bytes() int64 { return s.Elems() * int64(s.DType.Size()) }

// ShapeString prints "bf16[128,64]".
func (s *Symbol) ShapeString() string {
	str := s.DType.String() + "["
	for i, d := range s.Shape {
		if i > 0 {
			str += ","
		}
		str += fmt.Sprint(d)
	}
	return str + "]"
}

// Debug maps one instruction back to where it came from.
type Debug struct {
	File   string
	Line   int32
	Col    int32
	Origin string // e.g. the HLO instruction a lowered instruction implements
}

// Pos prints "file:line:col" (or less, when parts are unknown).
func (d Debug) Pos() string {
	switch {
	case d.File == "" && d.Line == 0:
		return "?"
	case d.Col == 0:
		return fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	return fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Col)
}

// Program is a loaded or assembled executable.
type Program struct {
	Code     []isa.Inst
	Layouts  []isa.Layout // layout index i refers to Layouts[i-1]
	Segments []Segment
	Symbols  []Symbol
	Debug    []Debug // one entry per instruction
}

// Layout implements isa.Context.
func (p *Program) Layout(i uint16) (*isa.Layout, bool) { return isa.LayoutTable(p.Layouts).Layout(i) }

// Label implements isa.Context with numeric targets.
func (p *Program) Label(int32) string { return "" }

// Symbol finds a symbol by name.
func (p *Program) Symbol(name string) (*Symbol, bool) {
	for i := range p.Symbols {
		if p.Symbols[i].Name == name {
			return &p.Symbols[i], true
		}
	}
	return nil, false
}

// DebugAt returns the debug entry of instruction pc (zero if unknown).
func (p *Program) DebugAt(pc int) Debug {
	if pc >= 0 && pc < len(p.Debug) {
		return p.Debug[pc]
	}
	return Debug{}
}

// Limits a loader enforces so that a corrupt or hostile file cannot make it
// allocate without bound. (Code is also bounded by the file: a loader
// allocates for the instructions the code section holds.) MaxCode admits a
// compiled LLM training step: MaxText's Llama 3.1 8B step is 22.9M
// instructions a device on tpuv5p.
const (
	MaxCode     = 1 << 26
	MaxLayouts  = 1<<16 - 1
	MaxSymbols  = 1 << 20
	MaxSegments = 1 << 20
	MaxNameLen  = 256
)

// Validate checks everything that can be checked without a chip: every
// instruction, layout, branch target, symbol and debug entry.
func (p *Program) Validate() error {
	if len(p.Code) > MaxCode {
		return fmt.Errorf("code has %d instructions, above the limit %d", len(p.Code), MaxCode)
	}
	if len(p.Layouts) > MaxLayouts {
		return fmt.Errorf("layout table has %d entries, above the limit %d", len(p.Layouts), MaxLayouts)
	}
	for i := range p.Layouts {
		if err := p.Layouts[i].Validate(); err != nil {
			return fmt.Errorf("layout %d: %v", i+1, err)
		}
	}
	for pc := range p.Code {
		in := &p.Code[pc]
		if err := in.Check(len(p.Layouts)); err != nil {
			return fmt.Errorf("instruction %d: %v", pc, err)
		}
		if f := in.Op.Info().Format; f == isa.FmtBranch || f == isa.FmtJump || f == isa.FmtLoop {
			if in.Imm < 0 || int(in.Imm) >= len(p.Code) {
				return fmt.Errorf("instruction %d: %s target %d outside the code (0..%d)", pc, in.Op, in.Imm, len(p.Code)-1)
			}
		}
	}
	for i, s := range p.Segments {
		if !s.Space.Valid() {
			return fmt.Errorf("data segment %d: invalid memory space %d", i, s.Space)
		}
		if s.Addr+uint64(len(s.Data)) < s.Addr {
			return fmt.Errorf("data segment %d: address range overflows", i)
		}
	}
	seen := map[string]bool{}
	for i := range p.Symbols {
		s := &p.Symbols[i]
		if !ValidName(s.Name) {
			return fmt.Errorf("symbol %d: invalid name %q", i, s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("symbol %q defined twice", s.Name)
		}
		seen[s.Name] = true
		if !s.Space.Valid() || !s.DType.Valid() {
			return fmt.Errorf("symbol %q: invalid memory space or dtype", s.Name)
		}
		if len(s.Shape) < 1 || len(s.Shape) > isa.MaxRank {
			return fmt.Errorf("symbol %q: rank %d out of range 1..%d", s.Name, len(s.Shape), isa.MaxRank)
		}
		for _, d := range s.Shape {
			if d == 0 || d > isa.MaxDim {
				return fmt.Errorf("symbol %q: dimension %d out of range 1..%d", s.Name, d, isa.MaxDim)
			}
		}
		if s.Addr+uint64(s.Bytes()) < s.Addr {
			return fmt.Errorf("symbol %q: address range overflows", s.Name)
		}
	}
	if len(p.Debug) != len(p.Code) {
		return fmt.Errorf("debug map has %d entries for %d instructions", len(p.Debug), len(p.Code))
	}
	return nil
}

// ValidName reports whether s is an identifier: a letter or '_' then letters,
// digits, '_', '.' or '-'; at most MaxNameLen bytes.
func ValidName(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter {
			return false
		}
		if !letter && !(c >= '0' && c <= '9') && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// Canonicalize renumbers the layout table in order of first use by the code
// and drops unused entries, so that equal programs have equal bytes whatever
// order their layouts were created in. Marshal calls it.
func (p *Program) Canonicalize() {
	remap := make([]uint16, len(p.Layouts)+1)
	var out []isa.Layout
	for pc := range p.Code {
		in := &p.Code[pc]
		for t := range in.Tiles {
			l := in.Tiles[t].Layout
			if l == 0 || int(l) > len(p.Layouts) {
				continue
			}
			if remap[l] == 0 {
				out = append(out, p.Layouts[l-1])
				remap[l] = uint16(len(out))
			}
			in.Tiles[t].Layout = remap[l]
		}
	}
	p.Layouts = out
}
