// Package stablehlo reads StableHLO (MLIR text, as jax.jit(f).lower(x)
// .as_text() prints it) into the same hlo.Module the HLO text reader
// makes, so that every command works on either (docs/hlo.md).
//
// The reader translates each operation into HLO text, one instruction per
// line, and parses that with the HLO parser; every instruction's position
// then points back at the MLIR operation it came from, so errors from the
// verifier, the evaluator and the compiler name the .mlir line.
package stablehlo

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pulse-sim/pulse/hlo"
)

// token kinds
const (
	tEOF    = iota
	tValue  // %name, %0, %0#1
	tSymbol // @name
	tIdent  // bare words, dotted op names, keywords
	tString // "..."
	tNumber // 12, -3.5e2, 0x1F
	tPunct  // ( ) [ ] { } < > , : = -> x ^
)

type token struct {
	kind      int
	text      string
	line, col int
}

// lex splits MLIR text into tokens, dropping // comments.
func lex(src string) ([]token, error) {
	var out []token
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for k := 0; k < n; k++ {
			if src[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i++
		}
	}
	isWord := func(c byte) bool {
		return c == '_' || c == '.' || c == '$' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			adv(1)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				adv(1)
			}
		case c == '%' || c == '@' || c == '^' || c == '#' && i+1 < len(src) && src[i+1] != ' ':
			j := i + 1
			if j < len(src) && src[j] == '"' {
				k := strings.IndexByte(src[j+1:], '"')
				if k < 0 {
					return nil, &Error{Line: line, Col: col, Msg: "unterminated name"}
				}
				j += k + 2
			} else {
				for j < len(src) && (isWord(src[j]) || src[j] == '#' && c == '%') {
					j++
				}
			}
			kind := tValue
			switch c {
			case '@':
				kind = tSymbol
			case '^', '#':
				kind = tIdent
			}
			out = append(out, token{kind, src[i:j], line, col})
			adv(j - i)
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return nil, &Error{Line: line, Col: col, Msg: "unterminated string"}
			}
			out = append(out, token{tString, src[i+1 : j], line, col})
			adv(j + 1 - i)
		case c == '-' && i+1 < len(src) && src[i+1] == '>':
			out = append(out, token{tPunct, "->", line, col})
			adv(2)
		case c >= '0' && c <= '9' || (c == '-' || c == '+') && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i + 1
			for j < len(src) && (isWord(src[j]) && src[j] != '.' || src[j] == '.' || (src[j] == '-' || src[j] == '+') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				if src[j] == '.' && j+1 < len(src) && !(src[j+1] >= '0' && src[j+1] <= '9') && src[j+1] != 'e' && src[j+1] != 'E' {
					break
				}
				j++
			}
			out = append(out, token{tNumber, src[i:j], line, col})
			adv(j - i)
		case isWord(c):
			j := i
			for j < len(src) && isWord(src[j]) {
				j++
			}
			out = append(out, token{tIdent, src[i:j], line, col})
			adv(j - i)
		case strings.IndexByte("()[]{}<>,:=*?|+!", c) >= 0:
			out = append(out, token{tPunct, string(c), line, col})
			adv(1)
		default:
			// A character, not a byte: an ä is shown as itself, not as
			// the first byte of its UTF-8 encoding.
			r, _ := utf8.DecodeRuneInString(src[i:])
			return nil, &Error{Line: line, Col: col, Msg: fmt.Sprintf("unexpected character %q", r)}
		}
	}
	out = append(out, token{kind: tEOF, line: line, col: col})
	return out, nil
}

// Error is a positioned reader error.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

var _ = hlo.Pos{}
