package stablehlo

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// unary and binary elementwise ops: StableHLO name -> HLO opcode.
var elementwise = map[string]string{
	"abs": "abs", "ceil": "ceil", "cosine": "cosine", "exponential": "exponential", "exponential_minus_one": "exponential-minus-one",
	"floor": "floor", "is_finite": "is-finite", "log": "log", "log_plus_one": "log-plus-one", "logistic": "logistic",
	"negate": "negate", "not": "not", "popcnt": "popcnt", "round_nearest_afz": "round-nearest-afz", "round_nearest_even": "round-nearest-even",
	"rsqrt": "rsqrt", "sign": "sign", "sine": "sine", "sqrt": "sqrt", "cbrt": "cbrt", "tan": "tan", "tanh": "tanh",
	"count_leading_zeros": "clz", "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
	"remainder": "remainder", "maximum": "maximum", "minimum": "minimum", "power": "power", "atan2": "atan2",
	"and": "and", "or": "or", "xor": "xor", "shift_left": "shift-left", "shift_right_arithmetic": "shift-right-arithmetic",
	"shift_right_logical": "shift-right-logical", "select": "select", "clamp": "clamp", "convert": "convert",
	"bitcast_convert": "bitcast-convert", "reshape": "reshape", "optimization_barrier": "opt-barrier",
}

// builder translates functions into HLO text, one instruction a line,
// remembering each line's MLIR position.
type builder struct {
	r     *reader
	lines []string
	pos   []hlo.Pos // per generated line (zero: none)
	// stash holds the buffers of enclosing computations while a region's
	// computation is written; done holds finished region computations.
	stash  []buffer
	done   []buffer
	n      int
	checks []Check
	extra  []string // reducer computations
	reds   map[string]string
	// comps counts the uses of each generated computation name: SSA
	// names repeat from function to function, HLO computation names are
	// module-wide (compName makes them unique).
	comps map[string]int
}

// markRoot makes the line of the computation being written that defines
// name its ROOT, if there is one.
func (b *builder) markRoot(name string) bool {
	for i := len(b.lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(b.lines[i], "  "+name+" = ") {
			b.lines[i] = "  ROOT " + strings.TrimPrefix(b.lines[i], "  ")
			return true
		}
	}
	return false
}

// compUnique returns name, or name.N when it was given out before.
func (b *builder) compUnique(name string) string {
	if b.comps == nil {
		b.comps = map[string]int{}
	}
	n := b.comps[name]
	b.comps[name]++
	if n == 0 {
		return name
	}
	return fmt.Sprintf("%s.%d", name, n)
}

func (r *reader) build() (*Result, error) {
	b := &builder{r: r, reds: map[string]string{}}
	header := "HloModule stablehlo"
	if len(r.meshes) > 0 {
		// A Shardy module: Pulse's partitioner makes the partitions.
		header += ", " + r.meshesAttr()
	} else {
		if r.replicas > 1 {
			header += fmt.Sprintf(", replica_count=%d", r.replicas)
		}
		if r.partitions > 1 {
			header += fmt.Sprintf(", num_partitions=%d", r.partitions)
		}
	}
	b.emitLine(header, hlo.Pos{})
	var entry *fn
	for _, f := range r.order {
		if f.name == "main" || entry == nil && f.public {
			entry = f
		}
	}
	if entry == nil {
		entry = r.order[0]
	}
	var entryOutputs int
	// Callees first, the entry last: the HLO text defines what it calls.
	var order []*fn
	for _, f := range r.order {
		if f != entry {
			order = append(order, f)
		}
	}
	order = append(order, entry)
	for _, f := range order {
		outs, err := b.function(f, f == entry)
		if err != nil {
			return nil, err
		}
		if f == entry {
			entryOutputs = outs
		}
	}
	for _, d := range b.done {
		b.lines = append(b.lines, d.lines...)
		b.pos = append(b.pos, d.pos...)
	}
	text := strings.Join(append(b.lines, b.extra...), "\n") + "\n"
	m, err := hlo.Parse(r.file, text)
	// PULSE_DEBUG_STABLEHLO=FILE writes the translation there, for a bug
	// report (docs/hlo.md).
	if f := os.Getenv("PULSE_DEBUG_STABLEHLO"); f != "" {
		if werr := os.WriteFile(f, []byte(text), 0o644); werr != nil {
			return nil, fmt.Errorf("%s: PULSE_DEBUG_STABLEHLO: %v", r.file, werr)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: internal error: the translated HLO does not parse (please report): %v", r.file, err)
	}
	// Point every instruction at its MLIR operation.
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Pos.Line-1 < len(b.pos) && b.pos[in.Pos.Line-1].Line > 0 {
				in.Pos = b.pos[in.Pos.Line-1]
			}
			// The operation's debug location, as XLA's translation
			// writes it: the instruction's metadata.
			if src, ok := r.locs.sourceAt(in.Pos); ok {
				if _, has := in.Attr("metadata"); !has {
					in.Attrs = append(in.Attrs, hlo.Attr{Pos: in.Pos, Key: "metadata", Value: hlo.MetadataText(src)})
				}
			}
		}
	}
	return &Result{File: r.file, Module: m, Checks: b.checks, Outputs: entryOutputs}, nil
}

type buffer struct {
	lines []string
	pos   []hlo.Pos
}

// push starts a new computation buffer (a region); pop finishes it.
func (b *builder) push() {
	b.stash = append(b.stash, buffer{b.lines, b.pos})
	b.lines, b.pos = nil, nil
}

func (b *builder) pop() {
	b.done = append(b.done, buffer{b.lines, b.pos})
	top := b.stash[len(b.stash)-1]
	b.stash = b.stash[:len(b.stash)-1]
	b.lines, b.pos = top.lines, top.pos
}

func (b *builder) emitLine(s string, p hlo.Pos) {
	b.lines = append(b.lines, s)
	b.pos = append(b.pos, p)
}

func hloName(v string) string {
	v = strings.TrimPrefix(v, "%")
	v = strings.Trim(v, `"`)
	var sb strings.Builder
	sb.WriteString("v.")
	for _, c := range v {
		if c == '#' {
			sb.WriteString(".r")
			continue
		}
		if c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			sb.WriteRune(c)
		} else {
			sb.WriteString("_")
		}
	}
	return sb.String()
}

type scope struct {
	shapes map[string]string // HLO name -> shape
}

