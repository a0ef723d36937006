package asm

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/isa"
)

// parser walks the tokens of one line.
type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOL {
		p.i++
	}
	return t
}

func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.kind == tPunct || t.kind == tIdent) && t.text == text
}

func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.next()
		return true
	}
	return false
}

func errAt(t token, format string, a ...any) *Error {
	if t.kind == tBad {
		return &Error{t.pos, t.text}
	}
	return &Error{t.pos, fmt.Sprintf(format, a...)}
}

func (p *parser) expect(text string) *Error {
	if p.accept(text) {
		return nil
	}
	t := p.peek()
	return errAt(t, "expected %q, found %s", text, t)
}

func (p *parser) expectEOL() *Error {
	if t := p.peek(); t.kind != tEOL {
		return errAt(t, "unexpected %s at the end of the statement", t)
	}
	return nil
}

// regNum parses "r<n>" or "s<n>" names.
func regNum(s string, prefix byte, max int) (uint8, bool) {
	if len(s) < 2 || s[0] != prefix {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || n < 0 || n >= max || strconv.Itoa(n) != s[1:] {
		return 0, false
	}
	return uint8(n), true
}

// reserved reports whether an identifier cannot name a constant, label or tensor.
func reserved(s string) bool {
	if _, ok := regNum(s, 'r', 1<<20); ok {
		return true
	}
	if _, ok := regNum(s, 's', 1<<20); ok {
		return true
	}
	if _, ok := isa.ParseSpace(s); ok {
		return true
	}
	if _, ok := isa.ParseDType(s); ok {
		return true
	}
	switch s {
	case "wait", "signal", "inf", "nan", "sizeof", "f32bits", "fill", "iota", "random", "npy", "hex":
		return true
	}
	return false
}

func (p *parser) reg() (uint8, *Error) {
	t := p.next()
	if t.kind == tIdent {
		if r, ok := regNum(t.text, 'r', isa.NumRegs); ok {
			return r, nil
		}
		if _, ok := regNum(t.text, 'r', 1<<20); ok {
			return 0, errAt(t, "no register %s: registers are r0..r%d", t.text, isa.NumRegs-1)
		}
	}
	return 0, errAt(t, "expected a register (r0..r%d), found %s", isa.NumRegs-1, t)
}

func (p *parser) sem() (uint8, *Error) {
	t := p.next()
	if t.kind == tIdent {
		if s, ok := regNum(t.text, 's', isa.NumSems); ok {
			return s, nil
		}
		if _, ok := regNum(t.text, 's', 1<<20); ok {
			return 0, errAt(t, "no semaphore %s: semaphores are s0..s%d", t.text, isa.NumSems-1)
		}
	}
	return 0, errAt(t, "expected a semaphore (s0..s%d), found %s", isa.NumSems-1, t)
}

func parseInt(t token) (int64, *Error) {
	s := strings.ReplaceAll(t.text, "_", "")
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(s, 0, 64)
		if uerr == nil && u <= math.MaxUint64 {
			return int64(u), nil // 64-bit patterns such as 0xffff_ffff_ffff_ffff
		}
		return 0, errAt(t, "bad number %q", t.text)
	}
	return v, nil
}

// symbols resolves names in expressions.
type symbols interface {
	lookup(name string) (val int64, space isa.Space, ok bool)
	sizeOf(name string) (int64, bool)
}

// expr parses a constant integer expression. Tensor names evaluate to their
// address; spaces collects the spaces of the tensors it mentions.
type exprCtx struct {
	syms   symbols
	spaces []isa.Space
}

