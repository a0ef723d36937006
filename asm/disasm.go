package asm

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
)

// DisasmOptions control the disassembler's output.
type DisasmOptions struct {
	// NoDebug leaves out the .loc lines. The output is easier to read but
	// reassembles with the disassembly's own line numbers in the debug map.
	NoDebug bool
	// NoData leaves out the .data segments (initial values).
	NoData bool
}

type labeler struct {
	*exe.Program
	names map[int32]string
}

func (l labeler) Label(pc int32) string { return l.names[pc] }

// Disassemble prints a program as assembly text. With the zero options the
// text reassembles to the same bytes: symbols as .tensor, initial data as
// .data, the debug map as .loc before each instruction.
func Disassemble(p *exe.Program, opt DisasmOptions) string {
	var b strings.Builder
	b.WriteString("; Pulse disassembly\n")
	taken := map[string]bool{}
	for _, s := range p.Symbols {
		taken[s.Name] = true
	}
	names := map[int32]string{}
	for _, in := range p.Code {
		switch in.Op.Info().Format {
		case isa.FmtBranch, isa.FmtJump, isa.FmtLoop:
			if _, ok := names[in.Imm]; !ok {
				n := "L" + strconv.Itoa(int(in.Imm))
				for taken[n] {
					n += "_"
				}
				names[in.Imm] = n
			}
		}
	}
	ctx := labeler{p, names}
	if len(p.Symbols) > 0 {
		b.WriteString("\n; tensors\n")
	}
	for _, s := range p.Symbols {
		fmt.Fprintf(&b, ".tensor %s %s 0x%x %s\n", s.Name, s.Space, s.Addr, s.ShapeString())
	}
	if !opt.NoData && len(p.Segments) > 0 {
		b.WriteString("\n; initial data\n")
		for _, s := range p.Segments {
			fmt.Fprintf(&b, ".data %s 0x%x hex \"%s\"\n", s.Space, s.Addr, hex.EncodeToString(s.Data))
		}
	}
	b.WriteString("\n; code\n")
	for pc := range p.Code {
		if !opt.NoDebug {
			d := p.DebugAt(pc)
			fmt.Fprintf(&b, ".loc %s %d %d", strconv.Quote(d.File), d.Line, d.Col)
			if d.Origin != "" {
				b.WriteString(" " + strconv.Quote(d.Origin))
			}
			b.WriteByte('\n')
		}
		if n, ok := names[int32(pc)]; ok {
			b.WriteString(n + ":\n")
		}
		fmt.Fprintf(&b, "    %s\n", p.Code[pc].Format(ctx))
	}
	return b.String()
}
