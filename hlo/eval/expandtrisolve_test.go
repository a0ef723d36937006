package eval_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestExpandTriangularSolves: XLA's algorithms as the evaluator and the
// chips run them (expand.ExpandTriangularSolves) against a direct float64
// substitution (triangularSolveDirect), for every side, triangle,
// transpose and diagonal, on each of XLA's paths: one inverted block
// (n=5), several with a padded last one (n=300: 128+128+44), the direct
// solve of many small systems (9 batches of 3x3), and 1x1. The triangle a
// solve must not read holds 1e6; off-diagonal values are small next to
// the diagonal, so the systems are well conditioned and the results agree
// to 1e-11.
func TestExpandTriangularSolves(t *testing.T) {
	type shape struct {
		n     int
		batch string
	}
	for _, sh := range []shape{{5, ""}, {5, "2,"}, {3, "9,"}, {1, "2,"}, {300, ""}} {
		for _, left := range []bool{true, false} {
			for _, lower := range []bool{true, false} {
				for _, tr := range []string{"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"} {
					for _, unit := range []bool{false, true} {
						if sh.n == 300 && (tr == "ADJOINT" || unit) {
							continue // the big case's time on what differs
						}
						name := fmt.Sprintf("n=%d batch=%q left=%v lower=%v %s unit=%v", sh.n, sh.batch, left, lower, tr, unit)
						t.Run(name, func(t *testing.T) {
							checkTriangularSolve(t, sh.n, sh.batch, left, lower, tr, unit)
						})
					}
				}
			}
		}
	}
}

func checkTriangularSolve(t *testing.T, n int, batch string, left, lower bool, tr string, unit bool) {
	ad := fmt.Sprintf("%s%d,%d", batch, n, n)
	bd := fmt.Sprintf("%s%d,3", batch, n)
	if !left {
		bd = fmt.Sprintf("%s3,%d", batch, n)
	}
	rank := len(strings.Split(ad, ","))
	src := fmt.Sprintf(`HloModule ts
ENTRY e {
  r = f64[%[1]s] parameter(0)
  b = f64[%[2]s] parameter(1)
  i = f64[%[1]s] iota(), iota_dimension=%[3]d
  j = f64[%[1]s] iota(), iota_dimension=%[4]d
  eq = pred[%[1]s] compare(i, j), direction=EQ
  four = f64[] constant(4)
  fours = f64[%[1]s] broadcast(four), dimensions={}
  small = f64[] constant(%[10]g)
  smalls = f64[%[1]s] broadcast(small), dimensions={}
  big = f64[] constant(1e6)
  bigs = f64[%[1]s] broadcast(big), dimensions={}
  other = pred[%[1]s] compare(i, j), direction=%[9]s
  d = f64[%[1]s] add(r, fours)
  off = f64[%[1]s] multiply(r, smalls)
  a0 = f64[%[1]s] select(eq, d, off)
  a = f64[%[1]s] select(other, bigs, a0)
  ROOT x = f64[%[2]s] triangular-solve(a, b), left_side=%[5]v, lower=%[6]v, transpose_a=%[7]s, unit_diagonal=%[8]v
}
`, ad, bd, rank-2, rank-1, left, lower, tr, unit, map[bool]string{true: "LT", false: "GT"}[lower], 1/float64(n))
	m, err := hlo.Parse("ts.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("ts.hlo", m))
	args, err := eval.RandomArgs(m, 11)
	require.NoError(t, err)
	ev := &eval.Evaluator{File: "ts.hlo", M: m}
	got, err := ev.Run(args)
	require.NoError(t, err)
	// The reference: the same a, built by the evaluator, solved directly.
	var solve *hlo.Instruction
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpTriangularSolve {
			solve = in
		}
	}
	aOnly := m.Clone()
	aOnly.Entry.Root = aOnly.Entry.Instructions[len(aOnly.Entry.Instructions)-2]
	aOnly.Entry.Instructions = aOnly.Entry.Instructions[:len(aOnly.Entry.Instructions)-1]
	aOnly.Entry.Root.IsRoot = true
	aVal, err := (&eval.Evaluator{File: "ts.hlo", M: aOnly}).Run(args)
	require.NoError(t, err)
	want, err := ev.TriangularSolveDirect(solve, []*eval.Value{aVal, args[1]})
	require.NoError(t, err)
	require.Len(t, got.Data, len(want.Data))
	for k := range want.Data {
		require.InDelta(t, want.Data[k], got.Data[k], 1e-11*(1+math.Abs(want.Data[k])), "element %d", k)
	}
	x := m.Clone()
	require.NoError(t, expand.ExpandTriangularSolves(x))
	require.NoError(t, verify.Verify("ts.hlo", x))
	for _, c := range x.Computations {
		for _, in := range c.Instructions {
			require.NotEqual(t, "triangular-solve", in.Opcode)
		}
	}
}
