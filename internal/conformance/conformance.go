// Package conformance is the ISA conformance suite: small programs, each with
// its expected final state written in comments, run against every
// implementation of the ISA (the functional executor now, the timing model
// too), the way wazero runs one spec corpus against its interpreter and compiler.
//
// Expectations, one per comment line:
//
//	; chip: NAME                    chip preset to run on (default teach16)
//	; set: KEY=VALUE                a chip config override (repeatable), e.g. mxu.dataflow=os
//	; expect r3 = 42                scalar register (signed or unsigned 32-bit)
//	; expect s1 = 2                 semaphore
//	; expect z = {1, 2.5, -inf}     named tensor, every element exactly (NaN matches NaN)
//	; expect fault "substring"      the run faults and the message contains the substring
//	; expect deadlock "substring"   the run deadlocks; the report contains the substring
package conformance

import (
	"embed"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
)

//go:embed testdata/*.s
var files embed.FS

// Case is one conformance program.
type Case struct {
	Name         string
	Source       []byte
	Chip         string
	Sets         []string // chip config overrides
	Regs         map[uint8]uint32
	Sems         map[uint8]uint32
	Tensors      map[string][]string // expected elements' texts (see Match)
	Fault        string              // non-empty: expect a fault containing this
	Deadlock     string              // non-empty: expect a deadlock containing this ("" with WantDeadlock)
	WantDeadlock bool
}

// Cases loads the suite, sorted by name.
func Cases() ([]*Case, error) {
	ents, err := files.ReadDir("testdata")
	if err != nil {
		return nil, err
	}
	var out []*Case
	for _, e := range ents {
		b, err := files.ReadFile(path.Join("testdata", e.Name()))
		if err != nil {
			return nil, err
		}
		c, err := parse(e.Name(), b)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Assemble assembles the case.
func (c *Case) Assemble() (*exe.Program, error) {
	return asm.Assemble(c.Name, c.Source, asm.Options{ReadFile: func(string) ([]byte, error) {
		return nil, fmt.Errorf("conformance cases cannot include files")
	}})
}

func parse(name string, src []byte) (*Case, error) {
	c := &Case{Name: name, Source: src, Chip: "teach16", Regs: map[uint8]uint32{}, Sems: map[uint8]uint32{}, Tensors: map[string][]string{}}
	for i, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, ";") {
			continue
		}
		t = strings.TrimSpace(strings.TrimPrefix(t, ";"))
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, a...))
		}
		switch {
		case strings.HasPrefix(t, "chip:"):
			c.Chip = strings.TrimSpace(strings.TrimPrefix(t, "chip:"))
		case strings.HasPrefix(t, "set:"):
			c.Sets = append(c.Sets, strings.TrimSpace(strings.TrimPrefix(t, "set:")))
		case strings.HasPrefix(t, "expect fault "):
			s, err := strconv.Unquote(strings.TrimPrefix(t, "expect fault "))
			if err != nil {
				return nil, bad("expect fault wants a quoted string")
			}
			c.Fault = s
		case strings.HasPrefix(t, "expect deadlock"):
			c.WantDeadlock = true
			if rest := strings.TrimSpace(strings.TrimPrefix(t, "expect deadlock")); rest != "" {
				s, err := strconv.Unquote(rest)
				if err != nil {
					return nil, bad("expect deadlock wants a quoted string")
				}
				c.Deadlock = s
			}
		case strings.HasPrefix(t, "expect "):
			lhs, rhs, ok := strings.Cut(strings.TrimPrefix(t, "expect "), "=")
			if !ok {
				return nil, bad("expect wants name = value")
			}
			lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
			if n, ok := regIndex(lhs, 'r', isa.NumRegs); ok {
				v, err := parseU32(rhs)
				if err != nil {
					return nil, bad("%v", err)
				}
				c.Regs[n] = v
			} else if n, ok := regIndex(lhs, 's', isa.NumSems); ok {
				v, err := parseU32(rhs)
				if err != nil {
					return nil, bad("%v", err)
				}
				c.Sems[n] = v
			} else {
				vals, err := parseList(rhs)
				if err != nil {
					return nil, bad("%v", err)
				}
				c.Tensors[lhs] = vals
			}
		}
	}
	return c, nil
}

func regIndex(s string, p byte, n int) (uint8, bool) {
	if len(s) < 2 || s[0] != p {
		return 0, false
	}
	v, err := strconv.Atoi(s[1:])
	if err != nil || v < 0 || v >= n {
		return 0, false
	}
	return uint8(v), true
}

func parseU32(s string) (uint32, error) {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil || v < math.MinInt32 || v > math.MaxUint32 {
		return 0, fmt.Errorf("bad 32-bit value %q", s)
	}
	return uint32(v), nil
}

// ParseValue reads one expected element: a number, inf, -inf or nan.
func ParseValue(s string) (float64, error) {
	switch s {
	case "inf", "+inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	case "nan":
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

func parseList(s string) ([]string, error) {
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, fmt.Errorf("tensor values go in braces: {1, 2, 3}")
	}
	var out []string
	for _, f := range strings.Split(s[1:len(s)-1], ",") {
		f = strings.TrimSpace(f)
		if _, err := ParseValue(f); err != nil {
			return nil, fmt.Errorf("bad value %q", f)
		}
		out = append(out, f)
	}
	return out, nil
}

// Match reports whether got, a value of dtype d, is the expected element
// text: 64-bit integers compare exactly by their bits (a float64 cannot
// hold them all), everything else as Same does.
func Match(d isa.DType, got float64, text string) bool {
	if d.IsWide() {
		if v, err := strconv.ParseInt(text, 0, 64); err == nil {
			return isa.Bits(d, got) == uint64(v)
		}
		v, err := strconv.ParseUint(text, 0, 64)
		return err == nil && isa.Bits(d, got) == v
	}
	want, err := ParseValue(text)
	return err == nil && Same(got, want)
}

// Same reports whether got equals want exactly, NaN matching NaN and -0 matching 0 only by sign.
func Same(got, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return got == want && math.Signbit(got) == math.Signbit(want)
}
