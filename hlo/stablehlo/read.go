package stablehlo

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
)

// Check is a check.expect_* call of a test module: its kind, the values
// it compares (as entry outputs, see Read) and its attributes.
type Check struct {
	Kind     string // expect_eq, expect_almost_eq, expect_close, expect_eq_const, expect_almost_eq_const
	Line     int
	Outputs  []int // indices into the entry's root tuple: actual, expected (one for _const)
	MaxULP   int64 // expect_close (default 3)
	Const    *eval.Value
	ConstLit string
}

// Result is a read module and the checks it contains.
type Result struct {
	File   string
	Module *hlo.Module
	Checks []Check
	// Outputs is the number of the entry function's own results; the
	// check operands follow them in the root tuple.
	Outputs int
}

// IsStableHLO reports whether src looks like MLIR rather than HLO text.
func IsStableHLO(file string, src []byte) bool {
	if strings.HasSuffix(file, ".mlir") {
		return true
	}
	s := string(src)
	return strings.Contains(s, "func.func") || strings.Contains(s, "stablehlo.")
}

// Read translates a StableHLO module into an hlo.Module.
func Read(file string, src []byte) (*Result, error) {
	toks, err := lex(string(src))
	if err != nil {
		e := *err.(*Error)
		e.File = file
		return nil, &e
	}
	r := &reader{file: file, funcs: map[string]*fn{}}
	r.toks, r.locs = splitLocations(toks)
	if err := r.module(); err != nil {
		return nil, err
	}
	return r.build()
}

type fn struct {
	name    string
	public  bool
	args    []arg
	results []string // HLO shapes
	// resultShardings are the results' sdy.sharding attributes ("" where
	// none).
	resultShardings []string
	stmts           []*stmt
	line            int
}

type arg struct {
	name  string
	shape string
	// sharding is an entry argument's sdy.sharding attribute, as text.
	sharding string
}

type stmt struct {
	results []string // %names
	counts  []int    // results per name (%0:2)
	op      string
	toks    []token
	line    int
	col     int
	regions [][]*stmt
	rargs   [][]arg // region block arguments
	// src is where the operation came from, from its loc(...) (JAX's
	// as_text(debug_info=True)); zero without one.
	src hlo.Source
	// paired: the region's arguments were written as the pretty
	// reduce's (%acc_a, %x_a) (%acc_b, %x_b) pairs, not in HLO's order
	// (the accumulators, then the elements) as a generic region's are.
	paired bool
}

type reader struct {
	file  string
	toks  []token
	p     int
	funcs map[string]*fn
	order []*fn
	// replicas and partitions are the module's mhlo.num_replicas and
	// mhlo.num_partitions (-1 when absent).
	replicas, partitions int64
	// meshes are the module's sdy.mesh declarations (shardy.go).
	meshes []meshDecl
	// locs are the module's debug locations (locations.go).
	locs *locations
}

func (r *reader) peek() token { return r.toks[r.p] }

// next returns the current token and advances, staying on the final EOF.
func (r *reader) next() token {
	t := r.toks[r.p]
	if r.p < len(r.toks)-1 {
		r.p++
	}
	return t
}

// until reports whether a list continues before the closing text; at the
// end of the input it stops (the caller's expect then reports it).
func (r *reader) until(close string) bool {
	t := r.peek()
	return t.text != close && t.kind != tEOF
}
func (r *reader) errAt(t token, format string, a ...any) error {
	return &Error{File: r.file, Line: t.line, Col: t.col, Msg: fmt.Sprintf(format, a...)}
}

func (r *reader) expect(text string) error {
	t := r.next()
	if t.text != text {
		return r.errAt(t, "expected %q, found %q", text, t.text)
	}
	return nil
}

// skipBalanced skips a bracketed group starting at the current token.
func (r *reader) skipBalanced() {
	depth := 0
	for {
		t := r.next()
		switch t.text {
		case "(", "[", "{", "<":
			depth++
		case ")", "]", "}", ">":
			depth--
		}
		if depth <= 0 || t.kind == tEOF {
			return
		}
	}
}

