package partition

import (
	"fmt"
	"strconv"
	"strings"
)

// Shardy's attributes as JAX 0.11 prints them, in StableHLO and in the
// frontend_attributes of its HLO (with the quotes escaped):
//
//	#sdy.mesh<["x"=4, "y"=2]>
//	#sdy.sharding<@mesh, [{"x"}, {"y", ?}p1, {}], replicated={"z"}>
//	#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, []>]>
//	#sdy<manual_axes{"x"}>
//
// Open dimensions (?) and priorities (p1) steer Shardy's propagation;
// Pulse's partitioner propagates by its own rules, so they are read and
// dropped. Sub-axes are written "x":(2)4.

// sdyText is a cursor over one attribute's text.
type sdyText struct {
	s string
	i int
}

func (p *sdyText) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *sdyText) accept(lit string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.s[p.i:], lit) {
		p.i += len(lit)
		return true
	}
	return false
}

func (p *sdyText) expect(lit string) error {
	if !p.accept(lit) {
		return p.fail("want %q", lit)
	}
	return nil
}

func (p *sdyText) fail(format string, a ...any) error {
	rest := p.s[p.i:]
	if len(rest) > 24 {
		rest = rest[:24] + "..."
	}
	return fmt.Errorf("%s at %q in %s", fmt.Sprintf(format, a...), rest, p.s)
}

func (p *sdyText) str() (string, error) {
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", p.fail("want a quoted name")
	}
	j := strings.IndexByte(p.s[p.i+1:], '"')
	if j < 0 {
		return "", p.fail("unterminated name")
	}
	v := p.s[p.i+1 : p.i+1+j]
	p.i += j + 2
	return v, nil
}

func (p *sdyText) num() (int, error) {
	p.skipSpace()
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	v, err := strconv.Atoi(p.s[p.i:j])
	if err != nil || v > 1<<20 {
		return 0, p.fail("want a number")
	}
	p.i = j
	return v, nil
}

func (p *sdyText) symbol() (string, error) {
	p.skipSpace()
	if !p.accept("@") {
		return "", p.fail("want @mesh")
	}
	j := p.i
	for j < len(p.s) && (p.s[j] == '_' || p.s[j] == '.' || p.s[j] == '$' || p.s[j] >= '0' && p.s[j] <= '9' ||
		p.s[j] >= 'a' && p.s[j] <= 'z' || p.s[j] >= 'A' && p.s[j] <= 'Z') {
		j++
	}
	v := p.s[p.i:j]
	p.i = j
	return v, nil
}

func unescape(s string) string { return strings.ReplaceAll(strings.Trim(s, " "), `\"`, `"`) }

// ParseSdyMesh reads a mesh: `<["x"=4, "y"=2]>` with or without the
// #sdy.mesh prefix. A device_ids list other than the identity is refused.
func ParseSdyMesh(text string) (*Mesh, error) {
	p := &sdyText{s: unescape(text)}
	p.accept("#sdy.mesh")
	if err := p.expect("<"); err != nil {
		return nil, err
	}
	if err := p.expect("["); err != nil {
		return nil, err
	}
	var names []string
	var sizes []int
	for !p.accept("]") {
		if len(names) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.expect("="); err != nil {
			return nil, err
		}
		size, err := p.num()
		if err != nil {
			return nil, err
		}
		names, sizes = append(names, name), append(sizes, size)
	}
	if p.accept(",") {
		if err := p.expect("device_ids=["); err != nil {
			return nil, err
		}
		for k := 0; !p.accept("]"); k++ {
			if k > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
			d, err := p.num()
			if err != nil {
				return nil, err
			}
			if d != k {
				return nil, fmt.Errorf("mesh %s: device_ids in an order other than 0, 1, 2, ... are not partitioned yet", text)
			}
		}
	}
	if err := p.expect(">"); err != nil {
		return nil, err
	}
	return NewMesh(names, sizes)
}

// ParseSdyMeshes reads the module attribute xla.sdy.meshes:
// {mesh = #sdy.mesh<["x"=8]>, other = #sdy.mesh<...>}.
func ParseSdyMeshes(text string) (map[string]*Mesh, error) {
	s := unescape(text)
	s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "{"), "}")
	out := map[string]*Mesh{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		name, rest, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("xla.sdy.meshes %s: want name = #sdy.mesh<...>", text)
		}
		end := closing(rest, strings.IndexByte(rest, '<'))
		if end < 0 {
			return nil, fmt.Errorf("xla.sdy.meshes %s: unbalanced <>", text)
		}
		m, err := ParseSdyMesh(rest[:end+1])
		if err != nil {
			return nil, err
		}
		out[strings.Trim(strings.TrimSpace(name), `"`)] = m
		s = strings.TrimPrefix(strings.TrimSpace(rest[end+1:]), ",")
	}
	return out, nil
}

