package hlogen

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// Every byte string, the empty one included, makes a module that parses
// and verifies, the same one every time; over many strings every op of
// Ops() occurs, and no array exceeds MaxBigElems.
func TestGenerate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	seen := map[string]bool{}
	inputs := [][]byte{nil, {}, {7}}
	for range 3000 {
		b := make([]byte, 1+r.IntN(200))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		inputs = append(inputs, b)
	}
	for _, b := range inputs {
		src := Generate(b)
		require.Equal(t, src, Generate(b), "deterministic")
		m, err := hlo.Parse("g.hlo", src)
		require.NoError(t, err, src)
		require.NoError(t, verify.Verify("g.hlo", m), src)
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				seen[in.Opcode] = true
				if in.Shape != nil && !in.Shape.IsTuple {
					require.LessOrEqual(t, in.Shape.Elems(), int64(MaxBigElems), "%s in\n%s", in.Name, src)
				}
			}
		}
	}
	for _, op := range Ops() {
		require.True(t, seen[op], "no module used %s", op)
	}
	require.False(t, strings.Contains(Generate(nil), "ROOT out = ()"))
}
