package asm

import (
	"math"

	"github.com/pulse-sim/pulse/isa"
)

// encode parses an instruction's operands with every label known and appends
// it to the program.
func (a *assembler) encode(s *instStmt, scratch *[]token) {
	p := &parser{toks: s.operandTokens(scratch)}
	in := isa.Inst{Op: s.op}
	if err := a.operands(p, s, &in); err != nil {
		a.add(err)
		return
	}
	if err := a.modifiers(p, s, &in); err != nil {
		a.add(err)
		return
	}
	if err := in.Check(0); err != nil {
		a.add(&Error{s.mn, err.Error()})
		return
	}
	a.prog.Code = append(a.prog.Code, in)
	a.prog.Debug = append(a.prog.Debug, s.dbg)
}

func (a *assembler) imm32(p *parser) (int32, *Error) {
	t := p.peek()
	v, err := p.expr(a.ctx())
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxUint32 {
		return 0, errAt(t, "immediate %d does not fit 32 bits", v)
	}
	return int32(uint32(v)), nil
}

func (a *assembler) operands(p *parser, s *instStmt, in *isa.Inst) *Error {
	info := s.op.Info()
	tiles := 0
	for i, k := range info.Format.Operands() {
		if k == isa.OpdTile2Opt {
			if !p.accept(",") {
				tiles++
				continue
			}
		} else if i > 0 {
			if err := p.expect(","); err != nil {
				return err
			}
		} else if t := p.peek(); t.kind == tEOL || t.kind == tPunct && t.text == "@" {
			return errAt(t, "%s needs operands: %s", info.Mnemonic, Syntax(info))
		}
		var err *Error
		switch k {
		case isa.OpdRd:
			in.Rd, err = p.reg()
		case isa.OpdRs1:
			in.Rs1, err = p.reg()
		case isa.OpdRs2:
			in.Rs2, err = p.reg()
		case isa.OpdSem:
			in.Sem, err = p.sem()
		case isa.OpdImm:
			if info.TypedImm {
				if l, ok := a.prog.Layout(in.Tiles[0].Layout); ok && l.DType.IsFloat() {
					var bits uint32
					bits, err = p.float(a.ctx())
					in.Imm = int32(bits)
					break
				}
			}
			in.Imm, err = a.imm32(p)
		case isa.OpdTarget:
			t := p.peek()
			var v int64
			v, err = p.expr(a.ctx())
			if err == nil && (v < 0 || v >= int64(len(a.insts))) {
				err = errAt(t, "branch target %d outside the program (0..%d)", v, len(a.insts)-1)
			}
			in.Imm = int32(v)
		case isa.OpdMem:
			if err = p.expect("["); err != nil {
				return err
			}
			t := p.peek()
			var off int64
			in.Rs1, off, err = p.addr(a.ctx())
			if err == nil && (off < math.MinInt32 || off > math.MaxInt32) {
				err = errAt(t, "offset %d does not fit 32 bits", off)
			}
			in.Imm = int32(off)
			if err == nil {
				err = p.expect("]")
			}
		case isa.OpdFA:
			in.FA, err = p.float(a.ctx())
		case isa.OpdFB:
			in.FB, err = p.float(a.ctx())
		case isa.OpdTile0, isa.OpdTile1, isa.OpdTile2, isa.OpdTile2Opt:
			in.Tiles[tiles], err = a.tile(p)
			tiles++
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tile parses "space[addr]:dtype[dims]{strides}" or a tensor name.
func (a *assembler) tile(p *parser) (isa.Tile, *Error) {
	t := p.next()
	if t.kind != tIdent {
		return isa.Tile{}, errAt(t, "expected a tile operand such as sram[r1+0x100]:bf16[128,128], found %s", t)
	}
	var l isa.Layout
	sp, isSpace := isa.ParseSpace(t.text)
	if !isSpace {
		// A tensor name: the whole tensor, row-major.
		for i := range a.prog.Symbols {
			sym := &a.prog.Symbols[i]
			if sym.Name == t.text {
				l = isa.Layout{Space: sym.Space, DType: sym.DType, Rank: uint8(len(sym.Shape))}
				copy(l.Shape[:], sym.Shape)
				l.SetRowMajor()
				return isa.Tile{Layout: a.layout(l), Off: int64(sym.Addr)}, nil
			}
		}
		if _, ok := a.syms[t.text]; ok {
			return isa.Tile{}, errAt(t, "%s is not a tensor; a tile operand is space[addr]:dtype[dims] or a tensor name", t.text)
		}
		return isa.Tile{}, errAt(t, "expected a tile operand (hbm, sram, acc or smem [addr]:dtype[dims]) or a tensor name, found %s", t)
	}
	if err := p.expect("["); err != nil {
		return isa.Tile{}, err
	}
	c := a.ctx()
	at := p.peek()
	reg, off, err := p.addr(c)
	if err != nil {
		return isa.Tile{}, err
	}
	if off < isa.MinTileOff || off > isa.MaxTileOff {
		return isa.Tile{}, errAt(at, "offset %d outside the 43-bit tile offset range", off)
	}
	for _, s := range c.spaces {
		if s != sp {
			return isa.Tile{}, errAt(at, "address names a tensor in %s, but the tile is in %s", s, sp)
		}
	}
	if err := p.expect("]"); err != nil {
		return isa.Tile{}, err
	}
	if err := p.expect(":"); err != nil {
		return isa.Tile{}, err
	}
	dt, _, err := p.dtype()
	if err != nil {
		return isa.Tile{}, err
	}
	dims, err := p.dims(c, "[", "]", false)
	if err != nil {
		return isa.Tile{}, err
	}
	l = isa.Layout{Space: sp, DType: dt, Rank: uint8(len(dims))}
	for i, d := range dims {
		l.Shape[i] = uint32(d)
	}
	l.SetRowMajor()
	if p.is("{") {
		st := p.peek()
		strides, err := p.dims(c, "{", "}", true)
		if err != nil {
			return isa.Tile{}, err
		}
		if len(strides) != len(dims) {
			return isa.Tile{}, errAt(st, "%d strides for %d dimensions", len(strides), len(dims))
		}
		for i, s := range strides {
			l.Strides[i] = int32(s)
		}
	}
	if l.Elems() > isa.MaxTileElems {
		return isa.Tile{}, errAt(t, "tile has %d elements, above the limit %d", l.Elems(), int64(isa.MaxTileElems))
	}
	return isa.Tile{Layout: a.layout(l), Reg: reg, Off: off}, nil
}

// modifiers parses "@unit", "wait sN[:count]", "signal sN[:count]" and,
// for an MXU stream, "passes N".
func (a *assembler) modifiers(p *parser, s *instStmt, in *isa.Inst) *Error {
	info := s.op.Info()
	for {
		t := p.peek()
		switch {
		case t.kind == tEOL:
			return nil
		case t.kind == tPunct && t.text == "@":
			p.next()
			if info.Unit == isa.UnitScalar {
				return errAt(t, "%s runs on the sequencer and takes no unit index", info.Mnemonic)
			}
			u := p.peek()
			v, err := p.expr(a.ctx())
			if err != nil {
				return err
			}
			if v < 0 || v > isa.MaxUnitIndex {
				return errAt(u, "unit index %d out of range 0..%d", v, isa.MaxUnitIndex)
			}
			in.Unit = uint8(v)
		case t.kind == tIdent && (t.text == "wait" || t.text == "signal"):
			p.next()
			if info.Unit == isa.UnitScalar {
				return errAt(t, "%s runs on the sequencer: use the standalone %s instruction before or after it", info.Mnemonic, t.text)
			}
			sem, err := p.sem()
			if err != nil {
				return err
			}
			count := int64(1)
			if p.accept(":") {
				c := p.peek()
				count, err = p.expr(a.ctx())
				if err != nil {
					return err
				}
				if count < 1 || count > isa.MaxSyncCount {
					return errAt(c, "%s count %d out of range 1..%d", t.text, count, isa.MaxSyncCount)
				}
			}
			sy := isa.Sync{Enabled: true, Sem: sem, Count: uint16(count)}
			if t.text == "wait" {
				if in.Wait.Enabled {
					return errAt(t, "an instruction waits on one semaphore at most")
				}
				in.Wait = sy
			} else {
				if in.Signal.Enabled {
					return errAt(t, "an instruction signals one semaphore at most")
				}
				in.Signal = sy
			}
		case t.kind == tIdent && t.text == "passes":
			p.next()
			if !info.Passes {
				return errAt(t, "%s takes no passes (only mxu.mm and mxu.mma do)", info.Mnemonic)
			}
			if in.Passes != 0 {
				return errAt(t, "passes given twice")
			}
			c := p.peek()
			v, err := p.expr(a.ctx())
			if err != nil {
				return err
			}
			if v < 1 || v > isa.MaxPasses {
				return errAt(c, "passes %d out of range 1..%d", v, isa.MaxPasses)
			}
			in.Passes = uint8(v)
		case t.kind == tPunct && t.text == ",":
			return errAt(t, "too many operands for %s: %s", info.Mnemonic, Syntax(info))
		default:
			return errAt(t, "unexpected %s after the operands of %s (expected @unit, wait sN, signal sN or, for an MXU stream, passes N)", t, info.Mnemonic)
		}
	}
}

// Syntax describes an instruction's operands, for messages and docs.
func Syntax(info *isa.OpInfo) string {
	names := map[isa.OperandKind]string{
		isa.OpdRd: "rd", isa.OpdRs1: "rs1", isa.OpdRs2: "rs2", isa.OpdImm: "imm", isa.OpdTarget: "label",
		isa.OpdMem: "[rs1+imm]", isa.OpdSem: "sN", isa.OpdTile0: "dst", isa.OpdTile1: "src",
		isa.OpdTile2: "src2", isa.OpdTile2Opt: "[bias]", isa.OpdFA: "a", isa.OpdFB: "b",
	}
	var parts []string
	for _, k := range info.Format.Operands() {
		parts = append(parts, names[k])
	}
	switch info.Format {
	case isa.FmtT1:
		parts[0] = "src"
	case isa.FmtT3:
		parts[1], parts[2] = "a", "b"
		if info.Code == isa.CodeVSel {
			parts[1], parts[2] = "mask", "src"
		}
	case isa.FmtT1Imm:
		if info.Code == isa.CodeVIota {
			parts[1] = "dim"
		} else {
			parts[1] = "value"
		}
	}
	out := info.Mnemonic
	for i, s := range parts {
		if i == 0 {
			out += " " + s
		} else {
			out += ", " + s
		}
	}
	return out
}
