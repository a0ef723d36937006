package hlo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Error is a positioned parse error.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// MaxErrors caps the errors of one parse.
const MaxErrors = 10

// ErrorList holds every error of a parse, sorted by position.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

type bailout struct{}

type parser struct {
	file  string
	toks  []token
	i     int
	errs  ErrorList
	inst  string // the instruction being read, for messages
	depth int    // tuple shapes open

	// Computations written inline as attribute values (to_apply={ ... },
	// as XLA's own tests write them), named after their instruction and
	// attribute, to be placed before the computation that holds them.
	inline   []*Computation
	inlineAt int // inline computations open (nesting bound)
	named    map[string]bool

	// Instructions written in place of an operand ("add(x, f32[]
	// constant(1))", as XLA's tests write them), to be placed before the
	// instruction that holds them.
	nested   []*Instruction
	nestedAt int             // nested instructions open (nesting bound)
	names    map[string]bool // the names the computation has defined so far
}

// maxInlineDepth bounds how deeply inline computations nest, and
// instructions written as operands of instructions.
const maxInlineDepth = 32

// maxTupleDepth bounds how deeply tuple shapes nest (XLA's own modules nest
// a few levels): deeper input is an error, not a stack overflow.
const maxTupleDepth = 64

// maxElements bounds an array's elements: 2^50, a petabyte of bytes,
// beyond what any chip or host could hold (the largest array of the
// corpus, Llama-2's attention scores, has 2^39).
const maxElements = 1 << 50

// Parse parses HLO text. filename names it in errors. On failure it returns
// an ErrorList (every error found, sorted, at most MaxErrors) and whatever
// module could be read.
func Parse(filename, src string) (*Module, error) {
	p := &parser{file: filename, toks: lex(src)}
	m := p.module()
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool {
			a, b := p.errs[i].Pos, p.errs[j].Pos
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		if len(p.errs) > MaxErrors {
			p.errs = append(p.errs[:MaxErrors-1], &Error{filename, p.errs[MaxErrors-1].Pos, "too many errors"})
		}
		return m, p.errs
	}
	return m, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekN(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.kind == tPunct || t.kind == tWord) && t.text == text
}

func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.next()
		return true
	}
	return false
}

// fail records an error and unwinds to the nearest recovery point.
func (p *parser) fail(t token, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if t.kind == tBad {
		msg = t.text
	}
	p.errs = append(p.errs, &Error{p.file, t.pos, msg})
	if len(p.errs) > MaxErrors {
		p.i = len(p.toks) - 1
	}
	panic(bailout{})
}

func (p *parser) expect(text string) token {
	t := p.peek()
	if !p.accept(text) {
		p.fail(t, "expected %q, found %s", text, t)
	}
	return t
}

func (p *parser) name() token {
	t := p.next()
	if t.kind != tWord {
		p.fail(t, "expected a name, found %s", t)
	}
	t.text = strings.TrimPrefix(t.text, "%")
	if t.text == "" || strings.HasPrefix(t.text, "%") {
		p.fail(t, "empty name") // "%" alone, or "%%x": the sigil is not part of a name
	}
	return t
}

func (p *parser) int() int64 {
	t := p.next()
	v, err := strconv.ParseInt(t.text, 10, 64)
	if t.kind != tWord || err != nil {
		p.fail(t, "expected an integer, found %s", t)
	}
	return v
}

// guard runs f, turning a bailout into recovery at the next line that can
// start an instruction or a computation.
func (p *parser) guard(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(bailout); !is {
				panic(r)
			}
			ok = false
			p.skipToLine()
		}
	}()
	f()
	return true
}

func (p *parser) skipToLine() {
	if p.peek().kind != tEOF {
		p.next()
	}
	for {
		t := p.peek()
		if t.kind == tEOF || t.bol {
			return
		}
		p.next()
	}
}

