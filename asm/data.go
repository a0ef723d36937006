package asm

import (
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/pulse-sim/pulse/isa"
)

// maxInitBytes bounds initialized data per tensor, so that a typo in a shape
// cannot make the assembler allocate gigabytes.
const maxInitBytes = 1 << 30

func (p *parser) space() (isa.Space, *Error) {
	t := p.next()
	if t.kind == tIdent {
		if s, ok := isa.ParseSpace(t.text); ok {
			return s, nil
		}
	}
	return 0, errAt(t, "expected a memory space (hbm, sram, acc, smem), found %s", t)
}

func (p *parser) dtype() (isa.DType, token, *Error) {
	t := p.next()
	if t.kind == tIdent {
		if d, ok := isa.ParseDType(t.text); ok {
			return d, t, nil
		}
	}
	return 0, t, errAt(t, "expected a dtype (f32, bf16, f16, s32, s8, u8, pred), found %s", t)
}

// dims parses "[e, e, ...]" (open and close given) with 1..MaxRank entries.
func (p *parser) dims(c *exprCtx, open, close string, allowNeg bool) ([]int64, *Error) {
	start := p.peek()
	if err := p.expect(open); err != nil {
		return nil, err
	}
	var out []int64
	for {
		t := p.peek()
		v, err := p.expr(c)
		if err != nil {
			return nil, err
		}
		if !allowNeg && (v < 1 || v > isa.MaxDim) {
			return nil, errAt(t, "dimension %d out of range 1..%d", v, isa.MaxDim)
		}
		if allowNeg && (v < math.MinInt32 || v > math.MaxInt32) {
			return nil, errAt(t, "stride %d does not fit 32 bits", v)
		}
		out = append(out, v)
		if p.accept(close) {
			break
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
	if len(out) > isa.MaxRank {
		return nil, errAt(start, "rank %d: tiles have at most %d dimensions", len(out), isa.MaxRank)
	}
	return out, nil
}

func (a *assembler) tensor(p *parser) *Error {
	name := p.next()
	if name.kind != tIdent {
		return errAt(name, "expected a tensor name, found %s", name)
	}
	sp, at, addr, err := a.placement(p)
	if err != nil {
		return err
	}
	dt, dtok, err := p.dtype()
	if err != nil {
		return err
	}
	shape64, err := p.dims(a.ctx(), "[", "]", false)
	if err != nil {
		return err
	}
	shape := make([]uint32, len(shape64))
	elems := int64(1)
	for i, d := range shape64 {
		shape[i] = uint32(d)
		elems *= d
		if elems*int64(dt.Size()) > 1<<50 {
			return errAt(dtok, "tensor %s is impossibly large", name.text)
		}
	}
	if addr%int64(dt.Size()) != 0 {
		return errAt(at, "tensor %s address 0x%x is not aligned to its %s element size %d", name.text, addr, dt, dt.Size())
	}
	sym := exe.Symbol{Name: name.text, Space: sp, Addr: uint64(addr), DType: dt, Shape: shape}
	if err := a.define(name, &symbol{kind: symTensor, val: addr, space: sp, size: sym.Bytes()}); err != nil {
		return err
	}
	a.prog.Symbols = append(a.prog.Symbols, sym)
	if !p.accept("=") {
		return p.expectEOL()
	}
	if elems*int64(dt.Size()) > maxInitBytes {
		return errAt(name, "tensor %s is %d bytes; initialized data is limited to %d bytes per tensor", name.text, elems*int64(dt.Size()), maxInitBytes)
	}
	vals, err := a.init(p, name, dt, shape64, elems)
	if err != nil {
		return err
	}
	if err := p.expectEOL(); err != nil {
		return err
	}
	data := make([]byte, elems*int64(dt.Size()))
	for i, v := range vals {
		isa.StoreElem(dt, data[i*dt.Size():], isa.Round(dt, v))
	}
	a.prog.Segments = append(a.prog.Segments, exe.Segment{Space: sp, Addr: uint64(addr), Data: data})
	return nil
}

// value parses one initializer value: a float expression for float dtypes,
// an integer expression otherwise.
func (a *assembler) value(p *parser, dt isa.DType) (float64, *Error) {
	if dt.IsFloat() {
		return p.fexpr(a.ctx())
	}
	v, err := p.expr(a.ctx())
	if dt.IsWide() {
		return isa.FromBits(dt, uint64(v)), err // exact: see isa.DType.IsWide
	}
	return float64(v), err
}

func (a *assembler) init(p *parser, name token, dt isa.DType, shape []int64, elems int64) ([]float64, *Error) {
	t := p.next()
	vals := make([]float64, 0, elems)
	if t.kind == tPunct && t.text == "{" {
		for !p.accept("}") {
			if len(vals) > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
			v, err := a.value(p, dt)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		if int64(len(vals)) != elems {
			return nil, errAt(t, "tensor %s has %d elements but %d values are given", name.text, elems, len(vals))
		}
		return vals, nil
	}
	if t.kind != tIdent {
		return nil, errAt(t, "expected an initializer ({...}, fill, iota, random or npy), found %s", t)
	}
	args := func(min, max int) ([]float64, *Error) {
		if err := p.expect("("); err != nil {
			return nil, err
		}
		var out []float64
		for !p.accept(")") {
			if len(out) > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
			v, err := a.value(p, dt)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if len(out) < min || len(out) > max {
			return nil, errAt(t, "%s takes %d to %d arguments, got %d", t.text, min, max, len(out))
		}
		return out, nil
	}
	switch t.text {
	case "fill":
		v, err := args(1, 1)
		if err != nil {
			return nil, err
		}
		for i := int64(0); i < elems; i++ {
			vals = append(vals, v[0])
		}
	case "iota":
		v, err := args(0, 2)
		if err != nil {
			return nil, err
		}
		start, step := 0.0, 1.0
		if len(v) > 0 {
			start = v[0]
		}
		if len(v) > 1 {
			step = v[1]
		}
		if dt.IsWide() {
			s0, s1 := isa.Bits(dt, start), isa.Bits(dt, step)
			if len(v) < 2 {
				s1 = 1
			}
			for i := int64(0); i < elems; i++ {
				vals = append(vals, isa.FromBits(dt, s0+uint64(i)*s1))
			}
			break
		}
		if dt.IsInt() && dt != isa.Pred && start == math.Trunc(start) && step == math.Trunc(step) {
			// Integers wrap around their width, as XLA's iota does (130
			// s8 elements end ..., 127, -128, -127).
			for i := int64(0); i < elems; i++ {
				vals = append(vals, isa.FromBits(dt, uint64(int64(start)+i*int64(step))))
			}
			break
		}
		for i := int64(0); i < elems; i++ {
			vals = append(vals, start+float64(i)*step)
		}
	case "random":
		v, err := args(1, 3)
		if err != nil {
			return nil, err
		}
		lo, hi := -1.0, 1.0
		if dt.IsInt() {
			lo, hi = -8, 8
			if dt == isa.U8 || dt == isa.Pred {
				lo = 0
			}
			if dt == isa.Pred {
				hi = 1
			}
		}
		if len(v) == 3 {
			lo, hi = isa.IntValue(dt, v[1]), isa.IntValue(dt, v[2])
		} else if len(v) == 2 {
			return nil, errAt(t, "random takes (seed) or (seed, lo, hi)")
		}
		if !(lo <= hi) {
			return nil, errAt(t, "random: lo %g is above hi %g", lo, hi)
		}
		r := rand.New(rand.NewPCG(uint64(int64(isa.IntValue(dt, v[0]))), 0x9e3779b97f4a7c15))
		for i := int64(0); i < elems; i++ {
			if dt.IsInt() {
				vals = append(vals, isa.FromNumber(dt, math.Floor(lo)+float64(r.Int64N(int64(math.Floor(hi)-math.Floor(lo))+1))))
			} else {
				vals = append(vals, lo+(hi-lo)*r.Float64())
			}
		}
	case "npy":
		if err := p.expect("("); err != nil {
			return nil, err
		}
		f := p.next()
		if f.kind != tString {
			return nil, errAt(f, "npy takes a quoted file name, found %s", f)
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		data, rerr := a.read(f.pos.File, f.text, inputs.Arrays())
		if rerr != nil {
			return nil, errAt(f, "cannot read %s: %v", f.text, unwrapPathErr(rerr))
		}
		arr, rerr := npy.Read(data)
		if rerr != nil {
			return nil, errAt(f, "%s: %v", f.text, rerr)
		}
		if int64(len(arr.Values)) != elems {
			return nil, errAt(f, "%s has shape %v (%d elements) but tensor %s is %v", f.text, arr.Shape, len(arr.Values), name.text, shape)
		}
		vals = arr.ValuesAs(dt)
	default:
		return nil, errAt(t, "unknown initializer %q (use {...}, fill(v), iota(start, step), random(seed[, lo, hi]) or npy(\"file\"))", t.text)
	}
	return vals, nil
}

// placement parses "SPACE ADDR" of .tensor and .data; at is the address token.
func (a *assembler) placement(p *parser) (isa.Space, token, int64, *Error) {
	sp, err := p.space()
	if err != nil {
		return 0, token{}, 0, err
	}
	at := p.peek()
	addr, err := p.expr(a.ctx())
	if err != nil {
		return 0, at, 0, err
	}
	if addr < 0 {
		return 0, at, 0, errAt(at, "address %d is negative", addr)
	}
	return sp, at, addr, nil
}

func (a *assembler) data(p *parser) *Error {
	sp, _, addr, err := a.placement(p)
	if err != nil {
		return err
	}
	if err := p.expect("hex"); err != nil {
		return err
	}
	s := p.next()
	if s.kind != tString {
		return errAt(s, "expected a quoted hex string, found %s", s)
	}
	b, herr := hex.DecodeString(strings.Join(strings.Fields(s.text), ""))
	if herr != nil {
		return errAt(s, "bad hex data: %v", herr)
	}
	a.prog.Segments = append(a.prog.Segments, exe.Segment{Space: sp, Addr: uint64(addr), Data: b})
	return p.expectEOL()
}
