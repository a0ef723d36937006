package eval

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/stretchr/testify/require"
)

// TestEvalHeapBudget: a heap over MaxHeapBytes after a collection stops
// the evaluation at the instruction that made the large result, with the
// budget message; within it, the evaluation runs.
func TestEvalHeapBudget(t *testing.T) {
	m, err := hlo.Parse("big.hlo", `HloModule big
ENTRY e {
  x = f32[] parameter(0)
  b = f32[512,512] broadcast(x), dimensions={}
  ROOT n = f32[512,512] negate(b)
}`)
	require.NoError(t, err)
	args := []*Value{{Shape: &hlo.Shape{Elem: "f32"}, Data: []float64{2}}}
	_, err = (&Evaluator{File: "big.hlo", M: m, MaxHeapBytes: 1}).Run(args)
	require.ErrorContains(t, err, "big.hlo:4:3: b: broadcast: evaluating this module holds")
	require.ErrorContains(t, err, "MiB of host memory after a collection, more than the 0 MiB it may")

	out, err := (&Evaluator{File: "big.hlo", M: m, MaxHeapBytes: HeapBytes() + 1<<30}).Run(args)
	require.NoError(t, err)
	require.Equal(t, -2.0, out.Data[0])
}