func (p *parser) module() *Module {
	m := &Module{Pos: p.peek().pos}
	if p.is("HloModule") {
		p.guard(func() {
			p.next()
			m.HasHeader = true
			m.Name = p.name().text
			p.accept(":") // XLA's lexer also reads "HloModule name:"
			for p.accept(",") {
				m.Attrs = append(m.Attrs, p.attr())
			}
		})
	}
	p.skipStackFrames()
	for p.peek().kind != tEOF {
		start := p.i
		p.guard(func() {
			c := p.computation(m)
			m.Computations = append(m.Computations, p.inline...)
			m.Computations = append(m.Computations, c)
		})
		p.inline = nil
		if p.i == start {
			p.next() // never loop on the same token
		}
	}
	for _, c := range m.Computations {
		if c.IsEntry {
			if m.Entry != nil {
				p.errs = append(p.errs, &Error{p.file, c.Pos, fmt.Sprintf("a second ENTRY computation %s (the first is %s)", c.Name, m.Entry.Name)})
				continue
			}
			m.Entry = c
		}
	}
	if m.Entry == nil && len(m.Computations) > 0 {
		if _, declared := m.Attr("entry_computation_layout"); declared {
			last := p.toks[len(p.toks)-1].pos
			p.errs = append(p.errs, &Error{p.file, last, fmt.Sprintf("no ENTRY computation: module %s declares an entry_computation_layout but no computation is marked ENTRY (is the file truncated?)", m.Name)})
		} else {
			m.Entry = m.Computations[len(m.Computations)-1]
		}
	}
	if len(m.Computations) == 0 && len(p.errs) == 0 {
		p.errs = append(p.errs, &Error{p.file, p.peek().pos, "no computation in the module"})
	}
	return m
}

// skipStackFrames skips the optional FileNames/FunctionNames/FileLocations/
// StackFrames tables of newer JAX dumps.
func (p *parser) skipStackFrames() {
	for {
		t := p.peek()
		if t.kind != tWord || !(t.text == "FileNames" || t.text == "FunctionNames" || t.text == "FileLocations" || t.text == "StackFrames") {
			return
		}
		p.next()
		for !p.atComputationStart() && p.peek().kind != tEOF {
			p.next()
		}
	}
}

func (p *parser) atComputationStart() bool {
	t := p.peek()
	if t.kind != tWord || !t.bol || isInt(t.text) {
		return false // stack-frame table rows start with a number
	}
	if t.text == "ENTRY" {
		return true
	}
	n := p.peekN(1)
	return n.text == "{" || n.text == "(" && n.kind == tPunct
}

func (p *parser) computation(m *Module) *Computation {
	c := &Computation{Pos: p.peek().pos}
	errsBefore := len(p.errs)
	if p.accept("ENTRY") {
		c.IsEntry = true
	}
	c.Name = p.name().text
	if p.is("(") {
		c.Signature = p.signature()
	}
	p.expect("{")
	p.body(c)
	if p.accept(",") {
		k := p.next()
		if k.text != "execution_thread" {
			p.fail(k, "expected execution_thread after a computation, found %s", k)
		}
		p.expect("=")
		c.ExecutionThread = p.value()
	}
	if c.Root == nil && len(c.Instructions) > 0 {
		c.Root = c.Instructions[len(c.Instructions)-1]
	}
	if len(c.Instructions) == 0 && len(p.errs) == errsBefore { // not when its instructions failed
		p.errs = append(p.errs, &Error{p.file, c.Pos, fmt.Sprintf("computation %s has no instructions", c.Name)})
	}
	return c
}

