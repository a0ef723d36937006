package hlo

import (
	"fmt"
	"strconv"
	"strings"
)

// Source is where an instruction came from in the program that produced
// the module: the Python (or other) file and line and the framework's op
// name, as XLA's OpMetadata carries them (metadata={op_name="..."
// source_file="..." source_line=N}; the StableHLO reader makes the same
// from MLIR's loc(...) debug locations).
type Source struct {
	File   string // source_file
	Line   int    // source_line (0: unknown)
	OpName string // op_name: JAX's name stack (jit(f)/jit(main)/dot_general), PyTorch/XLA's op
}

// Known reports whether s names a file.
func (s Source) Known() bool { return s.File != "" }

// String is "file:line" ("file" when the line is unknown; "" when the
// file is).
func (s Source) String() string {
	switch {
	case s.File == "":
		return ""
	case s.Line <= 0:
		return s.File
	}
	return fmt.Sprintf("%s:%d", s.File, s.Line)
}

// Short is String with the file's directories left out (model.py:42),
// for tables.
func (s Source) Short() string {
	t := s
	if i := strings.LastIndexAny(t.File, `/\`); i >= 0 {
		t.File = t.File[i+1:]
	}
	return t.String()
}

// SourceOf reads in's metadata attribute; ok is false when it names no
// source file.
func SourceOf(in *Instruction) (Source, bool) {
	v, ok := in.Attr("metadata")
	if !ok {
		return Source{}, false
	}
	s := ParseMetadata(v)
	return s, s.Known()
}

// ParseMetadata reads the fields of an OpMetadata attribute value
// ({op_type="Sum" op_name="x/y" source_file="m.py" source_line=3}) that
// Source holds; others (op_type, profile_type, deduplicated_name, ...) and
// anything malformed are skipped.
func ParseMetadata(v string) Source {
	var s Source
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "{"), "}")
	for len(v) > 0 {
		v = strings.TrimLeft(v, " \t\n,")
		eq := strings.IndexByte(v, '=')
		if eq <= 0 {
			break
		}
		key := strings.TrimSpace(v[:eq])
		v = v[eq+1:]
		var val string
		if strings.HasPrefix(v, `"`) {
			end := closingQuote(v)
			if end < 0 {
				break
			}
			raw := v[:end+1]
			v = v[end+1:]
			if u, err := strconv.Unquote(raw); err == nil {
				val = u
			} else {
				val = raw[1 : len(raw)-1]
			}
		} else {
			end := strings.IndexAny(v, " \t\n,")
			if end < 0 {
				end = len(v)
			}
			val, v = v[:end], v[end:]
		}
		switch key {
		case "source_file":
			s.File = val
		case "source_line":
			if n, err := strconv.Atoi(val); err == nil && n > 0 {
				s.Line = n
			}
		case "op_name":
			s.OpName = val
		}
	}
	return s
}

// closingQuote is the index of the quote that closes the string v starts
// with (backslash escapes skipped), -1 if none.
func closingQuote(v string) int {
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// MetadataText is the metadata attribute value XLA prints for s.
func MetadataText(s Source) string {
	var parts []string
	if s.OpName != "" {
		parts = append(parts, "op_name="+strconv.Quote(s.OpName))
	}
	if s.File != "" {
		parts = append(parts, "source_file="+strconv.Quote(s.File))
		if s.Line > 0 {
			parts = append(parts, fmt.Sprintf("source_line=%d", s.Line))
		}
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// Sources maps every instruction position of m to the source its
// instruction names. The compiler's passes keep an instruction's position
// on what they make of it (an expansion's pieces, a fusion, a kernel), so
// this map, taken before them, finds the source of what they produce.
func Sources(m *Module) map[Pos]Source {
	out := map[Pos]Source{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if s, ok := SourceOf(in); ok {
				if _, dup := out[in.Pos]; !dup {
					out[in.Pos] = s
				}
			}
		}
	}
	return out
}
