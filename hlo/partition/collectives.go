package partition

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// collectiveKinds are the collectives a partitioned module is compared
// by (the -start forms count as their op).
var collectiveKinds = map[string]bool{"all-reduce": true, "all-gather": true, "reduce-scatter": true, "all-to-all": true, "collective-permute": true}

// ListCollectives lists the collectives of a partitioned module (XLA's,
// say), in every computation, with their groups in global device ids and
// one device's operand bytes: what Compare holds Pulse's partition
// against.
func ListCollectives(m *hlo.Module) ([]Collective, error) {
	d, err := hlo.ModuleDevices(m)
	if err != nil {
		return nil, err
	}
	var out []Collective
	for _, c := range m.Computations {
		defs := map[string]*hlo.Instruction{}
		for _, in := range c.Instructions {
			defs[in.Name] = in
		}
		for _, in := range c.Instructions {
			kind := strings.TrimSuffix(in.Opcode, "-start")
			if !collectiveKinds[kind] {
				continue
			}
			col := Collective{Name: in.Name, Kind: kind, For: c.Name}
			for _, o := range in.Operands {
				s := o.Shape
				if s == nil && defs[o.Name] != nil {
					s = defs[o.Name].Shape
				}
				if s != nil {
					col.Bytes += shapeBytes(s)
					if !s.IsTuple {
						col.Elem = s.Elem
					}
				}
			}
			if kind != "collective-permute" {
				seen := map[int]bool{}
				for self := range d.N() {
					if seen[self] {
						continue
					}
					g, err := d.Participants(in, self)
					if err != nil {
						return nil, fmt.Errorf("%s:%s: %s: %v", m.Name, in.Pos, in.Name, err)
					}
					for _, x := range g {
						seen[x] = true
					}
					col.Groups = append(col.Groups, g)
				}
			}
			out = append(out, col)
		}
	}
	return out, nil
}

func shapeBytes(s *hlo.Shape) int64 {
	if s.IsTuple {
		var n int64
		for _, e := range s.Tuple {
			n += shapeBytes(e)
		}
		return n
	}
	return s.Elems() * int64(elemSize(s.Elem))
}

// Match is how one of Pulse's collectives compares with another
// partition's (XLA's): Same when kind, groups and bytes agree; OtherType
// when they move the same elements as another type (XLA on CPU moves f32
// where a TPU's program moves bf16); Combined when the other partition
// merged it with others of the same kind and groups into one (XLA's
// all-reduce combiner); GroupsOnly when only kind and groups agree.
type Match struct {
	Pulse                                 Collective
	Other                                 *Collective
	Same, OtherType, Combined, GroupsOnly bool
}

// Compare pairs each of Pulse's collectives with one of other's: an
// identical one, then one moving the same elements as another type, then
// one whose bytes are the sum of several of Pulse's of the same kind and
// groups (combined), then one of the same kind and groups. What is left
// of other is returned as unmatched.
func Compare(pulse, other []Collective) (matches []Match, unmatched []Collective) {
	used := make([]bool, len(other))
	matches = make([]Match, len(pulse))
	done := make([]bool, len(pulse))
	pass := func(ok func(c, o Collective) bool, set func(m *Match)) {
		for k, c := range pulse {
			if done[k] {
				continue
			}
			for i, o := range other {
				if !used[i] && o.Kind == c.Kind && sameGroups(o.Groups, c.Groups) && ok(c, o) {
					used[i], done[k] = true, true
					matches[k] = Match{Pulse: c, Other: &other[i]}
					set(&matches[k])
					break
				}
			}
		}
	}
	pass(func(c, o Collective) bool { return c.Bytes == o.Bytes }, func(m *Match) { m.Same = true })
	pass(func(c, o Collective) bool {
		return c.Elem != "" && o.Elem != "" && c.Bytes/int64(elemSize(c.Elem)) == o.Bytes/int64(elemSize(o.Elem))
	}, func(m *Match) { m.OtherType = true })
	// Combined: an unused one of other whose bytes are the sum of the
	// unmatched of Pulse's of its kind and groups, in program order.
	for i, o := range other {
		if used[i] {
			continue
		}
		var ks []int
		var sum int64
		for k, c := range pulse {
			if !done[k] && c.Kind == o.Kind && sameGroups(c.Groups, o.Groups) && sum < o.Bytes {
				ks = append(ks, k)
				sum += c.Bytes
			}
		}
		if len(ks) > 1 && sum == o.Bytes {
			used[i] = true
			for _, k := range ks {
				done[k] = true
				matches[k] = Match{Pulse: pulse[k], Other: &other[i], Combined: true}
			}
		}
	}
	pass(func(c, o Collective) bool { return true }, func(m *Match) { m.GroupsOnly = true })
	for k, c := range pulse {
		if !done[k] {
			matches[k] = Match{Pulse: c}
		}
	}
	for i, o := range other {
		if !used[i] {
			unmatched = append(unmatched, o)
		}
	}
	return matches, unmatched
}

func sameGroups(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

// GroupsText writes groups as HLO does: {{0,1},{2,3}}.
func GroupsText(groups [][]int) string {
	if groups == nil {
		return "-"
	}
	return groupsText(groups)
}