// body reads a computation's instructions up to and including its "}".
func (p *parser) body(c *Computation) {
	names := map[string]bool{}
	for !p.is("}") {
		if p.peek().kind == tEOF {
			p.fail(p.peek(), "computation %s is not closed: expected \"}\"", c.Name)
		}
		p.guard(func() {
			p.nested, p.names = p.nested[:0], names
			in := p.instruction()
			for _, n := range p.nested {
				names[n.Name] = true
				c.Instructions = append(c.Instructions, n)
			}
			if names[in.Name] {
				p.fail(p.toks[p.i-1], "instruction %s defined twice in computation %s", in.Name, c.Name)
			}
			names[in.Name] = true
			c.Instructions = append(c.Instructions, in)
			if in.IsRoot {
				if c.Root != nil {
					p.errs = append(p.errs, &Error{p.file, in.Pos, fmt.Sprintf("computation %s has a second ROOT (%s after %s)", c.Name, in.Name, c.Root.Name)})
				} else {
					c.Root = in
				}
			}
		})
	}
	p.expect("}")
}

// inlineComputation reads a computation written as an attribute value,
// "{ instructions }", names it after the instruction and attribute, and
// returns the name.
func (p *parser) inlineComputation(key string) string {
	open := p.expect("{")
	if p.inlineAt >= maxInlineDepth {
		p.fail(open, "inline computations nest more than %d deep", maxInlineDepth)
	}
	if p.named == nil {
		p.named = map[string]bool{}
	}
	name := p.inst + "." + key
	for i := 2; p.named[name]; i++ {
		name = fmt.Sprintf("%s.%s.%d", p.inst, key, i)
	}
	p.named[name] = true
	c := &Computation{Pos: open.pos, Name: name}
	inst := p.inst
	p.inlineAt++
	p.body(c)
	p.inlineAt--
	p.inst = inst
	if c.Root == nil && len(c.Instructions) > 0 {
		c.Root = c.Instructions[len(c.Instructions)-1]
	}
	if len(c.Instructions) == 0 {
		p.fail(open, "inline computation %s has no instructions", name)
	}
	p.inline = append(p.inline, c) // after the ones it holds: callees first
	return name
}

func (p *parser) signature() *Signature {
	s := &Signature{}
	p.expect("(")
	for !p.accept(")") {
		if len(s.Params) > 0 {
			p.expect(",")
		}
		n := p.name()
		p.expect(":")
		s.Params = append(s.Params, Param{n.text, p.shape()})
	}
	p.expect("->")
	s.Result = p.shape()
	return s
}

func (p *parser) instruction() *Instruction {
	in := &Instruction{Pos: p.peek().pos}
	if p.accept("ROOT") {
		in.IsRoot = true
	}
	in.Name = p.name().text
	p.inst = in.Name
	p.expect("=")
	// The result shape may be left out where XLA can infer it ("v = abs(a)").
	if t := p.peek(); !(t.kind == tWord && !isElemType(t.text) && p.peekN(1).text == "(") {
		in.Shape = p.shape()
	}
	p.rhs(in, false)
	return in
}

// rhs reads an instruction's opcode, operands and attributes. A nested
// instruction's attributes are only those a name and "=" follow, so that
// the comma before its holder's next operand ends it.
func (p *parser) rhs(in *Instruction, nested bool) {
	op := p.next()
	if op.kind != tWord {
		p.fail(op, "expected an opcode, found %s", op)
	}
	in.Opcode = op.text
	p.expect("(")
	switch in.Opcode {
	case OpParameter:
		in.ParamNumber = p.int()
		p.expect(")")
	case OpConstant:
		in.Literal = p.until(")")
		p.expect(")")
	default:
		for !p.accept(")") {
			if len(in.Operands) > 0 {
				p.expect(",")
			}
			in.Operands = append(in.Operands, p.operand())
		}
	}
	for nested && p.is(",") && p.peekN(1).kind == tWord && p.peekN(2).text == "=" || !nested && p.accept(",") {
		if nested {
			p.next()
		}
		in.Attrs = append(in.Attrs, p.attr())
	}
	totalOrderSpelling(in)
}

