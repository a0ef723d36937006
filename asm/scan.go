package asm

import (
	"fmt"
	"strconv"
	"strings"
)

type tokKind uint8

const (
	tEOL tokKind = iota // end of line (or of file)
	tIdent
	tInt
	tFloat
	tString
	tPunct // one of , : [ ] { } ( ) + - * / % & | ^ ~ = @ and << >>
	tBad
)

type token struct {
	kind tokKind
	text string // identifier, punctuation, number text, or unquoted string
	pos  Pos
}

func (t token) String() string {
	switch t.kind {
	case tEOL:
		return "end of line"
	case tString:
		return fmt.Sprintf("string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// scanLine splits one source line into tokens. Comments start with ';', '#'
// or '//'. It never fails: bad characters become tBad tokens the parser reports.
func scanLine(file string, lineNo int, line string) []token {
	return scanTokens(nil, file, lineNo, line)
}

func scanTokens(toks []token, file string, lineNo int, line string) []token {
	i := 0
	for i < len(line) {
		c := line[i]
		pos := Pos{file, lineNo, i + 1}
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == ';' || c == '#' || c == '/' && i+1 < len(line) && line[i+1] == '/':
			i = len(line)
			continue
		case isLetter(c) || c == '.' && i+1 < len(line) && isLetter(line[i+1]):
			j := i + 1
			for j < len(line) && (isLetter(line[j]) || isDigit(line[j]) || line[j] == '.') {
				j++
			}
			toks = append(toks, token{tIdent, line[i:j], pos})
			i = j
			continue
		case isDigit(c) || c == '.' && i+1 < len(line) && isDigit(line[i+1]):
			j := i
			kind := tInt
			if c == '0' && j+1 < len(line) && strings.ContainsRune("xXbBoO", rune(line[j+1])) {
				j += 2
				for j < len(line) && (isDigit(line[j]) || isLetter(line[j])) {
					j++
				}
			} else {
				for j < len(line) && (isDigit(line[j]) || line[j] == '_') {
					j++
				}
				if j < len(line) && line[j] == '.' {
					kind = tFloat
					j++
					for j < len(line) && isDigit(line[j]) {
						j++
					}
				}
				if j < len(line) && (line[j] == 'e' || line[j] == 'E') {
					k := j + 1
					if k < len(line) && (line[k] == '+' || line[k] == '-') {
						k++
					}
					if k < len(line) && isDigit(line[k]) {
						kind = tFloat
						j = k
						for j < len(line) && isDigit(line[j]) {
							j++
						}
					}
				}
				for j < len(line) && (isLetter(line[j]) || isDigit(line[j])) {
					j++ // swallow junk like "12abc" so the number parser reports it whole
				}
			}
			toks = append(toks, token{kind, line[i:j], pos})
			i = j
			continue
		case c == '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				toks = append(toks, token{tBad, "unterminated string", pos})
				return append(toks, token{kind: tEOL, pos: Pos{file, lineNo, len(line) + 1}})
			}
			str, err := strconv.Unquote(line[i : j+1])
			if err != nil {
				toks = append(toks, token{tBad, "bad escape in string " + line[i:j+1], pos})
			} else {
				toks = append(toks, token{tString, str, pos})
			}
			i = j + 1
			continue
		case (c == '<' || c == '>') && i+1 < len(line) && line[i+1] == c:
			toks = append(toks, token{tPunct, line[i : i+2], pos})
			i += 2
			continue
		case strings.IndexByte(",:[]{}()+-*/%&|^~=@", c) >= 0:
			toks = append(toks, token{tPunct, line[i : i+1], pos})
			i++
			continue
		}
		toks = append(toks, token{tBad, fmt.Sprintf("unexpected character %q", c), pos})
		i++
	}
	return append(toks, token{kind: tEOL, pos: Pos{file, lineNo, len(line) + 1}})
}