// function emits one computation; it returns the number of results.
func (b *builder) function(f *fn, entry bool) (int, error) {
	head := ""
	if entry {
		head = "ENTRY "
	}
	b.emitLine(fmt.Sprintf("%s%s {", head, compName(f.name)), hlo.Pos{Line: f.line, Col: 1})
	sc := &scope{shapes: map[string]string{}}
	for i, a := range f.args {
		name := hloName(a.name)
		sc.shapes[name] = a.shape
		attrs := ""
		if a.sharding != "" && entry {
			attrs = ", frontend_attributes={xla.sdy.sharding=" + quoted(a.sharding) + "}"
		}
		b.emitLine(fmt.Sprintf("  %s = %s parameter(%d)%s", name, a.shape, i, attrs), hlo.Pos{Line: f.line, Col: 1})
	}
	outs := 0
	var checkOuts []string
	for _, s := range f.stmts {
		p := hlo.Pos{Line: s.line, Col: s.col}
		switch s.op {
		case "return", "func.return":
			vals := values(s.toks)
			for _, v := range vals {
				if _, ok := sc.shapes[hloName(v)]; !ok {
					return 0, b.r.errAt(s.toks[0], "%s is not defined", v)
				}
			}
			// The values returned must be the function's declared results:
			// a return of tensor<2xf32> from a function of tensor<3xf32>
			// was accepted, and ran as the other function.
			if f.results != nil {
				at := token{line: s.line, col: s.col}
				if len(s.toks) > 0 {
					at = s.toks[0]
				}
				if len(vals) != len(f.results) {
					return 0, b.r.errAt(at, "return gives %d values; @%s declares %d results", len(vals), f.name, len(f.results))
				}
				for i, v := range vals {
					if got := sc.shapes[hloName(v)]; got != f.results[i] {
						return 0, b.r.errAt(at, "return value %d (%s) is %s; @%s declares %s", i, v, got, f.name, f.results[i])
					}
				}
			}
			if entry {
				// A result's sharding: Shardy's FuncResultSharding on
				// the value returned, as JAX's HLO has it.
				for i, v := range vals {
					if i < len(f.resultShardings) && f.resultShardings[i] != "" {
						n := fmt.Sprintf("%s.result%d", hloName(v), i)
						b.emitLine(fmt.Sprintf("  %s = %s custom-call(%s), custom_call_target=\"xla.sdy.FuncResultSharding\", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.sharding=%s}",
							n, sc.shapes[hloName(v)], hloName(v), quoted(perValue(f.resultShardings[i]))), p)
						sc.shapes[n] = sc.shapes[hloName(v)]
						vals[i] = "%" + strings.TrimPrefix(n, "v.")
					}
				}
			}
			all := append(append([]string(nil), vals...), checkOuts...)
			outs = len(vals)
			if len(all) == 1 && !entry {
				b.emitLine(fmt.Sprintf("  ROOT %s.ret = %s copy(%s)", compName(f.name), sc.shapes[hloName(all[0])], hloName(all[0])), p)
			} else {
				var shapes, names []string
				for _, v := range all {
					shapes = append(shapes, sc.shapes[hloName(v)])
					names = append(names, hloName(v))
				}
				b.emitLine(fmt.Sprintf("  ROOT %s.ret = (%s) tuple(%s)", compName(f.name), strings.Join(shapes, ", "), strings.Join(names, ", ")), p)
			}
			b.emitLine("}", hlo.Pos{})
			return outs, nil
		case "check.expect_eq", "check.expect_almost_eq", "check.expect_close", "check.expect_eq_const", "check.expect_almost_eq_const":
			// The check dialect's own ops (interpreter tests):
			// check.expect_eq %a, %b : t and check.expect_eq_const %a, dense<...> : t.
			if !entry {
				return 0, b.r.errAt(token{line: s.line, col: s.col}, "check ops outside the entry function are not supported")
			}
			c := Check{Kind: strings.TrimPrefix(s.op, "check."), Line: s.line, MaxULP: 3}
			pre, typ := split(s.toks)
			vals := values(pre)
			if strings.HasSuffix(c.Kind, "_const") {
				if len(vals) != 1 {
					return 0, b.r.errAt(token{line: s.line, col: s.col}, "%s takes a value and a constant", s.op)
				}
				_, outs, err := b.types(typ)
				if err != nil || len(outs) == 0 {
					return 0, b.r.errAt(token{line: s.line, col: s.col}, "%s: bad type", s.op)
				}
				name := fmt.Sprintf("%%chk%d", len(b.checks))
				cst := &stmt{results: []string{name}, counts: []int{1}, op: "stablehlo.constant", line: s.line, col: s.col}
				for i, t := range pre {
					if t.text == "dense" {
						cst.toks = append(append([]token(nil), pre[i:]...), token{kind: tPunct, text: ":"})
						cst.toks = append(cst.toks, typ...)
						break
					}
				}
				if err := b.op(cst, sc); err != nil {
					return 0, err
				}
				vals = append(vals, name)
			}
			for range vals {
				c.Outputs = append(c.Outputs, 0)
			}
			for i, v := range vals {
				if _, ok := sc.shapes[hloName(v)]; !ok {
					return 0, b.r.errAt(token{line: s.line, col: s.col}, "%s is not defined", v)
				}
				checkOuts = append(checkOuts, v)
				c.Outputs[i] = len(checkOuts) - 1
			}
			if u := attrNumber(s.toks, "max_ulp_difference"); u >= 0 {
				c.MaxULP = u
			}
			b.checks = append(b.checks, c)
			continue
		case "stablehlo.custom_call":
			if len(s.toks) > 0 && strings.HasPrefix(s.toks[0].text, "@check.") {
				if !entry {
					return 0, b.r.errAt(s.toks[0], "check calls outside the entry function are not supported")
				}
				c := Check{Kind: strings.TrimPrefix(s.toks[0].text, "@check."), Line: s.line, MaxULP: 3}
				for _, v := range values(s.toks) {
					c.Outputs = append(c.Outputs, -1)
					checkOuts = append(checkOuts, v)
				}
				for i := range c.Outputs {
					c.Outputs[i] = len(checkOuts) - len(c.Outputs) + i
				}
				if u := attrNumber(s.toks, "max_ulp_difference"); u >= 0 {
					c.MaxULP = u
				}
				b.checks = append(b.checks, c)
				continue
			}
		}
		if err := b.op(s, sc); err != nil {
			return 0, err
		}
	}
	return 0, b.r.errAt(token{line: f.line, col: 1}, "function @%s has no return", f.name)
}

// values lists the %values of tokens before the type section.
func values(toks []token) []string {
	var out []string
	depth := 0
	for i, t := range toks {
		switch t.text {
		case "(", "[", "{", "<":
			depth++
		case ")", "]", "}", ">":
			depth--
		}
		if t.text == ":" && depth == 0 && i > 0 {
			break
		}
		if t.kind == tValue && depth <= 1 {
			out = append(out, t.text)
		}
	}
	return out
}