func (r *reader) module() error {
	if t := r.peek(); t.text == "module" || t.text == "builtin.module" {
		r.next()
		if r.peek().kind == tSymbol {
			r.next()
		}
		if r.peek().text == "attributes" {
			r.next()
			start := r.p
			r.skipBalanced()
			// The devices a sharded export runs on (JAX's shard_map and
			// pjit write them; HLO's header says replica_count and
			// num_partitions).
			attrs := r.toks[start:r.p]
			r.replicas, r.partitions = attrNumber(attrs, "mhlo.num_replicas"), attrNumber(attrs, "mhlo.num_partitions")
		}
		if err := r.expect("{"); err != nil {
			return err
		}
	}
	for {
		t := r.peek()
		switch {
		case t.kind == tEOF:
			return r.finish()
		case t.text == "}":
			r.next()
		case t.text == "func.func" || t.text == "func":
			if err := r.function(); err != nil {
				return err
			}
		case t.text == "sdy.mesh":
			if err := r.meshDecl(); err != nil {
				return err
			}
		default:
			return r.errAt(t, "expected func.func, found %q (the generic MLIR form \"builtin.module\"() is not read yet)", t.text)
		}
	}
}

func (r *reader) finish() error {
	if len(r.order) == 0 {
		return &Error{File: r.file, Line: 1, Col: 1, Msg: "no func.func in the module"}
	}
	return nil
}

func (r *reader) function() error {
	start := r.next()
	f := &fn{line: start.line}
	if t := r.peek(); t.text == "public" || t.text == "private" {
		f.public = t.text == "public"
		r.next()
	} else {
		f.public = true
	}
	name := r.next()
	if name.kind != tSymbol {
		return r.errAt(name, "expected the function's @name")
	}
	f.name = strings.Trim(name.text[1:], `"`)
	if err := r.expect("("); err != nil {
		return err
	}
	for r.until(")") {
		a := r.next()
		if a.kind != tValue {
			return r.errAt(a, "expected an argument %%name")
		}
		if err := r.expect(":"); err != nil {
			return err
		}
		s, err := r.typ()
		if err != nil {
			return err
		}
		a2 := arg{name: a.text, shape: s}
		if r.peek().text == "{" {
			start := r.p
			r.skipBalanced()
			a2.sharding = sdyAttr(r.toks[start:r.p], "sdy.sharding")
		}
		f.args = append(f.args, a2)
		if r.peek().text == "," {
			r.next()
		}
	}
	r.next()
	if r.peek().text == "->" {
		r.next()
		if r.peek().text == "(" {
			r.next()
			for r.until(")") {
				s, err := r.typ()
				if err != nil {
					return err
				}
				f.results = append(f.results, s)
				sh := ""
				if r.peek().text == "{" {
					start := r.p
					r.skipBalanced()
					sh = sdyAttr(r.toks[start:r.p], "sdy.sharding")
				}
				f.resultShardings = append(f.resultShardings, sh)
				if r.peek().text == "," {
					r.next()
				}
			}
			r.next()
		} else {
			s, err := r.typ()
			if err != nil {
				return err
			}
			f.results = append(f.results, s)
		}
	}
	if r.peek().text == "attributes" {
		r.next()
		r.skipBalanced()
	}
	if err := r.expect("{"); err != nil {
		return err
	}
	stmts, err := r.block()
	if err != nil {
		return err
	}
	f.stmts = stmts
	if r.funcs[f.name] != nil {
		return r.errAt(name, "function @%s is defined twice", f.name)
	}
	r.funcs[f.name] = f
	r.order = append(r.order, f)
	return nil
}