// totalOrderSpelling reads a compare's order=TOTAL (as JAX 0.11 prints the
// comparator of jnp.sort and jnp.argsort, whose StableHLO says TOTALORDER)
// as type=TOTALORDER, the one spelling the rest of Pulse reads: taken as a
// partial order it would tie NaNs with every value instead of sorting them
// last.
func totalOrderSpelling(in *Instruction) {
	if in.Opcode != OpCompare {
		return
	}
	for _, a := range in.Attrs {
		if a.Key == "type" {
			return
		}
	}
	for i, a := range in.Attrs {
		if a.Key == "order" && a.Value == "TOTAL" {
			in.Attrs[i] = Attr{Pos: a.Pos, Key: "type", Value: "TOTALORDER"}
		}
	}
}

func (p *parser) operand() *Operand {
	o := &Operand{Pos: p.peek().pos}
	t := p.peek()
	if t.text == "(" || t.kind == tWord && isElemType(t.text) && p.peekN(1).text == "[" {
		o.Shape = p.shape()
	}
	if w := p.peek(); w.kind == tWord && p.peekN(1).text == "(" {
		// An instruction in place of the operand: "f32[] constant(1)".
		o.Name = p.nestedInstruction(o.Shape, w).Name
		return o
	}
	o.Name = p.name().text
	return o
}

// nestedInstruction reads an instruction written as an operand, of the
// given shape (nil: left out, inferred as for any instruction), names it
// after its holder and opcode, and queues it to precede its holder.
func (p *parser) nestedInstruction(shape *Shape, at token) *Instruction {
	if p.nestedAt >= maxInlineDepth {
		p.fail(at, "instructions written as operands nest more than %d deep", maxInlineDepth)
	}
	in := &Instruction{Pos: at.pos, Shape: shape}
	p.nestedAt++
	p.rhs(in, true)
	p.nestedAt--
	taken := func(name string) bool {
		if p.names[name] {
			return true
		}
		for _, n := range p.nested {
			if n.Name == name {
				return true
			}
		}
		return false
	}
	in.Name = p.inst + "." + in.Opcode
	for i := 2; taken(in.Name); i++ {
		in.Name = fmt.Sprintf("%s.%s.%d", p.inst, in.Opcode, i)
	}
	p.nested = append(p.nested, in) // after the ones it holds
	return in
}

func (p *parser) attr() Attr {
	k := p.next()
	if k.kind != tWord {
		p.fail(k, "expected an attribute name, found %s", k)
	}
	a := Attr{Pos: k.pos, Key: k.text}
	p.expect("=")
	// A computation written in place: "{" then an instruction ("name =",
	// or ROOT).
	if p.is("{") && (p.peekN(1).text == "ROOT" || p.peekN(1).kind == tWord && p.peekN(2).text == "=") && inlineAttrs[a.Key] {
		a.Value = p.inlineComputation(a.Key)
		return a
	}
	a.Value = p.value()
	if a.Value == "" {
		p.fail(p.peek(), "attribute %s has no value", a.Key)
	}
	return a
}

// inlineAttrs name a computation and may hold one written in place.
var inlineAttrs = map[string]bool{"to_apply": true, "calls": true, "condition": true, "body": true, "select": true,
	"scatter": true, "true_computation": true, "false_computation": true, "comparator": true}