func (p *parser) expr(c *exprCtx) (int64, *Error) {
	v, err := p.term(c)
	if err != nil {
		return 0, err
	}
	for {
		t := p.peek()
		if t.kind != tPunct || !strings.Contains("+-|^", t.text) || len(t.text) != 1 {
			return v, nil
		}
		p.next()
		w, err := p.term(c)
		if err != nil {
			return 0, err
		}
		switch t.text {
		case "+":
			if (w > 0 && v > math.MaxInt64-w) || (w < 0 && v < math.MinInt64-w) {
				return 0, errAt(t, "%d + %d overflows 64 bits", v, w)
			}
			v += w
		case "-":
			if (w < 0 && v > math.MaxInt64+w) || (w > 0 && v < math.MinInt64+w) {
				return 0, errAt(t, "%d - %d overflows 64 bits", v, w)
			}
			v -= w
		case "|":
			v |= w
		case "^":
			v ^= w
		}
	}
}

func (p *parser) term(c *exprCtx) (int64, *Error) {
	v, err := p.unary(c)
	if err != nil {
		return 0, err
	}
	for {
		t := p.peek()
		if t.kind != tPunct || !(t.text == "*" || t.text == "/" || t.text == "%" || t.text == "&" || t.text == "<<" || t.text == ">>") {
			return v, nil
		}
		p.next()
		w, err := p.unary(c)
		if err != nil {
			return 0, err
		}
		switch t.text {
		case "*":
			// A product that wraps would be a silent wrong constant
			// (9223372036854775807 * 2 + 6 gave 4).
			if v != 0 && w != 0 && ((v*w)/w != v || (v == -1 && w == math.MinInt64) || (w == -1 && v == math.MinInt64)) {
				return 0, errAt(t, "%d * %d overflows 64 bits", v, w)
			}
			v *= w
		case "/", "%":
			if w == 0 {
				return 0, errAt(t, "division by zero")
			}
			if w == -1 && v == math.MinInt64 {
				return 0, errAt(t, "%d %s -1 overflows 64 bits", v, t.text)
			}
			if t.text == "/" {
				v /= w
			} else {
				v %= w
			}
		case "&":
			v &= w
		case "<<", ">>":
			if w < 0 || w > 63 {
				return 0, errAt(t, "shift count %d out of range 0..63", w)
			}
			if t.text == "<<" {
				// Bits shifted out of the 64-bit pattern are lost:
				// refused, as for a product (1 << 63 is the top bit, kept).
				if uint64(v)<<uint(w)>>uint(w) != uint64(v) && v<<uint(w)>>uint(w) != v {
					return 0, errAt(t, "%d << %d overflows 64 bits", v, w)
				}
				v <<= uint(w)
			} else {
				v >>= uint(w)
			}
		}
	}
}

func (p *parser) unary(c *exprCtx) (int64, *Error) {
	t := p.peek()
	if t.kind == tPunct && (t.text == "-" || t.text == "~" || t.text == "+") {
		p.next()
		v, err := p.unary(c)
		switch t.text {
		case "-":
			v = -v
		case "~":
			v = ^v
		}
		return v, err
	}
	return p.primary(c)
}

func (p *parser) primary(c *exprCtx) (int64, *Error) {
	t := p.next()
	switch t.kind {
	case tInt:
		return parseInt(t)
	case tFloat:
		return 0, errAt(t, "expected an integer, found the float %s", t.text)
	case tIdent:
		if t.text == "sizeof" {
			if err := p.expect("("); err != nil {
				return 0, err
			}
			n := p.next()
			if err := p.expect(")"); err != nil {
				return 0, err
			}
			if v, ok := c.syms.sizeOf(n.text); ok {
				return v, nil
			}
			return 0, errAt(n, "sizeof: %s is not a tensor", n)
		}
		if v, sp, ok := c.syms.lookup(t.text); ok {
			if sp != isa.SpaceNone {
				c.spaces = append(c.spaces, sp)
			}
			return v, nil
		}
		if _, ok := regNum(t.text, 'r', 1<<20); ok {
			return 0, errAt(t, "register %s cannot be used here; only [rN + constant] addresses take a register", t.text)
		}
		return 0, errAt(t, "undefined: %s", t.text)
	case tPunct:
		if t.text == "(" {
			v, err := p.expr(c)
			if err != nil {
				return 0, err
			}
			return v, p.expect(")")
		}
	}
	return 0, errAt(t, "expected an expression, found %s", t)
}

