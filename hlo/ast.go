package hlo

import "sync/atomic"

// Module is a parsed HLO module.
type Module struct {
	Pos          Pos
	Name         string
	HasHeader    bool   // the text started with "HloModule name"
	Attrs        []Attr // module attributes, in order
	Computations []*Computation
	Entry        *Computation // marked ENTRY, or the last computation

	// byName indexes Computations by name for Computation: a linear scan
	// per call site made verifying 20,000 nested calls take 4 s, and
	// 100,000 nearly a minute. It is a hint, checked on every hit and
	// rebuilt on a miss, so passes that edit Computations need not keep
	// it; atomic, since devices evaluate one module on several goroutines.
	byName atomic.Pointer[computationIndex]
}

// Computation is a named list of instructions.
type Computation struct {
	Pos             Pos
	Name            string
	IsEntry         bool
	Signature       *Signature // the printed "(p: shape, ...) -> shape", if any (informational)
	Instructions    []*Instruction
	Root            *Instruction // marked ROOT, or the last instruction
	ExecutionThread string       // raw value of ", execution_thread=..."
}

// Signature is a computation's printed parameter list and result.
type Signature struct {
	Params []Param
	Result *Shape
}

// Param is one entry of a signature.
type Param struct {
	Name  string
	Shape *Shape
}

// Instruction is one HLO instruction: name = shape opcode(operands), attributes.
type Instruction struct {
	Pos    Pos
	Name   string
	IsRoot bool
	Shape  *Shape // nil when the text leaves it to inference

	Opcode   string
	Operands []*Operand
	// ParamNumber is the N of parameter(N).
	ParamNumber int64
	// Literal is the text between the parentheses of constant(...), as
	// written (normalized spacing); "{...}" means elided values.
	Literal string
	Attrs   []Attr
}

// Operand refers to an instruction of the same computation, optionally with
// the shape the long form prints before the name.
type Operand struct {
	Pos   Pos
	Name  string
	Shape *Shape
}

// Attr is "key=value". Value is the attribute's text with brackets matched
// and spacing normalized; typed accessors (attrs.go) interpret it.
type Attr struct {
	Pos   Pos
	Key   string
	Value string
}

// DimKind says whether a dimension is static or dynamic.
type DimKind uint8

const (
	Static    DimKind = iota
	Bounded           // <=N
	Unbounded         // ?
)

// Shape is an array shape (Elem set), a tuple (Tuple set, Elem ""), or
// token[] / opaque[] (Elem "token" / "opaque", no dims).
type Shape struct {
	Elem     string
	Dims     []int64
	DimKinds []DimKind // nil when every dimension is static
	Layout   *Layout
	Tuple    []*Shape
	IsTuple  bool
}

// Layout is "{minor_to_major:tail}". Tail keeps the tiling, memory space and
// other items after the colon as written.
type Layout struct {
	MinorToMajor []int64
	Tail         string
	HasTail      bool
}

// Attr returns the value of attribute key and whether it is present.
func (in *Instruction) Attr(key string) (string, bool) {
	for _, a := range in.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// Attr returns the value of module attribute key.
func (m *Module) Attr(key string) (string, bool) {
	for _, a := range m.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// Computation finds a computation by name.
func (m *Module) Computation(name string) *Computation {
	idx := m.byName.Load()
	if idx != nil {
		if i, ok := idx.at[name]; ok && i < len(m.Computations) && m.Computations[i].Name == name {
			return m.Computations[i]
		}
	}
	// A miss scans, as a lookup did before the index: a name that is not
	// there (a pass finding a fresh one) costs no more than it did. The
	// index is rebuilt when the scan shows it stale.
	for _, c := range m.Computations {
		if c.Name == name {
			m.indexComputations()
			return c
		}
	}
	if idx == nil || idx.n != len(m.Computations) {
		m.indexComputations()
	}
	return nil
}

// computationIndex is Module.byName's value: positions by name, and how
// many computations there were.
type computationIndex struct {
	at map[string]int
	n  int
}

func (m *Module) indexComputations() {
	at := make(map[string]int, len(m.Computations))
	for i, c := range m.Computations {
		if _, dup := at[c.Name]; !dup {
			at[c.Name] = i
		}
	}
	m.byName.Store(&computationIndex{at, len(m.Computations)})
}

// NumInstructions counts the module's instructions.
func (m *Module) NumInstructions() int {
	n := 0
	for _, c := range m.Computations {
		n += len(c.Instructions)
	}
	return n
}

// Clone returns a deep copy of the module's computations and instructions
// (shapes are shared: passes replace them, never edit them in place).
func (m *Module) Clone() *Module {
	n := Module{Pos: m.Pos, Name: m.Name, HasHeader: m.HasHeader, Entry: m.Entry}
	n.Attrs = append([]Attr{}, m.Attrs...)
	n.Computations = make([]*Computation, len(m.Computations))
	for i, c := range m.Computations {
		cc := *c
		cc.Instructions = make([]*Instruction, len(c.Instructions))
		for j, in := range c.Instructions {
			ci := *in
			ci.Attrs = append([]Attr{}, in.Attrs...)
			ci.Operands = make([]*Operand, len(in.Operands))
			for k, o := range in.Operands {
				co := *o
				ci.Operands[k] = &co
			}
			cc.Instructions[j] = &ci
			if c.Root == in {
				cc.Root = &ci
			}
		}
		n.Computations[i] = &cc
		if m.Entry == c {
			n.Entry = &cc
		}
	}
	return &n
}

func (in *Instruction) WithLiteral(lit string) *Instruction {
	in.Literal = lit
	return in
}