// closing is the index of the > that closes the < at i (-1 if none).
func closing(s string, i int) int {
	if i < 0 {
		return -1
	}
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// ParseSdySharding reads one sharding, `#sdy.sharding<@mesh, [...]>` or
// the per-value item `<@mesh, [...]>`, against the named meshes.
func ParseSdySharding(text string, meshes map[string]*Mesh) (Sharding, *Mesh, error) {
	p := &sdyText{s: unescape(text)}
	p.accept("#sdy.sharding")
	s, m, err := p.sharding(meshes)
	if err == nil {
		p.skipSpace()
		if p.i != len(p.s) {
			err = p.fail("unexpected text after the sharding")
		}
	}
	return s, m, err
}

// ParseSdyShardings reads #sdy.sharding_per_value<[<...>, ...]>.
func ParseSdyShardings(text string, meshes map[string]*Mesh) ([]Sharding, *Mesh, error) {
	p := &sdyText{s: unescape(text)}
	if err := p.expect("#sdy.sharding_per_value<["); err != nil {
		return nil, nil, err
	}
	var out []Sharding
	var mesh *Mesh
	for !p.accept("]") {
		if len(out) > 0 {
			if err := p.expect(","); err != nil {
				return nil, nil, err
			}
		}
		s, m, err := p.sharding(meshes)
		if err != nil {
			return nil, nil, err
		}
		if mesh != nil && m != mesh {
			return nil, nil, fmt.Errorf("%s: values on different meshes", text)
		}
		mesh = m
		out = append(out, s)
	}
	return out, mesh, p.expect(">")
}

func (p *sdyText) sharding(meshes map[string]*Mesh) (Sharding, *Mesh, error) {
	var s Sharding
	if err := p.expect("<"); err != nil {
		return s, nil, err
	}
	name, err := p.symbol()
	if err != nil {
		return s, nil, err
	}
	m := meshes[name]
	if m == nil {
		return s, nil, p.fail("no mesh @%s", name)
	}
	if err := p.expect(","); err != nil {
		return s, nil, err
	}
	if err := p.expect("["); err != nil {
		return s, nil, err
	}
	s.Dims = [][]int{}
	for !p.accept("]") {
		if len(s.Dims) > 0 {
			if err := p.expect(","); err != nil {
				return s, nil, err
			}
		}
		axes, err := p.axisList(m)
		if err != nil {
			return s, nil, err
		}
		if p.accept("p") { // a priority
			if _, err := p.num(); err != nil {
				return s, nil, err
			}
		}
		s.Dims = append(s.Dims, axes)
	}
	for p.accept(",") {
		key := ""
		for _, k := range []string{"replicated=", "unreduced="} {
			if p.accept(k) {
				key = k
			}
		}
		if key == "" {
			return s, nil, p.fail("want replicated= or unreduced=")
		}
		axes, err := p.axisList(m)
		if err != nil {
			return s, nil, err
		}
		if key == "unreduced=" && len(axes) > 0 {
			return s, nil, fmt.Errorf("%s: unreduced axes are not partitioned yet", p.s)
		}
	}
	if err := p.expect(">"); err != nil {
		return s, nil, err
	}
	seen := map[int]bool{}
	for _, a := range s.used() {
		if seen[a] {
			return s, nil, fmt.Errorf("%s: axis %s is used twice", p.s, m.Axes[a])
		}
		seen[a] = true
	}
	return s, m, nil
}

// axisList reads {"x", "y":(2)2, ?}.
func (p *sdyText) axisList(m *Mesh) ([]int, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var out []int
	for n := 0; !p.accept("}"); n++ {
		if n > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		if p.accept("?") {
			continue
		}
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		pre, size := 1, 0
		if p.accept(":") {
			if err := p.expect("("); err != nil {
				return nil, err
			}
			if pre, err = p.num(); err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			if size, err = p.num(); err != nil {
				return nil, err
			}
		}
		axes, err := m.named(name, pre, size)
		if err != nil {
			return nil, err
		}
		out = append(out, axes...)
	}
	return out, nil
}

// ParseManualAxes reads #sdy<manual_axes{"x", "y"}> into prime axes.
func ParseManualAxes(text string, m *Mesh) ([]int, error) {
	p := &sdyText{s: unescape(text)}
	if err := p.expect("#sdy<manual_axes"); err != nil {
		return nil, err
	}
	axes, err := p.axisList(m)
	if err != nil {
		return nil, err
	}
	return axes, p.expect(">")
}
