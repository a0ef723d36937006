// Package isadoc generates docs/isa.md from the instruction table, so the
// reference cannot drift from the encoder (a test compares the two).
package isadoc

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/isa"
)

// Markdown renders the ISA reference.
func Markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("%s", intro)
	w("\n## Data types\n\n| dtype | bytes | kind |\n|---|---|---|\n")
	for _, d := range isa.DTypes() {
		kind := "integer"
		if d.IsFloat() {
			kind = "floating point"
		}
		if d == isa.Pred {
			kind = "boolean (0 or 1)"
		}
		w("| `%s` | %d | %s |\n", d, d.Size(), kind)
	}
	w("%s", numerics)
	w("\n## Instructions\n\nOperands: `rd rs1 rs2` scalar registers, `imm` a 32-bit immediate, `label` a branch target, `sN` a semaphore, `dst src a b mask` tile operands, `a b` after tiles f32 immediates.\n")
	w("Every non-scalar instruction may end with `@N` (unit index), `wait sN[:count]` and `signal sN[:count]`.\n")
	for u := isa.Unit(0); u < isa.NumUnits; u++ {
		w("\n### %s\n\n| syntax | opcode | func | format | semantics | timing |\n|---|---|---|---|---|---|\n", unitTitle[u])
		for i := range isa.Table {
			info := &isa.Table[i]
			if info.Unit != u {
				continue
			}
			w("| `%s` | 0x%02x | %d | %s | %s | %s |\n", asm.Syntax(info), info.Code, info.Func, info.Format, esc(info.Semantics), esc(info.Timing))
		}
	}
	w("\n## Encoding\n\nEvery instruction is %d bytes: four little-endian 64-bit words. Word 0 is the header, the same for every instruction:\n\n", isa.InstBytes)
	fieldTable(&b, isa.HeaderFields())
	w("\nWords 1 to 3 hold the operands; which fields they carry depends on the format. Every bit not listed for a format must be zero, so each instruction has exactly one encoding and the decoder rejects anything else.\n")
	for f := isa.FmtNone; f < isa.Format(len(formatList)); f++ {
		var ops []string
		for i := range isa.Table {
			if isa.Table[i].Format == f {
				ops = append(ops, "`"+isa.Table[i].Mnemonic+"`")
			}
		}
		w("\n### Format `%s`\n\nUsed by %s.\n\n", f, strings.Join(ops, ", "))
		fs := isa.FormatFields(f)
		if len(fs) == 0 {
			w("Words 1 to 3 are zero.\n")
			continue
		}
		fieldTable(&b, fs)
	}
	w("%s", syntax)
	w("%s", exeFormat)
	return b.String()
}

var formatList = []isa.Format{isa.FmtNone, isa.FmtRRR, isa.FmtRRI, isa.FmtRI, isa.FmtBranch, isa.FmtJump, isa.FmtLoop,
	isa.FmtLoad, isa.FmtStore, isa.FmtSemImm, isa.FmtT1, isa.FmtT2, isa.FmtT3, isa.FmtT3Opt, isa.FmtT1Imm, isa.FmtT2F2}

var unitTitle = map[isa.Unit]string{
	isa.UnitScalar: "Sequencer (scalar unit): ALU, branches, scalar memory, synchronization",
	isa.UnitDMA:    "DMA engines",
	isa.UnitMXU:    "MXU (systolic matrix unit)",
	isa.UnitVPU:    "Vector unit",
	isa.UnitXLU:    "Cross-lane unit",
}

func esc(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func fieldTable(b *strings.Builder, fs []isa.Field) {
	b.WriteString("| field | word | bits | meaning |\n|---|---|---|---|\n")
	for _, f := range fs {
		fmt.Fprintf(b, "| `%s` | %d | %d..%d | %s |\n", f.Name, f.Word, f.Lo, f.Lo+f.Width-1, f.Doc)
	}
}