func attrNumber(toks []token, key string) int64 {
	for i, t := range toks {
		if t.text == key && i+2 < len(toks) && toks[i+1].text == "=" {
			n, err := strconv.ParseInt(toks[i+2].text, 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// split returns the tokens before the statement's type section and the
// type section (after the last ':' at depth 0).
func split(toks []token) ([]token, []token) {
	depth, at := 0, -1
	for i, t := range toks {
		switch t.text {
		case "(", "[", "{", "<":
			depth++
		case ")", "]", "}", ">":
			depth--
		case ":":
			if depth == 0 {
				at = i
			}
		}
	}
	if at < 0 {
		return toks, nil
	}
	return toks[:at], toks[at+1:]
}

// types parses a type section: "t", "t1, t2" or "(ins) -> outs".
func (b *builder) types(toks []token) (ins, outs []string, err error) {
	end := token{kind: tEOF} // positioned just past the section
	if len(toks) > 0 {
		last := toks[len(toks)-1]
		end.line, end.col = last.line, last.col+len(last.text)
	}
	sub := &reader{file: b.r.file, toks: append(append([]token(nil), toks...), end)}
	list := func() ([]string, error) {
		var out []string
		if sub.peek().text == "(" {
			sub.next()
			for sub.until(")") {
				s, err := sub.typ()
				if err != nil {
					return nil, err
				}
				out = append(out, s)
				if sub.peek().text == "," {
					sub.next()
				}
			}
			sub.next()
			return out, nil
		}
		for {
			s, err := sub.typ()
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			if sub.peek().text != "," || sub.peek().kind == tEOF {
				return out, nil
			}
			sub.next()
		}
	}
	first, err := list()
	if err != nil {
		return nil, nil, err
	}
	if sub.peek().text == "->" {
		sub.next()
		second, err := list()
		return first, second, err
	}
	return first, first, nil
}

// after returns the tokens after "key =" (up to the next top-level comma).
func after(toks []token, key string) []token {
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].text == key && toks[i+1].text == "=" {
			depth := 0
			for j := i + 2; j < len(toks); j++ {
				switch toks[j].text {
				case "(", "[", "{", "<":
					depth++
				case ")", "]", "}", ">":
					if depth--; depth < 0 {
						return toks[i+2 : j] // the end of an enclosing group
					}
				case ",":
					if depth == 0 {
						return toks[i+2 : j]
					}
				}
			}
			return toks[i+2:]
		}
	}
	return nil
}

// ints reads "[0, 1]" (or array<i64: 0, 1>) tokens as "{0,1}".
func ints(toks []token) string {
	return "{" + strings.Join(numbers(toks), ",") + "}"
}

func (b *builder) op(s *stmt, sc *scope) error {
	// An SSA value is assigned once (MLIR refuses a redefinition); two
	// with one name would be two HLO instructions with one name.
	for _, r := range s.results {
		if _, ok := sc.shapes[hloName(r)]; ok {
			return b.r.errAt(token{line: s.line, col: s.col}, "%s is defined twice: a value is assigned once", r)
		}
	}
	if handled, err := b.shardy(s, sc); handled {
		return err
	}
	if err := b.op1(s, sc); err != nil {
		return err
	}
	b.resultSharding(s)
	return nil
}

func (b *builder) op1(s *stmt, sc *scope) error {
	p := hlo.Pos{Line: s.line, Col: s.col}
	name := strings.TrimPrefix(s.op, "stablehlo.")
	pre, typ := split(s.toks)
	ins, outs, err := b.types(typ)
	if err != nil && s.op != "call" && s.op != "func.call" {
		return err
	}
	if name == "while" {
		if len(s.results) == 0 {
			return b.r.errAt(token{line: s.line, col: s.col}, "stablehlo.while without results")
		}
		return b.while(s, sc, hloName(s.results[0]), outs)
	}
	ops := values(pre)
	for _, o := range ops {
		if _, ok := sc.shapes[hloName(o)]; !ok {
			return b.r.errAt(s.toks[0], "%s is not defined before its use", o)
		}
	}
	if len(s.results) == 0 {
		return b.r.errAt(token{line: s.line, col: s.col}, "unsupported: %s without a result", s.op)
	}
	res := hloName(s.results[0])
	out := ""
	if len(outs) > 0 {
		out = outs[len(outs)-1]
	}
	args := func(names []string) string {
		var h []string
		for _, n := range names {
			h = append(h, hloName(n))
		}
		return strings.Join(h, ", ")
	}
	line := ""
	_ = ins
	switch {
	case s.op == "call" || s.op == "func.call":
		callee := ""
		for _, t := range s.toks {
			if t.kind == tSymbol {
				callee = strings.Trim(t.text[1:], `"`)
				break
			}
		}
		if b.r.funcs[callee] == nil {
			return b.r.errAt(s.toks[0], "call of an undefined function @%s", callee)
		}
		f := b.r.funcs[callee]
		shape := ""
		if len(f.results) == 1 {
			shape = f.results[0]
			// one result: the callee's root is its value (a copy)
			line = fmt.Sprintf("%s = %s call(%s), to_apply=%s", res, shape, args(ops), compName(callee))
		} else {
			shape = "(" + strings.Join(f.results, ", ") + ")"
			line = fmt.Sprintf("%s = %s call(%s), to_apply=%s", res, shape, args(ops), compName(callee))
		}
		b.emitLine("  "+line, p)
		sc.shapes[res] = shape
		if len(f.results) > 1 {
			for i, rs := range f.results {
				g := fmt.Sprintf("%s.r%d", res, i)
				b.emitLine(fmt.Sprintf("  %s = %s get-tuple-element(%s), index=%d", g, rs, res, i), p)
				sc.shapes[g] = rs
			}
		}
		return nil
	case name == "constant":
		var payload []token
		for i, t := range pre {
			if t.text == "dense" && i+1 < len(pre) && pre[i+1].text == "<" {
				depth := 0
				for j := i + 1; j < len(pre); j++ {
					if pre[j].text == "<" {
						depth++
					}
					if pre[j].text == ">" {
						depth--
						if depth == 0 {
							payload = pre[i+2 : j]
							break
						}
					}
				}
			}
		}
		if payload == nil {
			return b.r.errAt(s.toks[0], "unsupported constant form (only dense<...>)")
		}
		lit, err := denseLiteral(payload, out)
		if te, ok := err.(*tokenError); ok {
			return b.r.errAt(te.tok, "%s", te.msg)
		}
		if err != nil {
			return b.r.errAt(s.toks[0], "%v", err)
		}
		line = fmt.Sprintf("%s = %s constant(%s)", res, out, lit)
	case name == "compare":
		dir, ct := "", ""
		for _, t := range pre {
			switch t.text {
			case "EQ", "NE", "LT", "LE", "GT", "GE":
				dir = t.text
			case "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED":
				ct = t.text
			}
		}
		if dir == "" {
			if d := after(pre, "comparison_direction"); len(d) > 0 {
				dir = strings.TrimPrefix(d[len(d)-1].text, "#stablehlo")
			}
		}
		line = fmt.Sprintf("%s = %s compare(%s), direction=%s", res, out, args(ops), dir)
		if ct == "TOTALORDER" {
			line += ", type=TOTALORDER"
		}
	case name == "broadcast_in_dim":
		line = fmt.Sprintf("%s = %s broadcast(%s), dimensions=%s", res, out, args(ops), ints(after(pre, "dims")))
	case name == "transpose":
		line = fmt.Sprintf("%s = %s transpose(%s), dimensions=%s", res, out, args(ops), ints(after(pre, "dims")))
	case name == "reverse":
		line = fmt.Sprintf("%s = %s reverse(%s), dimensions=%s", res, out, args(ops), ints(after(pre, "dims")))
	case name == "iota":
		line = fmt.Sprintf("%s = %s iota(), iota_dimension=%s", res, out, strings.Trim(ints(after(pre, "dim")), "{}"))
	case name == "concatenate":
		line = fmt.Sprintf("%s = %s concatenate(%s), dimensions={%s}", res, out, args(ops), strings.Trim(ints(after(pre, "dim")), "{}"))
	case name == "slice":
		sl, err := sliceSugar(pre)
		if err != nil {
			return b.r.errAt(s.toks[0], "%v", err)
		}
		line = fmt.Sprintf("%s = %s slice(%s), slice=%s", res, out, args(ops), sl)
	case name == "dot_general":
		bd, cd := after(pre, "batching_dims"), after(pre, "contracting_dims")
		lb, rb := splitX(bd)
		lc, rc := splitX(cd)
		line = fmt.Sprintf("%s = %s dot(%s), lhs_contracting_dims=%s, rhs_contracting_dims=%s", res, out, args(ops), ints(lc), ints(rc))
		if len(bd) > 0 {
			line += fmt.Sprintf(", lhs_batch_dims=%s, rhs_batch_dims=%s", ints(lb), ints(rb))
		}
	case name == "reduce" && len(s.regions) == 1:
		// reduce(%a init: %i), (%b init: %j) across dimensions = [..]
		// reducer(%acc_a: t, %x_a: t) (%acc_b: u, %x_b: u) { ... }
		// The generic form lists the inputs, then the inits.
		n := len(ops) / 2
		inputs, inits := ops[:n], ops[n:]
		if s.paired {
			inputs, inits = nil, nil
			for i := 0; i < n; i++ {
				inputs = append(inputs, ops[2*i])
				inits = append(inits, ops[2*i+1])
			}
		}
		ra := s.rargs[0]
		if len(ra) != 2*n {
			return b.r.errAt(s.toks[0], "reduce: %d reducer arguments for %d operands", len(ra), n)
		}
		params := ra // HLO order: the accumulators, then the elements
		if s.paired {
			params = nil
			for i := 0; i < n; i++ {
				params = append(params, ra[2*i])
			}
			for i := 0; i < n; i++ {
				params = append(params, ra[2*i+1])
			}
		}
		comp, err := b.regionComp(res+".reducer", params, s.regions[0], sc)
		if err != nil {
			return err
		}
		shape := out
		if len(outs) > 1 {
			shape = "(" + strings.Join(outs, ", ") + ")"
		}
		b.emitLine(fmt.Sprintf("  %s.reduce = %s reduce(%s, %s), dimensions=%s, to_apply=%s", res, shape, args(inputs), args(inits), ints(after(pre, "dimensions")), comp), p)
		b.unpack(res, res+".reduce", outs, p, sc, s.results...)
		return nil
	case name == "reduce_window" && len(s.regions) == 1:
		// The operands, then as many init values; the reducer takes the
		// accumulators, then the elements (HLO's order).
		n := len(ops) / 2
		ra := s.rargs[0]
		if n == 0 || len(ops) != 2*n || len(ra) != 2*n {
			return b.r.errAt(s.toks[0], "reduce_window: %d operands and %d reducer arguments; want operands, as many init values and twice as many arguments", len(ops), len(ra))
		}
		comp, err := b.regionComp(res+".reducer", ra, s.regions[0], sc)
		if err != nil {
			return err
		}
		if n == 1 {
			line = fmt.Sprintf("%s = %s reduce-window(%s), window={%s}, to_apply=%s", res, out, args(ops), window(pre, true), comp)
			break
		}
		b.emitLine(fmt.Sprintf("  %s.rw = (%s) reduce-window(%s), window={%s}, to_apply=%s", res, strings.Join(outs, ", "), args(ops), window(pre, true), comp), p)
		b.unpack(res, res+".rw", outs, p, sc, s.results...)
		return nil
	case name == "select_and_scatter" && len(s.regions) == 2:
		sel, err := b.regionComp(res+".select", s.rargs[0], s.regions[0], sc)
		if err != nil {
			return err
		}
		scat, err := b.regionComp(res+".scatter", s.rargs[1], s.regions[1], sc)
		if err != nil {
			return err
		}
		line = fmt.Sprintf("%s = %s select-and-scatter(%s), window={%s}, select=%s, scatter=%s", res, out, args(ops), window(pre, false), sel, scat)
	case name == "scatter" && len(s.regions) == 1:
		if len(ops) != 3 {
			return b.r.errAt(s.toks[0], "unsupported: a variadic scatter")
		}
		comp, err := b.regionComp(res+".update", s.rargs[0], s.regions[0], sc)
		if err != nil {
			return err
		}
		ivd := int64(0)
		if v := intsOf(after(pre, "index_vector_dim")); len(v) == 1 {
			ivd = v[0]
		}
		u, err := b.unbatch(res, hloName(ops[1]), sc.shapes[hloName(ops[1])], ivd, intsOf(after(pre, "scatter_dims_to_operand_dims")),
			intsOf(after(pre, "inserted_window_dims")), intsOf(after(pre, "input_batching_dims")), intsOf(after(pre, "scatter_indices_batching_dims")), p)
		if err != nil {
			return b.r.errAt(s.toks[0], "%v", err)
		}
		line = fmt.Sprintf("%s = %s scatter(%s, %s, %s), update_window_dims=%s, inserted_window_dims=%s, scatter_dims_to_operand_dims=%s, index_vector_dim=%d, to_apply=%s",
			res, out, hloName(ops[0]), u.indices, hloName(ops[2]), ints(after(pre, "update_window_dims")), listText(u.windowed), listText(u.indexMap), u.ivd, comp)
		if flag(pre, "indices_are_sorted") {
			line += ", indices_are_sorted=true"
		}
		if flag(pre, "unique_indices") {
			line += ", unique_indices=true"
		}
	case name == "gather":
		if len(ops) != 2 {
			return b.r.errAt(s.toks[0], "gather takes an operand and indices")
		}
		ivd := int64(0)
		if v := intsOf(after(pre, "index_vector_dim")); len(v) == 1 {
			ivd = v[0]
		}
		u, err := b.unbatch(res, hloName(ops[1]), sc.shapes[hloName(ops[1])], ivd, intsOf(after(pre, "start_index_map")),
			intsOf(after(pre, "collapsed_slice_dims")), intsOf(after(pre, "operand_batching_dims")), intsOf(after(pre, "start_indices_batching_dims")), p)
		if err != nil {
			return b.r.errAt(s.toks[0], "%v", err)
		}
		line = fmt.Sprintf("%s = %s gather(%s, %s), offset_dims=%s, collapsed_slice_dims=%s, start_index_map=%s, index_vector_dim=%d, slice_sizes=%s",
			res, out, hloName(ops[0]), u.indices, ints(after(pre, "offset_dims")), listText(u.windowed), listText(u.indexMap), u.ivd, ints(after(pre, "slice_sizes")))
		if flag(pre, "indices_are_sorted") {
			line += ", indices_are_sorted=true"
		}
	case name == "sort" && len(s.regions) == 1:
		comp, err := b.regionComp(res+".cmp", s.rargs[0], s.regions[0], sc)
		if err != nil {
			return err
		}
		dim := "0"
		if v := numbers(after(pre, "dimension")); len(v) > 0 {
			dim = v[0]
		}
		shape := out
		if len(outs) > 1 {
			shape = "(" + strings.Join(outs, ", ") + ")"
		}
		sl := fmt.Sprintf("%s.sort = %s sort(%s), dimensions={%s}, to_apply=%s", res, shape, args(ops), dim, comp)
		if flag(pre, "is_stable") {
			sl += ", is_stable=true"
		}
		b.emitLine("  "+sl, p)
		b.unpack(res, res+".sort", outs, p, sc, s.results...)
		return nil
	case name == "reduce" && len(s.regions) == 0:
		// stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [1]
		var fn string
		for i, t := range pre {
			if t.text == "applies" && i+1 < len(pre) {
				fn = strings.TrimPrefix(pre[i+1].text, "stablehlo.")
			}
		}
		if len(ops) != 2 {
			return b.r.errAt(s.toks[0], "unsupported: a variadic reduce")
		}
		red, err := b.reducer(fn, elemOf(sc.shapes[hloName(ops[1])]), s)
		if err != nil {
			return err
		}
		line = fmt.Sprintf("%s = %s reduce(%s), dimensions=%s, to_apply=%s", res, out, args(ops), ints(after(pre, "dimensions")), red)
	case strings.HasPrefix(s.op, "chlo."):
		n := strings.TrimPrefix(s.op, "chlo.")
		switch n {
		case "tan", "sinh", "cosh", "asin", "acos", "asinh", "acosh", "atanh", "erf", "lgamma", "digamma", "erfc":
			line = fmt.Sprintf("%s = %s %s(%s)", res, out, n, args(ops))
		case "top_k":
			// As XLA decomposes it: sort (values, iota) descending along
			// the last dimension, stably, and slice the first k.
			if len(outs) != 2 || len(ins) < 1 {
				return b.r.errAt(s.toks[0], "chlo.top_k returns values and indices")
			}
			k := numbers(after(pre, "k"))
			dims := dimsOf(ins[0])
			if len(k) != 1 || len(dims) == 0 {
				return b.r.errAt(s.toks[0], "chlo.top_k needs k and a ranked operand")
			}
			last := len(dims) - 1
			e := elemOf(ins[0])
			idx := "s32" + ins[0][len(e):]
			cmp := b.compUnique(res + ".topk_cmp")
			ct := ""
			if e == "f16" || e == "bf16" || e == "f32" || e == "f64" {
				ct = ", type=TOTALORDER"
			}
			b.extra = append(b.extra, fmt.Sprintf("%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT gt = pred[] compare(a, b), direction=GT%s\n}", cmp, e, e, ct))
			b.emitLine(fmt.Sprintf("  %s.iota = %s iota(), iota_dimension=%d", res, idx, last), p)
			b.emitLine(fmt.Sprintf("  %s.sort = (%s, %s) sort(%s, %s.iota), dimensions={%d}, is_stable=true, to_apply=%s", res, ins[0], idx, args(ops), res, last, cmp), p)
			var sl []string
			for i, d := range dims {
				hi := strconv.FormatInt(d, 10)
				if i == last {
					hi = k[0]
				}
				sl = append(sl, "[0:"+hi+"]")
			}
			b.emitLine(fmt.Sprintf("  %s.sv = %s get-tuple-element(%s.sort), index=0", res, ins[0], res), p)
			b.emitLine(fmt.Sprintf("  %s.si = %s get-tuple-element(%s.sort), index=1", res, idx, res), p)
			b.emitLine(fmt.Sprintf("  %s.vs = %s slice(%s.sv), slice={%s}", res, outs[0], res, strings.Join(sl, ", ")), p)
			b.emitLine(fmt.Sprintf("  %s.is = %s slice(%s.si), slice={%s}", res, outs[1], res, strings.Join(sl, ", ")), p)
			b.emitLine(fmt.Sprintf("  %s.top = (%s, %s) tuple(%s.vs, %s.is)", res, outs[0], outs[1], res, res), p)
			b.unpack(res, res+".top", outs, p, sc, s.results...)
			return nil
		case "square": // x * x (JAX 0.11 writes x**2 so, in norms and variances)
			if len(ops) != 1 {
				return b.r.errAt(s.toks[0], "chlo.square takes one operand")
			}
			line = fmt.Sprintf("%s = %s multiply(%s, %s)", res, out, args(ops), args(ops))
		case "erf_inv":
			line = fmt.Sprintf("%s = %s erf-inv(%s)", res, out, args(ops))
		case "next_after":
			line = fmt.Sprintf("%s = %s next-after(%s)", res, out, args(ops))
		case "bessel_i1e":
			line = fmt.Sprintf("%s = %s bessel-i1e(%s)", res, out, args(ops))
		case "atan": // atan(x) = atan2(x, 1)
			e := elemOf(out)
			b.emitLine(fmt.Sprintf("  %s.one = %s[] constant(1)", res, e), p)
			b.emitLine(fmt.Sprintf("  %s.ones = %s broadcast(%s.one), dimensions={}", res, out, res), p)
			line = fmt.Sprintf("%s = %s atan2(%s, %s.ones)", res, out, args(ops), res)
		default:
			return b.r.errAt(token{line: s.line, col: s.col}, "unsupported operation %s (CHLO ops are read where HLO has the op)", s.op)
		}
	case name == "rng_bit_generator":
		alg := "rng_default"
		for _, t := range pre { // algorithm = THREE_FRY, or #stablehlo<rng_algorithm PHILOX>
			switch t.text {
			case "THREE_FRY":
				alg = "rng_three_fry"
			case "PHILOX":
				alg = "rng_philox"
			}
		}
		if len(outs) != 2 {
			return b.r.errAt(s.toks[0], "rng_bit_generator returns a state and bits")
		}
		b.emitLine(fmt.Sprintf("  %s.rng = (%s) rng-bit-generator(%s), algorithm=%s", res, strings.Join(outs, ", "), args(ops), alg), p)
		b.unpack(res, res+".rng", outs, p, sc, s.results...)
		return nil
	case name == "reduce_precision":
		f := after(pre, "format")
		if len(f) != 1 || !strings.HasPrefix(f[0].text, "e") || !strings.Contains(f[0].text, "m") {
			return b.r.errAt(s.toks[0], "unsupported reduce_precision format")
		}
		em := strings.SplitN(strings.TrimPrefix(f[0].text, "e"), "m", 2)
		line = fmt.Sprintf("%s = %s reduce-precision(%s), exponent_bits=%s, mantissa_bits=%s", res, out, args(ops), em[0], em[1])
	case name == "pad":
		lo, hi, in := numbers(after(pre, "low")), numbers(after(pre, "high")), numbers(after(pre, "interior"))
		var parts []string
		for i := range lo {
			p := lo[i] + "_" + hi[i]
			if i < len(in) && in[i] != "0" {
				p += "_" + in[i]
			}
			parts = append(parts, p)
		}
		line = fmt.Sprintf("%s = %s pad(%s), padding=%s", res, out, args(ops), strings.Join(parts, "x"))
	case name == "convolution":
		l, err := b.convolution(pre, ins, s)
		if err != nil {
			return err
		}
		line = fmt.Sprintf("%s = %s convolution(%s), %s", res, out, args(ops), l)
	case name == "real" || name == "imag" || name == "complex":
		line = fmt.Sprintf("%s = %s %s(%s)", res, out, name, args(ops))
	case name == "fft":
		typ := ""
		for _, t := range pre {
			switch t.text {
			case "FFT", "IFFT", "RFFT", "IRFFT":
				typ = t.text
			}
		}
		length := after(pre, "length")
		if length == nil {
			length = after(pre, "fft_length")
		}
		if typ == "" || length == nil {
			return b.r.errAt(token{line: s.line, col: s.col}, "stablehlo.fft needs a type and a length")
		}
		line = fmt.Sprintf("%s = %s fft(%s), fft_type=%s, fft_length=%s", res, out, args(ops), typ, ints(length))
	case name == "triangular_solve":
		tr := "NO_TRANSPOSE"
		for _, t := range pre {
			if t.text == "TRANSPOSE" || t.text == "ADJOINT" {
				tr = t.text
			}
		}
		bv := func(k string) string {
			if v := after(pre, k); len(v) > 0 && v[0].text == "true" {
				return "true"
			}
			return "false"
		}
		line = fmt.Sprintf("%s = %s triangular-solve(%s), left_side=%s, lower=%s, unit_diagonal=%s, transpose_a=%s",
			res, out, args(ops), bv("left_side"), bv("lower"), bv("unit_diagonal"), tr)
	case name == "replica_id" || name == "partition_id":
		line = fmt.Sprintf("%s = %s %s()", res, out, strings.ReplaceAll(name, "_", "-"))
	case name == "all_reduce" || name == "reduce_scatter" || name == "all_gather" || name == "all_to_all" ||
		name == "collective_permute" || name == "collective_broadcast":
		return b.collective(name, s, sc, pre, ops, outs, res, p)
	case name == "dynamic_slice":
		line = fmt.Sprintf("%s = %s dynamic-slice(%s), dynamic_slice_sizes=%s", res, out, args(ops), ints(after(pre, "sizes")))
	case name == "dynamic_update_slice":
		line = fmt.Sprintf("%s = %s dynamic-update-slice(%s)", res, out, args(ops))
	case name == "optimization_barrier" && len(ops) > 1:
		// Several values through one barrier (%r:N, used as %r#i): HLO's
		// opt-barrier of their tuple.
		var shapes []string
		for _, o := range ops {
			shapes = append(shapes, sc.shapes[hloName(o)])
		}
		tuple := "(" + strings.Join(shapes, ", ") + ")"
		b.emitLine(fmt.Sprintf("  %s.t = %s tuple(%s)", res, tuple, args(ops)), p)
		b.emitLine(fmt.Sprintf("  %s.ob = %s opt-barrier(%s.t)", res, tuple, res), p)
		b.unpack(res, res+".ob", shapes, p, sc, s.results...)
		return nil
	default:
		h, ok := elementwise[name]
		if !ok || !strings.HasPrefix(s.op, "stablehlo.") {
			return b.r.errAt(token{line: s.line, col: s.col}, "unsupported operation %s", s.op)
		}
		line = fmt.Sprintf("%s = %s %s(%s)", res, out, h, args(ops))
	}
	b.emitLine("  "+line, p)
	sc.shapes[res] = out
	return nil
}

// convolution translates a convolution's attributes, pretty
// (dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride
// = [..], pad = [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..]}) or
// generic (dimension_numbers = #stablehlo.conv<...>, window_strides,
// padding, lhs_dilation, rhs_dilation), into HLO's window, dim_labels and
// group counts. The window's size is the kernel's spatial dimensions.
func (b *builder) convolution(pre []token, ins []string, s *stmt) (string, error) {
	dn := after(pre, "dim_numbers")
	if dn == nil {
		dn = after(pre, "dimension_numbers")
	}
	var labels strings.Builder
	for _, t := range dn {
		switch t.text {
		case "[", "]", ",", "<", ">", "#stablehlo.conv", "#stablehlo", ".conv", "conv", "raw":
		case "x":
			labels.WriteString("_")
		default:
			labels.WriteString(t.text)
		}
	}
	lab := labels.String()
	parts := strings.Split(strings.Replace(lab, "->", "_", 1), "_")
	if len(parts) != 3 || len(ins) < 2 {
		return "", b.r.errAt(s.toks[0], "unsupported convolution dimension numbers %q", lab)
	}
	kdims := dimsOf(ins[1])
	if len(kdims) != len(parts[1]) {
		return "", b.r.errAt(s.toks[0], "convolution: kernel labels %q for a rank-%d kernel", parts[1], len(kdims))
	}
	nsp := len(parts[1]) - 2
	size := make([]string, nsp)
	for i, c := range parts[1] {
		if c >= '0' && c <= '9' {
			k := int(c - '0')
			if k >= nsp {
				return "", b.r.errAt(s.toks[0], "convolution: spatial dimension %c of %d", c, nsp)
			}
			size[k] = strconv.FormatInt(kdims[i], 10)
		}
	}
	win := after(pre, "window")
	get := func(pretty, generic, def string) []string {
		v := numbers(after(win, pretty))
		if len(v) == 0 {
			v = numbers(after(pre, generic))
		}
		if len(v) == 1 && nsp > 1 && generic == "padding" {
			v = nil // a splat: dense<0>
		}
		if len(v) == 0 {
			n := nsp
			if generic == "padding" {
				n = 2 * nsp
			}
			v = make([]string, n)
			for i := range v {
				v[i] = def
			}
		}
		return v
	}
	stride, pad := get("stride", "window_strides", "1"), get("pad", "padding", "0")
	ld, rd := get("lhs_dilate", "lhs_dilation", "1"), get("rhs_dilate", "rhs_dilation", "1")
	if len(stride) != nsp || len(pad) != 2*nsp || len(ld) != nsp || len(rd) != nsp {
		return "", b.r.errAt(s.toks[0], "convolution: window attributes do not match its %d spatial dimensions", nsp)
	}
	if rev := numbers(after(win, "reverse")); len(rev) > 0 {
		for _, r := range rev {
			if r != "0" {
				return "", b.r.errAt(s.toks[0], "unsupported: a convolution with a reversed window")
			}
		}
	}
	var ps []string
	for i := 0; i < nsp; i++ {
		ps = append(ps, pad[2*i]+"_"+pad[2*i+1])
	}
	w := fmt.Sprintf("window={size=%s stride=%s pad=%s lhs_dilate=%s rhs_dilate=%s}, dim_labels=%s_%s->%s",
		strings.Join(size, "x"), strings.Join(stride, "x"), strings.Join(ps, "x"), strings.Join(ld, "x"), strings.Join(rd, "x"), parts[0], parts[1], parts[2])
	for _, g := range []string{"feature_group_count", "batch_group_count"} {
		if v := numbers(after(pre, g)); len(v) > 0 && v[0] != "1" {
			w += ", " + g + "=" + v[0]
		}
	}
	return w, nil
}

// window reads the window attributes of reduce_window and
// select_and_scatter (window_dimensions, window_strides, padding and, with
// dilations, base_dilations and window_dilations) as HLO's window text.
func window(pre []token, dilations bool) string {
	size := numbers(after(pre, "window_dimensions"))
	rank := len(size)
	get := func(key string) []string {
		v := numbers(after(pre, key))
		if len(v) == 0 {
			v = make([]string, rank)
			for i := range v {
				v[i] = "1"
			}
		}
		return v
	}
	pad := numbers(after(pre, "padding"))
	ps := make([]string, rank)
	for i := range ps {
		ps[i] = "0_0"
		if len(pad) == 2*rank {
			ps[i] = pad[2*i] + "_" + pad[2*i+1]
		}
	}
	w := fmt.Sprintf("size=%s stride=%s pad=%s", strings.Join(size, "x"), strings.Join(get("window_strides"), "x"), strings.Join(ps, "x"))
	if dilations {
		w += fmt.Sprintf(" lhs_dilate=%s rhs_dilate=%s", strings.Join(get("base_dilations"), "x"), strings.Join(get("window_dilations"), "x"))
	}
	return w
}

// splitX splits "[0, 1] x [2, 3]" at the x.
func splitX(toks []token) ([]token, []token) {
	for i, t := range toks {
		if t.text == "x" {
			return toks[:i], toks[i+1:]
		}
	}
	return toks, nil
}

// sliceSugar reads "[0:2, 1:3:1]" into HLO "{[0:2], [1:3:1]}".
func sliceSugar(pre []token) (string, error) {
	start := -1
	for i, t := range pre {
		if t.text == "[" {
			start = i
			break
		}
	}
	if start < 0 {
		return "", fmt.Errorf("slice without [start:limit] bounds")
	}
	var parts []string
	var cur []string
	for _, t := range pre[start+1:] {
		switch t.text {
		case "]":
			if len(cur) > 0 {
				parts = append(parts, "["+strings.Join(cur, ":")+"]")
			}
			return "{" + strings.Join(parts, ", ") + "}", nil
		case ",":
			parts = append(parts, "["+strings.Join(cur, ":")+"]")
			cur = nil
		case ":":
		default:
			cur = append(cur, t.text)
		}
	}
	return "", fmt.Errorf("unterminated slice bounds")
}

// reducer returns the name of a scalar computation applying op to two
// values of elem, emitting it once.
func (b *builder) reducer(op, elem string, s *stmt) (string, error) {
	h, ok := elementwise[op]
	if !ok {
		return "", b.r.errAt(token{line: s.line, col: s.col}, "unsupported reducer stablehlo.%s", op)
	}
	key := h + "." + elem
	if n, ok := b.reds[key]; ok {
		return n, nil
	}
	n := "red." + key
	b.reds[key] = n
	b.extra = append(b.extra, fmt.Sprintf("%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n  ROOT r = %s[] %s(a, b)\n}", n, elem, elem, elem, h))
	return n, nil
}

// numbers lists the integer tokens (types such as 2x2xi64 are skipped).
func numbers(toks []token) []string {
	var v []string
	for _, t := range toks {
		if t.kind == tNumber {
			if _, err := strconv.ParseInt(t.text, 10, 64); err == nil {
				v = append(v, t.text)
			}
		}
	}
	return v
}

// while translates stablehlo.while(%it = %init, ...) : types cond {...}
// do {...} into an HLO while over a tuple state: the loop values, then the
// outer values the regions read (MLIR regions capture them; HLO bodies
// get them through the state, unchanged).
func (b *builder) while(s *stmt, sc *scope, res string, outs []string) error {
	p := hlo.Pos{Line: s.line, Col: s.col}
	if len(s.regions) != 2 {
		return b.r.errAt(token{line: s.line, col: s.col}, "stablehlo.while needs cond and do regions")
	}
	var iters, inits []string
	pre, _ := split(s.toks)
	for i := 0; i+2 < len(pre); i++ {
		if pre[i].kind == tValue && pre[i+1].text == "=" && pre[i+2].kind == tValue {
			iters = append(iters, pre[i].text)
			inits = append(inits, pre[i+2].text)
		}
	}
	if len(iters) != len(outs) {
		return b.r.errAt(token{line: s.line, col: s.col}, "stablehlo.while: %d loop values, %d types", len(iters), len(outs))
	}
	defined := map[string]bool{}
	for _, it := range iters {
		defined[it] = true
	}
	var captured []string
	seen := map[string]bool{}
	for _, reg := range s.regions {
		for _, v := range freeValues(reg, defined) {
			if !seen[v] {
				if _, ok := sc.shapes[hloName(v)]; !ok {
					return b.r.errAt(token{line: s.line, col: s.col}, "%s is not defined before the loop", v)
				}
				seen[v] = true
				captured = append(captured, v)
			}
		}
	}
	var shapes, names []string
	for i := range iters {
		shapes = append(shapes, outs[i])
		names = append(names, hloName(inits[i]))
	}
	for _, c := range captured {
		shapes = append(shapes, sc.shapes[hloName(c)])
		names = append(names, hloName(c))
	}
	state := "(" + strings.Join(shapes, ", ") + ")"
	comp := func(kind string, body []*stmt, isCond bool) (string, error) {
		cname := b.compUnique(fmt.Sprintf("w%s.%s", res, kind))
		b.push()
		b.emitLine(cname+" {", p)
		rs := &scope{shapes: map[string]string{}}
		b.emitLine(fmt.Sprintf("  w.state = %s parameter(0)", state), p)
		all := append(append([]string(nil), iters...), captured...)
		for i, v := range all {
			b.emitLine(fmt.Sprintf("  %s = %s get-tuple-element(w.state), index=%d", hloName(v), shapes[i], i), p)
			rs.shapes[hloName(v)] = shapes[i]
		}
		for _, st := range body {
			if st.op == "stablehlo.return" || st.op == "return" {
				vals := values(st.toks)
				if isCond {
					if len(vals) != 1 {
						return "", b.r.errAt(token{line: st.line, col: st.col}, "a while condition returns one value")
					}
					b.emitLine(fmt.Sprintf("  ROOT w.ret = pred[] copy(%s)", hloName(vals[0])), p)
				} else {
					var rn []string
					for _, v := range vals {
						if _, ok := rs.shapes[hloName(v)]; !ok {
							return "", b.r.errAt(token{line: st.line, col: st.col}, "%s is not defined", v)
						}
						rn = append(rn, hloName(v))
					}
					for _, c := range captured {
						rn = append(rn, hloName(c))
					}
					b.emitLine(fmt.Sprintf("  ROOT w.ret = %s tuple(%s)", state, strings.Join(rn, ", ")), p)
				}
				continue
			}
			if err := b.op(st, rs); err != nil {
				return "", err
			}
		}
		b.emitLine("}", hlo.Pos{})
		b.pop()
		return cname, nil
	}
	cond, err := comp("cond", s.regions[0], true)
	if err != nil {
		return err
	}
	body, err := comp("body", s.regions[1], false)
	if err != nil {
		return err
	}
	b.emitLine(fmt.Sprintf("  %s.init = %s tuple(%s)", res, state, strings.Join(names, ", ")), p)
	b.emitLine(fmt.Sprintf("  %s.while = %s while(%s.init), condition=%s, body=%s", res, state, res, cond, body), p)
	for i := range iters {
		g := fmt.Sprintf("%s.r%d", res, i)
		if len(iters) == 1 {
			g = res // one result is used as %r, not %r#0
		}
		b.emitLine(fmt.Sprintf("  %s = %s get-tuple-element(%s.while), index=%d", g, outs[i], res, i), p)
		sc.shapes[g] = outs[i]
	}
	return nil
}

// freeValues lists the values statements read but do not define (nor
// the given names), in order of first use, regions included.
func freeValues(body []*stmt, defined map[string]bool) []string {
	def := map[string]bool{}
	for k := range defined {
		def[k] = true
	}
	var out []string
	seen := map[string]bool{}
	var walk func([]*stmt)
	walk = func(ss []*stmt) {
		for _, st := range ss {
			for i, t := range st.toks {
				if t.kind != tValue {
					continue
				}
				if i+1 < len(st.toks) && st.toks[i+1].text == "=" { // a nested loop's own values
					def[t.text] = true
					continue
				}
				base := t.text
				if i := strings.IndexByte(base, '#'); i >= 0 {
					base = base[:i]
				}
				if !def[base] && !def[t.text] && !seen[t.text] {
					seen[t.text] = true
					out = append(out, t.text)
				}
			}
			for _, r := range st.regions {
				walk(r)
			}
			for _, r := range st.results {
				def[r] = true
			}
		}
	}
	walk(body)
	return out
}

// regionComp writes a region as a computation of the given parameters
// (block arguments, in the computation's order); its return is the root
// (a tuple for several values). Regions of reducers read nothing outside.
func (b *builder) regionComp(name string, params []arg, body []*stmt, outer *scope) (string, error) {
	name = b.compUnique(name)
	b.push()
	b.emitLine(name+" {", hlo.Pos{})
	rs := &scope{shapes: map[string]string{}}
	for i, a := range params {
		n := hloName(a.name)
		rs.shapes[n] = a.shape
		b.emitLine(fmt.Sprintf("  %s = %s parameter(%d)", n, a.shape, i), hlo.Pos{})
	}
	for _, st := range body {
		if st.op == "stablehlo.return" || st.op == "return" {
			vals := values(st.toks)
			var names, shapes []string
			for _, v := range vals {
				sh, ok := rs.shapes[hloName(v)]
				if !ok {
					return "", b.r.errAt(token{line: st.line, col: st.col}, "%s is not defined in the region (regions that read outer values are not supported here)", v)
				}
				names = append(names, hloName(v))
				shapes = append(shapes, sh)
			}
			if len(vals) == 1 {
				// The returned value is the root itself, not a copy of
				// it: the lowering recognizes reducers and scatter
				// combiners (one add, an assignment) by their root.
				if !b.markRoot(names[0]) {
					b.emitLine(fmt.Sprintf("  ROOT %s.ret = %s copy(%s)", name, shapes[0], names[0]), hlo.Pos{Line: st.line, Col: st.col})
				}
			} else {
				b.emitLine(fmt.Sprintf("  ROOT %s.ret = (%s) tuple(%s)", name, strings.Join(shapes, ", "), strings.Join(names, ", ")), hlo.Pos{Line: st.line, Col: st.col})
			}
			continue
		}
		if err := b.op(st, rs); err != nil {
			return "", err
		}
	}
	b.emitLine("}", hlo.Pos{})
	b.pop()
	return name, nil
}

// flag reports whether a boolean attribute is set to true.
func flag(toks []token, key string) bool {
	v := after(toks, key)
	return len(v) > 0 && v[0].text == "true"
}

// compName is a function's computation name: "f." and the symbol with
// characters HLO names do not take replaced (@"<lambda>" -> f._lambda_).
func compName(sym string) string {
	var sb strings.Builder
	sb.WriteString("f.")
	for _, c := range sym {
		if c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			sb.WriteRune(c)
		} else {
			sb.WriteString("_")
		}
	}
	return sb.String()
}

// unpack names the results of an op that made them as one instruction:
// one result is a copy named res (used as %r), several are %r#i (res.rI).
func (b *builder) unpack(res, made string, outs []string, p hlo.Pos, sc *scope, names ...string) {
	if len(names) == len(outs) && len(outs) > 1 { // %a, %b = op ...: each its own name
		for i, o := range outs {
			g := hloName(names[i])
			b.emitLine(fmt.Sprintf("  %s = %s get-tuple-element(%s), index=%d", g, o, made, i), p)
			sc.shapes[g] = o
		}
		return
	}
	if len(outs) == 1 {
		b.emitLine(fmt.Sprintf("  %s = %s copy(%s)", res, outs[0], made), p)
		sc.shapes[res] = outs[0]
		return
	}
	for i, o := range outs {
		g := fmt.Sprintf("%s.r%d", res, i)
		b.emitLine(fmt.Sprintf("  %s = %s get-tuple-element(%s), index=%d", g, o, made, i), p)
		sc.shapes[g] = o
	}
}
