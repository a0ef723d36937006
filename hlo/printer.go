package hlo

import (
	"strconv"
	"strings"
)

// String prints the module in the short form (no % sigils). The text
// parses back to a module with the same structure.
func (m *Module) String() string {
	var b strings.Builder
	if m.HasHeader {
		b.WriteString("HloModule " + m.Name)
		for _, a := range m.Attrs {
			b.WriteString(", " + a.Key + "=" + a.Value)
		}
		b.WriteString("\n\n")
	}
	for i, c := range m.Computations {
		if i > 0 {
			b.WriteByte('\n')
		}
		c.print(&b)
	}
	return b.String()
}

func (c *Computation) print(b *strings.Builder) {
	if c.IsEntry {
		b.WriteString("ENTRY ")
	}
	b.WriteString(c.Name)
	if s := c.Signature; s != nil {
		b.WriteString(" (")
		for i, p := range s.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p.Name + ": " + p.Shape.String())
		}
		b.WriteString(") -> " + s.Result.String())
	}
	b.WriteString(" {\n")
	for _, in := range c.Instructions {
		b.WriteString("  ")
		in.print(b)
		b.WriteByte('\n')
	}
	b.WriteString("}")
	if c.ExecutionThread != "" {
		b.WriteString(", execution_thread=" + c.ExecutionThread)
	}
	b.WriteByte('\n')
}

// String prints the instruction as one line.
func (in *Instruction) String() string {
	var b strings.Builder
	in.print(&b)
	return b.String()
}

func (in *Instruction) print(b *strings.Builder) {
	if in.IsRoot {
		b.WriteString("ROOT ")
	}
	b.WriteString(in.Name + " = ")
	if in.Shape != nil {
		b.WriteString(in.Shape.String() + " ")
	}
	b.WriteString(in.Opcode + "(")
	switch in.Opcode {
	case OpParameter:
		b.WriteString(strconv.FormatInt(in.ParamNumber, 10))
	case OpConstant:
		b.WriteString(in.Literal)
	default:
		for i, o := range in.Operands {
			if i > 0 {
				b.WriteString(", ")
			}
			if o.Shape != nil {
				b.WriteString(o.Shape.String() + " ")
			}
			b.WriteString(o.Name)
		}
	}
	b.WriteByte(')')
	for _, a := range in.Attrs {
		b.WriteString(", " + a.Key + "=" + a.Value)
	}
}

// String prints a shape: "f32[2,<=4]{1,0:T(8,128)}", "(f32[], s32[3])".
func (s *Shape) String() string {
	if s.IsTuple {
		parts := make([]string, len(s.Tuple))
		for i, t := range s.Tuple {
			parts[i] = t.String()
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	var b strings.Builder
	b.WriteString(s.Elem + "[")
	for i, d := range s.Dims {
		if i > 0 {
			b.WriteByte(',')
		}
		k := Static
		if i < len(s.DimKinds) {
			k = s.DimKinds[i]
		}
		switch k {
		case Bounded:
			b.WriteString("<=" + strconv.FormatInt(d, 10))
		case Unbounded:
			b.WriteByte('?')
		default:
			b.WriteString(strconv.FormatInt(d, 10))
		}
	}
	b.WriteByte(']')
	if l := s.Layout; l != nil {
		b.WriteByte('{')
		for i, d := range l.MinorToMajor {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(d, 10))
		}
		if l.HasTail {
			b.WriteString(":" + l.Tail)
		}
		b.WriteByte('}')
	}
	return b.String()
}
