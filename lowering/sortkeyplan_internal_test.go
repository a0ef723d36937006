package lowering

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

// TestKeyedSortPlan: which comparators order by a key of each element
// (and which key), what the kernel moves, and the transposed layout it
// picks, without simulating.
func TestKeyedSortPlan(t *testing.T) {
	const head = "HloModule m\n"
	for _, tc := range []struct {
		name, cmp       string
		elems           []string
		positions, live []bool
		rows, n         int64
		keyed           bool
		keyOp           string // the key's opcode
		greater         bool
		moved           []int // the operands moved (-1 the key, -2 the positions)
		T               int64
	}{
		{"the operand itself", `c {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}`, []string{"f32"}, nil, nil, 8, 1024, true, "parameter", false, []int{0, -2}, 32},
		{"an argsort's iota is the positions", `c {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=GT
}`, []string{"s32", "s32"}, []bool{false, true}, nil, 1, 1000, true, "parameter", true, []int{0, -2}, 32},
		{"a computed key; the operand only read for it", `c {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  na = f32[] negate(a)
  nb = f32[] negate(b)
  ROOT r = pred[] compare(na, nb), direction=LT
}`, []string{"f32", "s32"}, []bool{false, true}, []bool{false, true}, 1024, 8, true, "negate", false, []int{-1, -2}, 8},
		{"few elements: no transposed layout", `c {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}`, []string{"f32"}, nil, nil, 1, 8, true, "parameter", false, []int{0, -2}, 1},
		{"the sides differ", `c {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  nb = f32[] negate(b)
  ROOT r = pred[] compare(a, nb), direction=LT
}`, []string{"f32"}, nil, nil, 8, 64, false, "", false, nil, 0},
		{"a lexicographic order", `c {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  x = f32[] parameter(2)
  y = f32[] parameter(3)
  lt = pred[] compare(a, b), direction=LT
  eq = pred[] compare(a, b), direction=EQ
  lt2 = pred[] compare(x, y), direction=LT
  t = pred[] and(eq, lt2)
  ROOT r = pred[] or(lt, t)
}`, []string{"s32", "f32"}, nil, nil, 8, 64, false, "", false, nil, 0},
		{"a side reads the other's operand", `c {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, a), direction=LT
}`, []string{"f32"}, nil, nil, 8, 64, false, "", false, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := hlo.Parse("t.hlo", head+tc.cmp+"\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")
			require.NoError(t, err)
			p, ok := planKeyedSort(m.Computation("c"), tc.elems, tc.positions, tc.live, tc.rows, tc.n, 8<<20, 2)
			require.Equal(t, tc.keyed, ok)
			if !ok {
				return
			}
			require.Equal(t, tc.keyOp, p.key.Opcode)
			require.Equal(t, tc.greater, p.greater)
			var moved []int
			for _, a := range p.arrays {
				if !a.still {
					moved = append(moved, a.operand)
				}
			}
			require.Equal(t, tc.moved, moved)
			require.Equal(t, tc.T, p.T)
			require.Equal(t, p.rows*p.np, p.T*p.M)
			require.Equal(t, isa.S32, p.arrays[len(p.arrays)-1].dt, "the positions come last")
		})
	}
}