// block reads statements up to the closing brace.
func (r *reader) block() ([]*stmt, error) {
	var out []*stmt
	for {
		t := r.peek()
		if t.text == "}" {
			r.next()
			return out, nil
		}
		if t.kind == tEOF {
			return nil, r.errAt(t, "unexpected end of file in a block")
		}
		s, err := r.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

// statement reads "results = op ..." up to its end: the end of its line
// at bracket depth 0, regions included.
func (r *reader) statement() (*stmt, error) {
	s := &stmt{}
	first := r.peek()
	s.line, s.col = first.line, first.col
	if first.kind == tValue {
		for {
			v := r.next()
			if v.kind != tValue {
				return nil, r.errAt(v, "expected a result %%name")
			}
			n := 1
			if r.peek().text == ":" {
				r.next()
				c := r.next()
				k, err := strconv.Atoi(c.text)
				if err != nil {
					return nil, r.errAt(c, "expected a result count")
				}
				n = k
			}
			s.results = append(s.results, v.text)
			s.counts = append(s.counts, n)
			if r.peek().text != "," {
				break
			}
			r.next()
		}
		if err := r.expect("="); err != nil {
			return nil, err
		}
	}
	op := r.next()
	s.op = op.text
	depth := 0
	typed := false // a type section (":" outside brackets) has begun
	line := op.line
	for {
		t := r.peek()
		if t.kind == tEOF {
			break
		}
		// A statement ends with its line unless the line ends with a
		// comma or "=" (JAX's multi-line dot_general, attributes one per
		// line), the next line starts its type (": (...) -> ..."), or it
		// has results and no type yet (a convolution's operands, dims,
		// window and attributes on lines of their own).
		if depth == 0 && t.line != line && t.text != "(" && t.text != "{" && t.text != ":" && !continued(s.toks) &&
			(len(s.results) == 0 || typed) {
			break
		}
		if depth == 0 && t.text == "}" {
			break
		}
		// A region: ({ ^bb0(args): stmts }) or { stmts }.
		if t.text == "{" && depth <= 1 && r.regionStart() {
			r.next()
			args, body, err := r.region()
			if err != nil {
				return nil, err
			}
			s.regions = append(s.regions, body)
			s.rargs = append(s.rargs, args)
			line = r.toks[r.p-1].line
			continue
		}
		switch t.text {
		case "(", "[", "{", "<":
			depth++
		case ")", "]", "}", ">":
			depth--
		case ":":
			typed = typed || depth == 0
		}
		s.toks = append(s.toks, r.next())
		line = t.line
	}
	// stablehlo.reduce's pretty form with a region: reducer(%a: t, %b: t)
	// (%c: t, %d: t) { ... } on the line after the header.
	if s.op == "stablehlo.reduce" && r.peek().text == "reducer" {
		r.next()
		var args []arg
		for r.peek().text == "(" {
			r.next()
			for r.until(")") {
				a := r.next()
				if err := r.expect(":"); err != nil {
					return nil, err
				}
				t, err := r.typ()
				if err != nil {
					return nil, err
				}
				args = append(args, arg{name: a.text, shape: t})
				if r.peek().text == "," {
					r.next()
				}
			}
			r.next()
		}
		if err := r.expect("{"); err != nil {
			return nil, err
		}
		body, err := r.block()
		if err != nil {
			return nil, err
		}
		s.regions = append(s.regions, body)
		s.rargs = append(s.rargs, args)
		s.paired = true
	}
	// stablehlo.while's pretty form: cond { ... } do { ... } on the lines
	// after the header.
	if s.op == "stablehlo.while" {
		for _, kw := range []string{"cond", "do"} {
			if r.peek().text != kw {
				return nil, r.errAt(r.peek(), "expected %q region of stablehlo.while", kw)
			}
			r.next()
			if err := r.expect("{"); err != nil {
				return nil, err
			}
			body, err := r.block()
			if err != nil {
				return nil, err
			}
			s.regions = append(s.regions, body)
			s.rargs = append(s.rargs, nil)
		}
	}
	if s.src = r.locs.after(r.p - 1); s.src.Known() {
		r.locs.sources[hlo.Pos{Line: s.line, Col: s.col}] = s.src
	}
	return s, nil
}

// continued reports whether a statement's tokens so far end with a comma
// or "=", so that it goes on on the next line.
func continued(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	last := toks[len(toks)-1].text
	return last == "," || last == "="
}

// regionStart reports whether the "{" at the cursor opens a region (a
// block of statements) rather than an attribute dictionary.
func (r *reader) regionStart() bool {
	if r.p+1 >= len(r.toks) {
		return false
	}
	n := r.toks[r.p+1]
	return n.kind == tValue || strings.HasPrefix(n.text, "^") || strings.HasPrefix(n.text, "stablehlo.") || strings.HasPrefix(n.text, "sdy.")
}

func (r *reader) region() ([]arg, []*stmt, error) {
	var args []arg
	if t := r.peek(); strings.HasPrefix(t.text, "^") {
		r.next()
		if r.peek().text == "(" {
			r.next()
			for r.until(")") {
				a := r.next()
				if err := r.expect(":"); err != nil {
					return nil, nil, err
				}
				s, err := r.typ()
				if err != nil {
					return nil, nil, err
				}
				args = append(args, arg{name: a.text, shape: s})
				if r.peek().text == "," {
					r.next()
				}
			}
			r.next()
		}
		if err := r.expect(":"); err != nil {
			return nil, nil, err
		}
	}
	body, err := r.block()
	return args, body, err
}

// typ reads a type at the cursor and returns its HLO shape text.
func (r *reader) typ() (string, error) {
	t := r.next()
	switch {
	case t.kind == tEOF:
		return "", r.errAt(t, "unexpected end of file: expected a type")
	case t.text == "tensor":
		if err := r.expect("<"); err != nil {
			return "", err
		}
		var b strings.Builder
		depth := 1
		for {
			u := r.next()
			if u.text == "<" {
				depth++
			}
			if u.text == ">" {
				depth--
				if depth == 0 {
					break
				}
			}
			if u.kind == tEOF {
				return "", r.errAt(t, "unterminated tensor type")
			}
			b.WriteString(u.text)
		}
		return tensorShape(b.String(), t, r)
	case t.text == "tuple":
		if err := r.expect("<"); err != nil {
			return "", err
		}
		var parts []string
		for r.until(">") {
			s, err := r.typ()
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
			if r.peek().text == "," {
				r.next()
			}
		}
		r.next()
		return "(" + strings.Join(parts, ", ") + ")", nil
	case t.text == "!stablehlo.token":
		return "token[]", nil
	}
	if e, ok := elemType(t.text); ok { // a scalar element type (region arguments of some printers)
		return e + "[]", nil
	}
	return "", r.errAt(t, "unsupported type %q", t.text)
}

// tensorShape converts "20x20xf32" (or "f32", "2x?xf32") to HLO.
func tensorShape(s string, at token, r *reader) (string, error) {
	if i := strings.Index(s, ","); i >= 0 {
		s = s[:i] // an encoding (#stablehlo.bounds<...>): the static shape stands
	}
	if i := strings.Index(s, "complex<"); i >= 0 {
		// complex<f32> and complex<f64> are c64 and c128; the part is
		// read as the element type would be.
		part := strings.TrimSuffix(s[i+len("complex<"):], ">")
		c := map[string]string{"f32": "c64", "f64": "c128"}[part]
		if c == "" {
			return "", r.errAt(at, "complex<%s> is not supported (complex<f32> and complex<f64> are)", part)
		}
		s = s[:i] + c
	}
	if strings.Contains(s, "!quant") || strings.Contains(s, "quant.") {
		return "", r.errAt(at, "quantized element types are not supported (tensor<%s>)", s)
	}
	parts := strings.Split(s, "x")
	elem := parts[len(parts)-1]
	dims := parts[:len(parts)-1]
	e, ok := elemType(elem)
	if elem == hlo.C64 || elem == hlo.C128 {
		e, ok = elem, true
	}
	if !ok {
		return "", r.errAt(at, "unsupported element type %q", elem)
	}
	for _, d := range dims {
		if d == "?" {
			return "", r.errAt(at, "dynamic dimensions (?) are not supported: tensor<%s>", s)
		}
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return "", r.errAt(at, "bad dimension %q in tensor<%s>", d, s)
		}
		// HLO's dimensions are sizes: a negative one would reach the
		// translated HLO's parser as an internal error.
		if n < 0 {
			return "", r.errAt(at, "negative dimension %d in tensor<%s>", n, s)
		}
	}
	return e + "[" + strings.Join(dims, ",") + "]", nil
}

func elemType(s string) (string, bool) {
	switch s {
	case "i1":
		return "pred", true
	case "i8", "si8":
		return "s8", true
	case "i16", "si16":
		return "s16", true
	case "i32", "si32":
		return "s32", true
	case "i64", "si64":
		return "s64", true
	case "ui8":
		return "u8", true
	case "ui16":
		return "u16", true
	case "ui32":
		return "u32", true
	case "ui64":
		return "u64", true
	case "f16", "bf16", "f32", "f64":
		return s, true
	case "i4":
		return "s4", true
	case "ui4":
		return "u4", true
	case "f8E4M3FN":
		return "f8e4m3fn", true
	case "f8E5M2":
		return "f8e5m2", true
	}
	return "", false
}

// elemOf returns the element type of an HLO shape text.
func elemOf(shape string) string {
	if i := strings.IndexByte(shape, '['); i >= 0 {
		return shape[:i]
	}
	return shape
}

func dimsOf(shape string) []int64 {
	i := strings.IndexByte(shape, '[')
	if i < 0 {
		return nil
	}
	body := strings.TrimSuffix(shape[i+1:], "]")
	if body == "" {
		return nil
	}
	var out []int64
	for _, p := range strings.Split(body, ",") {
		n, _ := strconv.ParseInt(p, 10, 64)
		out = append(out, n)
	}
	return out
}

// tokenError is an error at a token of the payload, positioned there by
// the caller rather than at the operation.
type tokenError struct {
	tok token
	msg string
}

func (e *tokenError) Error() string { return e.msg }

// denseLiteral converts a dense<...> payload (the tokens inside the angle
// brackets) to an HLO literal for shape.
func denseLiteral(toks []token, shape string) (string, error) {
	elem := elemOf(shape)
	dims := dimsOf(shape)
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	var vals []string
	if hlo.IsComplex(elem) {
		return complexDense(toks, elem, dims, n)
	}
	if len(toks) == 1 && toks[0].kind == tString && strings.HasPrefix(toks[0].text, "0x") {
		b, err := hex.DecodeString(toks[0].text[2:])
		if err != nil {
			return "", fmt.Errorf("bad hex constant: %v", err)
		}
		size := elemBytes(elem)
		if size == 0 {
			return "", fmt.Errorf("hex constants of %s are not supported", elem)
		}
		count := int64(len(b)) / int64(size)
		if count != n && count != 1 {
			return "", fmt.Errorf("hex constant has %d elements, the type %d", count, n)
		}
		for k := int64(0); k < count; k++ {
			vals = append(vals, fromBytes(elem, b[k*int64(size):(k+1)*int64(size)]))
		}
	} else {
		for _, t := range toks {
			switch {
			case t.kind == tNumber:
				v := numText(elem, t.text)
				if err := hlo.CheckLiteralValue(v, elem); err != nil {
					return "", &tokenError{t, err.Error()}
				}
				vals = append(vals, v)
			case t.text == "true" || t.text == "false":
				vals = append(vals, t.text)
			case t.text == "inf" || t.text == "nan":
				vals = append(vals, t.text)
			case t.text == "(":
				return "", fmt.Errorf("complex constants are not supported")
			}
		}
	}
	return splatNest(vals, dims, n)
}

func nest(vals []string, dims []int64) string {
	if len(dims) == 0 {
		return vals[0]
	}
	if len(dims) == 1 {
		return "{" + strings.Join(vals, ", ") + "}"
	}
	step := int64(len(vals)) / max(dims[0], 1)
	var parts []string
	for i := int64(0); i < dims[0]; i++ {
		parts = append(parts, nest(vals[i*step:(i+1)*step], dims[1:]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func elemBytes(e string) int {
	switch e {
	case "pred", "s8", "u8", "f8e4m3fn", "f8e5m2":
		return 1
	case "s16", "u16", "f16", "bf16":
		return 2
	case "s32", "u32", "f32":
		return 4
	case "s64", "u64", "f64":
		return 8
	}
	return 0
}

// fromBytes decodes one little-endian element.
func fromBytes(e string, b []byte) string {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	switch e {
	case "pred":
		if u != 0 {
			return "true"
		}
		return "false"
	case "s8":
		return strconv.FormatInt(int64(int8(u)), 10)
	case "s16":
		return strconv.FormatInt(int64(int16(u)), 10)
	case "s32":
		return strconv.FormatInt(int64(int32(u)), 10)
	case "s64":
		return strconv.FormatInt(int64(u), 10)
	case "u8", "u16", "u32", "u64":
		return strconv.FormatUint(u, 10)
	case "f32":
		return fltText(float64(math.Float32frombits(uint32(u))))
	case "f64":
		return fltText(math.Float64frombits(u))
	case "bf16":
		return fltText(float64(math.Float32frombits(uint32(u) << 16)))
	case "f16":
		return fltText(half(uint16(u)))
	}
	return "0"
}

func half(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * frac / 1024 * math.Pow(2, -14)
	case 31:
		if frac == 0 {
			return sign * math.Inf(1)
		}
		return math.Copysign(math.NaN(), sign)
	}
	return sign * (1 + frac/1024) * math.Pow(2, float64(exp-15))
}

func fltText(f float64) string {
	switch {
	case math.IsNaN(f) && math.Signbit(f):
		return "-nan" // the sign orders it first under TOTALORDER
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func numText(elem, s string) string {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "-0x") {
		// a float written as its bits
		u, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "0x"), 16, 64)
		if err == nil {
			b := make([]byte, 8)
			for i := range b {
				b[i] = byte(u >> (8 * i))
			}
			return fromBytes(elem, b[:max(elemBytes(elem), 1)])
		}
	}
	return s
}

// complexDense converts a complex dense<...> payload: (re,im) pairs, a
// splat pair, or hex bytes (each element its real then imaginary part,
// little-endian), to an HLO literal of "(re, im)" pairs.
func complexDense(toks []token, elem string, dims []int64, n int64) (string, error) {
	part := hlo.ComplexPart(elem)
	var vals []string
	if len(toks) == 1 && toks[0].kind == tString && strings.HasPrefix(toks[0].text, "0x") {
		b, err := hex.DecodeString(toks[0].text[2:])
		if err != nil {
			return "", fmt.Errorf("bad hex constant: %v", err)
		}
		size := 2 * elemBytes(part)
		count := int64(len(b)) / int64(size)
		if int64(len(b))%int64(size) != 0 || count != n && count != 1 {
			return "", fmt.Errorf("hex constant has %d bytes, the type %d elements of %d", len(b), n, size)
		}
		for k := int64(0); k < count; k++ {
			e := b[k*int64(size):]
			h := size / 2
			vals = append(vals, "("+fromBytes(part, e[:h])+", "+fromBytes(part, e[h:size])+")")
		}
	} else {
		var nums []string
		for _, t := range toks {
			switch {
			case t.kind == tNumber:
				nums = append(nums, numText(part, t.text))
			case t.text == "inf" || t.text == "nan":
				nums = append(nums, t.text)
			case t.text == ")":
				if len(nums) != 2 {
					return "", fmt.Errorf("a complex constant's element is (real, imaginary), not %d numbers", len(nums))
				}
				vals = append(vals, "("+nums[0]+", "+nums[1]+")")
				nums = nil
			}
		}
		if len(nums) > 0 {
			return "", fmt.Errorf("a complex constant's elements are (real, imaginary) pairs")
		}
	}
	return splatNest(vals, dims, n)
}

// splatNest nests a constant's values (one value: a splat of n) as an HLO
// literal of dims.
func splatNest(vals []string, dims []int64, n int64) (string, error) {
	if len(vals) == 1 && n != 1 {
		// A splat stays one value: HLO's literal of one value for the
		// whole array. Written out, dense<1.0> : tensor<100000x100000xf32>
		// took the reader past the host's memory before any budget could
		// refuse it; as one value, the evaluator's and the compiler's
		// budgets see its shape.
		return vals[0], nil
	}
	if int64(len(vals)) != n {
		return "", fmt.Errorf("the constant has %d values for %d elements", len(vals), n)
	}
	return nest(vals, dims), nil
}