// value reads an attribute value: tokens with brackets matched, up to a
// comma or the end of the instruction at depth 0. The text is rebuilt with
// single spaces where the source had space.
func (p *parser) value() string {
	// Most values are one token ("kLoop", "%comp", "{1,0}" is not): no copy.
	if t, n := p.peek(), p.peekN(1); t.kind == tWord || t.kind == tString {
		if n.kind == tEOF || n.bol || n.text == "," && n.kind == tPunct || n.text == "}" && n.kind == tPunct {
			p.next()
			return t.text
		}
	}
	var b strings.Builder
	depth := 0
	for {
		t := p.peek()
		if t.kind == tEOF {
			if depth > 0 {
				p.fail(t, "unclosed bracket in an attribute value")
			}
			break
		}
		if t.kind == tBad {
			p.fail(t, "")
		}
		if depth == 0 {
			if t.text == "," || t.text == "}" || t.text == ")" || t.text == "]" {
				break
			}
			// Values span lines only inside brackets; at depth 0 a new line,
			// or "name =", starts the next instruction, computation or table.
			if b.Len() > 0 && (t.bol || t.kind == tWord && p.peekN(1).text == "=") {
				break
			}
		}
		switch t.text {
		case "{", "(", "[":
			if t.kind == tPunct {
				depth++
			}
		case "}", ")", "]":
			if t.kind == tPunct {
				depth--
			}
		}
		if b.Len() > 0 && t.space {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
		p.next()
	}
	return b.String()
}

// until reads raw text up to the closing bracket matching the current depth.
func (p *parser) until(closer string) string {
	var b strings.Builder
	depth := 0
	for {
		t := p.peek()
		if t.kind == tEOF {
			p.fail(t, "expected %q, found end of file", closer)
		}
		if t.kind == tBad {
			p.fail(t, "")
		}
		if depth == 0 && t.text == closer && t.kind == tPunct {
			return b.String()
		}
		if t.kind == tPunct {
			switch t.text {
			case "{", "(", "[":
				depth++
			case "}", ")", "]":
				depth--
			}
		}
		if b.Len() > 0 && t.space {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
		p.next()
	}
}

// isElemType: s names an element type (the table of elemtype.go).
func isElemType(s string) bool { _, ok := LookupElem(s); return ok }

func (p *parser) shape() *Shape {
	t := p.peek()
	if p.accept("(") {
		if p.depth++; p.depth > maxTupleDepth {
			p.fail(t, "tuple shapes nested more than %d deep", maxTupleDepth)
		}
		s := &Shape{IsTuple: true}
		for !p.accept(")") {
			if len(s.Tuple) > 0 {
				p.expect(",")
			}
			s.Tuple = append(s.Tuple, p.shape())
		}
		p.depth--
		return s
	}
	if t.kind != tWord || !isElemType(t.text) {
		p.fail(t, "expected a shape (an element type such as f32, or a tuple), found %s", t)
	}
	p.next()
	s := &Shape{Elem: t.text}
	if s.Elem == "opaque_type" {
		s.Elem = "opaque"
	}
	p.expect("[")
	for !p.accept("]") {
		if len(s.Dims) > 0 {
			p.expect(",")
		}
		kind := Static
		switch {
		case p.accept("<="):
			kind = Bounded
		case p.accept("?"):
			s.Dims = append(s.Dims, -1)
			s.setKind(len(s.Dims)-1, Unbounded)
			continue
		}
		d := p.peek()
		v := p.int()
		if v < 0 {
			p.fail(d, "negative dimension %d", v)
		}
		s.Dims = append(s.Dims, v)
		if kind != Static {
			s.setKind(len(s.Dims)-1, kind)
		}
	}
	if n, ok := elemsWithin(s.Dims, maxElements); !ok {
		who := ""
		if p.inst != "" {
			who = p.inst + ": "
		}
		p.fail(t, "%sthe array %s has %s elements, beyond the 2^50 any chip or host could hold", who, s, n)
	}
	if p.is("{") && (p.peekN(1).text == ":" || p.peekN(1).text == "}" || isInt(p.peekN(1).text)) {
		s.Layout = p.layout()
	}
	return s
}

func (s *Shape) setKind(i int, k DimKind) {
	for len(s.DimKinds) <= i {
		s.DimKinds = append(s.DimKinds, Static)
	}
	s.DimKinds[i] = k
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func (p *parser) layout() *Layout {
	l := &Layout{MinorToMajor: []int64{}}
	p.expect("{")
	for !p.is("}") && !p.is(":") {
		if len(l.MinorToMajor) > 0 {
			p.expect(",")
		}
		l.MinorToMajor = append(l.MinorToMajor, p.int())
	}
	if p.accept(":") {
		l.HasTail = true
		l.Tail = p.until("}")
	}
	p.expect("}")
	return l
}
