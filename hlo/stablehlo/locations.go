package stablehlo

import (
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// locations are MLIR's debug locations, which
// jax.jit(f).lower(x).as_text(debug_info=True) writes: a loc(...) after an
// operation, an argument, a function or the module, and #locN = loc(...)
// aliases before and after the module. The reader reads the module
// without them (splitLocations) and gives each operation the source its
// location names (after), which the translation carries as the
// instruction's metadata, as XLA's MLIR-to-HLO translation does:
// op_name from the name locations, source_file and source_line from the
// innermost file location (JAX's user frame).
type locations struct {
	// byToken: the location written after the token at this index of the
	// reader's tokens, as the tokens inside its parentheses.
	byToken map[int][]token
	// alias: #locN's tokens, inside the parentheses of its loc(...).
	alias map[string][]token
	// sources: each operation's source by its position (its first
	// token's), for the translation.
	sources map[hlo.Pos]hlo.Source
}

// splitLocations separates the locations from the rest of the tokens.
func splitLocations(toks []token) ([]token, *locations) {
	l := &locations{byToken: map[int][]token{}, alias: map[string][]token{}, sources: map[hlo.Pos]hlo.Source{}}
	out := toks[:0:0]
	// group returns the index after the ")" closing the "(" at i.
	group := func(i int) int {
		depth := 0
		for ; i < len(toks) && toks[i].kind != tEOF; i++ {
			switch toks[i].text {
			case "(":
				depth++
			case ")":
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	inside := func(open, end int) []token { // the tokens between "(" at open and its ")"
		if end-1 <= open+1 {
			return nil
		}
		return toks[open+1 : end-1]
	}
	for i := 0; i < len(toks); {
		t := toks[i]
		switch {
		case t.kind == tIdent && t.text == "loc" && i+1 < len(toks) && toks[i+1].text == "(":
			end := group(i + 1)
			if len(out) > 0 {
				l.byToken[len(out)-1] = inside(i+1, end)
			}
			i = end
		case t.kind == tIdent && strings.HasPrefix(t.text, "#loc") && i+3 < len(toks) && toks[i+1].text == "=" && toks[i+2].text == "loc" && toks[i+3].text == "(":
			end := group(i + 3)
			l.alias[t.text] = inside(i+3, end)
			i = end
		default:
			out = append(out, t)
			i++
		}
	}
	return out, l
}

// after is the source of the location written after token i (zero when
// there is none or it names no file).
func (l *locations) after(i int) hlo.Source {
	if l == nil {
		return hlo.Source{}
	}
	toks, ok := l.byToken[i]
	if !ok {
		return hlo.Source{}
	}
	budget := maxLocSteps
	p := locParser{l: l, toks: toks, budget: &budget}
	names, src := p.loc(0)
	if src.File == "" {
		return hlo.Source{} // an op name alone (an argument's "x") says nothing a kernel table can use
	}
	src.OpName = strings.Join(names, "/")
	return src
}

// sourceAt is the source of the operation at p.
func (l *locations) sourceAt(p hlo.Pos) (hlo.Source, bool) {
	if l == nil {
		return hlo.Source{}, false
	}
	s, ok := l.sources[p]
	return s, ok
}

// maxLocDepth bounds how deep locations nest through aliases, so that a
// cycle of #loc aliases (malformed input) ends; maxLocSteps bounds the
// locations one operation's resolves to, so that aliases fused into each
// other (#a = fused[#b, #b], #b = fused[#c, #c], ...) do not take
// exponential time.
const (
	maxLocDepth = 64
	maxLocSteps = 4096
)

// locParser reads one location:
//
//	unknown | #locN | "file":line:col [to [line:]col] | "name" ["(" loc ")"]
//	| callsite "(" loc at loc ")" | fused ["<" ... ">"] "[" loc {"," loc} "]"
type locParser struct {
	l      *locations
	toks   []token
	p      int
	budget *int // locations left to read (maxLocSteps)
}

func (p *locParser) peek() token {
	if p.p < len(p.toks) {
		return p.toks[p.p]
	}
	return token{kind: tEOF}
}

func (p *locParser) next() token {
	t := p.peek()
	if p.p < len(p.toks) {
		p.p++
	}
	return t
}

// loc reads a location: the op names of its name locations, innermost
// first (JAX nests the name stack: "svd"("jit(func)"(file)) is
// jit(func)/svd), and the file and line of its innermost frame. Names
// inside a call site are the Python functions of its frames, not op names.
func (p *locParser) loc(depth int) ([]string, hlo.Source) {
	if *p.budget--; depth > maxLocDepth || *p.budget < 0 {
		return nil, hlo.Source{}
	}
	t := p.next()
	switch {
	case t.kind == tIdent && strings.HasPrefix(t.text, "#loc"):
		toks, ok := p.l.alias[t.text]
		if !ok {
			return nil, hlo.Source{}
		}
		sub := locParser{l: p.l, toks: toks, budget: p.budget}
		return sub.loc(depth + 1)
	case t.kind == tIdent && t.text == "callsite":
		if p.next().text != "(" {
			return nil, hlo.Source{}
		}
		_, callee := p.loc(depth + 1)
		var caller hlo.Source
		if p.peek().text == "at" {
			p.next()
			_, caller = p.loc(depth + 1)
		}
		p.skipClose()
		if callee.File != "" {
			return nil, callee
		}
		return nil, caller
	case t.kind == tIdent && t.text == "fused":
		if p.peek().text == "<" {
			p.skipGroup()
		}
		if p.next().text != "[" {
			return nil, hlo.Source{}
		}
		var names []string
		var src hlo.Source
		for p.peek().kind != tEOF && p.peek().text != "]" {
			n, s := p.loc(depth + 1)
			if src.File == "" && s.File != "" {
				names, src = n, s
			}
			if p.peek().text == "," {
				p.next()
			} else {
				break
			}
		}
		p.skipClose()
		return names, src
	case t.kind == tString:
		text := unescapeMLIR(t.text)
		switch p.peek().text {
		case ":": // "file":line:col [to [line:]col]
			p.next()
			line, _ := strconv.Atoi(p.next().text)
			if p.peek().text == ":" {
				p.next()
				p.next()
			}
			if p.peek().text == "to" {
				p.next()
				for p.peek().kind == tNumber || p.peek().text == ":" {
					p.next()
				}
			}
			return nil, hlo.Source{File: text, Line: line}
		case "(": // "name"(loc)
			p.next()
			names, src := p.loc(depth + 1)
			p.skipClose()
			return append(names, text), src
		}
		return []string{text}, hlo.Source{}
	}
	return nil, hlo.Source{} // unknown, or what this reader does not know
}

// skipClose skips to just past the first closing bracket that closes
// nothing opened after the cursor.
func (p *locParser) skipClose() {
	depth := 0
	for p.peek().kind != tEOF {
		t := p.next()
		switch t.text {
		case "(", "[", "<":
			depth++
		case ")", "]", ">":
			if depth == 0 {
				return
			}
			depth--
		}
	}
}

// skipGroup skips a bracketed group starting at the current token.
func (p *locParser) skipGroup() {
	p.next()
	p.skipClose()
}

// unescapeMLIR decodes an MLIR string's escapes (\\, \", \n, \t and \XX
// in hex), the way MLIR prints a file name with odd characters.
func unescapeMLIR(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		default:
			if i+1 < len(s) {
				if v, err := strconv.ParseUint(s[i:i+2], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i++
					continue
				}
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}
