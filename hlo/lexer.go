package hlo

import (
	"fmt"
	"strings"
)

// Pos is a position in the source: 1-based line and column (bytes).
type Pos struct {
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

type tokKind uint8

const (
	tEOF    tokKind = iota
	tWord           // names, numbers, keywords, opcodes, dims like 3x3, pads like 0_1x1_0
	tString         // "..." with escapes kept verbatim in text
	tPunct          // { } [ ] ( ) , = : * # ? <= ->
	tBad
)

type token struct {
	kind  tokKind
	text  string
	pos   Pos
	space bool // whitespace or a comment came before it
	bol   bool // first token of its line
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tBad:
		return t.text
	}
	return fmt.Sprintf("%q", t.text)
}

func isWordChar(c byte) bool {
	return c == '_' || c == '.' || c == '%' || c == '$' || c == '-' || c == '+' ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// maxNesting bounds how deeply brackets nest in HLO text (XLA's own dumps
// nest a handful of levels).
const maxNesting = 256

// lex splits src into tokens. It never fails: bad characters and unclosed
// strings or comments become tBad tokens that the parser reports.
func lex(src string) []token {
	toks := make([]token, 0, min(len(src)/4+16, 1<<20)) // dumps average about 4 bytes a token
	depth := 0
	line, col := 1, 1
	space, bol := true, true
	i := 0
	adv := func(n int) {
		for k := 0; k < n; k++ {
			if src[i] == '\n' {
				line++
				col = 1
			} else {
				col++
			}
			i++
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			adv(1)
			space, bol = true, true
			continue
		case c == ' ' || c == '\t' || c == '\r':
			adv(1)
			space = true
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				adv(1)
			}
			space = true
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			start := Pos{line, col}
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				toks = append(toks, token{kind: tBad, text: "unterminated /* comment", pos: start, space: space, bol: bol})
				adv(len(src) - i)
				continue
			}
			adv(end + 4)
			space = true
			continue
		}
		tok := token{pos: Pos{line, col}, space: space, bol: bol}
		space, bol = false, false
		switch {
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) || src[j] != '"' {
				tok.kind, tok.text = tBad, "unterminated string"
				toks = append(toks, tok)
				adv(min(j, len(src)) - i)
				continue
			}
			tok.kind, tok.text = tString, src[i:j+1]
			adv(j + 1 - i)
		case c == '<' && i+1 < len(src) && src[i+1] == '=':
			tok.kind, tok.text = tPunct, "<="
			adv(2)
		case c == '-' && i+1 < len(src) && src[i+1] == '>':
			tok.kind, tok.text = tPunct, "->"
			adv(2)
		case isWordChar(c):
			j := i
			for j < len(src) && isWordChar(src[j]) {
				if src[j] == '-' && j+1 < len(src) && src[j+1] == '>' {
					break // "b01f_01io->b01f": the arrow is its own token
				}
				j++
			}
			tok.kind, tok.text = tWord, src[i:j]
			adv(j - i)
		case strings.IndexByte("{}[](),=:*#?<>!@^&|~/;'`\\", c) >= 0:
			tok.kind, tok.text = tPunct, src[i:i+1]
			adv(1)
			switch c {
			case '{', '[', '(':
				// Brackets nested absurdly deep end the lexing here: the
				// parser reports it at once, without millions of tokens.
				if depth++; depth > maxNesting {
					tok.kind, tok.text = tBad, fmt.Sprintf("brackets nested more than %d deep", maxNesting)
					return append(toks, tok, token{kind: tEOF, pos: tok.pos, space: true, bol: true})
				}
			case '}', ']', ')':
				depth--
			}
		default:
			tok.kind, tok.text = tBad, fmt.Sprintf("unexpected character %q", c)
			adv(1)
		}
		toks = append(toks, tok)
	}
	return append(toks, token{kind: tEOF, pos: Pos{line, col}, space: true, bol: true})
}