// float parses an f32 value and returns its IEEE bits: a float expression
// (see fexpr) rounded once to f32, or f32bits(expr) for an exact bit pattern.
func (p *parser) float(c *exprCtx) (uint32, *Error) {
	if t := p.peek(); t.kind == tIdent && t.text == "f32bits" {
		p.next()
		if err := p.expect("("); err != nil {
			return 0, err
		}
		v, err := p.expr(c)
		if err != nil {
			return 0, err
		}
		if v < 0 || v > math.MaxUint32 {
			return 0, errAt(t, "f32bits value %d does not fit 32 bits", v)
		}
		return uint32(v), p.expect(")")
	}
	v, err := p.fexpr(c)
	if err != nil {
		return 0, err
	}
	if v != v {
		if math.Signbit(v) {
			return 0xffc00000, nil
		}
		return 0x7fc00000, nil // the canonical quiet NaN
	}
	return math.Float32bits(float32(v)), nil
}

// fexpr parses a float expression evaluated in float64: + - * / on float and
// integer literals, inf, nan, named constants and parentheses.
func (p *parser) fexpr(c *exprCtx) (float64, *Error) {
	v, err := p.fterm(c)
	if err != nil {
		return 0, err
	}
	for p.is("+") || p.is("-") {
		op := p.next().text
		w, err := p.fterm(c)
		if err != nil {
			return 0, err
		}
		if op == "+" {
			v += w
		} else {
			v -= w
		}
	}
	return v, nil
}

func (p *parser) fterm(c *exprCtx) (float64, *Error) {
	v, err := p.funary(c)
	if err != nil {
		return 0, err
	}
	for p.is("*") || p.is("/") {
		op := p.next().text
		w, err := p.funary(c)
		if err != nil {
			return 0, err
		}
		if op == "*" {
			v *= w
		} else {
			v /= w
		}
	}
	return v, nil
}

func (p *parser) funary(c *exprCtx) (float64, *Error) {
	if p.accept("-") {
		v, err := p.funary(c)
		return -v, err
	}
	if p.accept("+") {
		return p.funary(c)
	}
	t := p.next()
	switch t.kind {
	case tFloat:
		v, err := strconv.ParseFloat(strings.ReplaceAll(t.text, "_", ""), 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return 0, errAt(t, "bad float %q", t.text)
		}
		return v, nil
	case tInt:
		v, err := parseInt(t)
		return float64(v), err
	case tIdent:
		switch t.text {
		case "inf":
			return math.Inf(1), nil
		case "nan":
			return math.NaN(), nil
		}
		if v, _, ok := c.syms.lookup(t.text); ok {
			return float64(v), nil
		}
		return 0, errAt(t, "undefined: %s", t.text)
	case tPunct:
		if t.text == "(" {
			v, err := p.fexpr(c)
			if err != nil {
				return 0, err
			}
			return v, p.expect(")")
		}
	}
	return 0, errAt(t, "expected a number, found %s", t)
}

// addr parses a base address "r4", "r4+expr", "r4-expr" or "expr".
func (p *parser) addr(c *exprCtx) (uint8, int64, *Error) {
	t := p.peek()
	if t.kind == tIdent {
		if _, ok := regNum(t.text, 'r', 1<<20); ok {
			r, err := p.reg()
			if err != nil {
				return 0, 0, err
			}
			switch {
			case p.accept("+"):
				v, err := p.expr(c)
				return r, v, err
			case p.is("-"):
				v, err := p.expr(c) // the leading '-' is the expression's unary minus
				return r, v, err
			}
			return r, 0, nil
		}
	}
	v, err := p.expr(c)
	return 0, v, err
}
