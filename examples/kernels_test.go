// Package examples holds the example kernels (in kernels/); this test runs each on the
// functional executor and checks its result against a float64 reference
// computed with gonum.
package examples

import (
	"math"
	"os"
	"testing"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/ref"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func run(t *testing.T, file, chip string, sets ...string) *ref.Machine {
	t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	prog, err := asm.Assemble(file, src, asm.Options{})
	require.NoError(t, err)
	c, err := config.Load(chip, sets)
	require.NoError(t, err)
	m, err := ref.New(c, prog)
	require.NoError(t, err)
	require.NoError(t, m.Run(ref.Options{}))
	return m
}

func tensor(t *testing.T, m *ref.Machine, name string) (*mat.Dense, []float64) {
	t.Helper()
	v, sym, err := m.ReadTensor(name)
	require.NoError(t, err)
	rows, cols := 1, int(sym.Shape[0])
	if len(sym.Shape) == 2 {
		rows, cols = int(sym.Shape[0]), int(sym.Shape[1])
	}
	return mat.NewDense(rows, cols, v), v
}

func TestVAdd(t *testing.T) {
	for _, k := range []struct{ file, chip string }{
		{"kernels/vadd.s", "tpuv1"}, {"kernels/vadd.s", "tpuv4core"}, {"kernels/vadd.s", "trn1nc"},
		{"kernels/vadd_teach16.s", "teach16"}, {"kernels/vadd_teach16.s", "tpuv1"},
	} {
		chip := k.chip
		m := run(t, k.file, chip)
		_, x := tensor(t, m, "x")
		_, y := tensor(t, m, "y")
		_, z := tensor(t, m, "z")
		want := make([]float64, len(x))
		floats.AddTo(want, x, y)
		for i := range want {
			// The sum of two f32 values, rounded once to f32, is exact here.
			require.Equal(t, float64(float32(want[i])), z[i], "%s z[%d]", chip, i)
		}
	}
}

// checkGEMM compares C with A@B in float64. Each output is a sum of K products
// accumulated in f32, so its error is at most about K * 2^-24 * sum|a||b|.
func checkGEMM(t *testing.T, m *ref.Machine) {
	a, _ := tensor(t, m, "A")
	b, _ := tensor(t, m, "B")
	c, _ := tensor(t, m, "C")
	var want, absA, absB, bound mat.Dense
	want.Mul(a, b)
	absA.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, a)
	absB.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, b)
	bound.Mul(&absA, &absB)
	k, _ := b.Dims()
	r, cols := want.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < cols; j++ {
			tol := float64(k)*math.Pow(2, -24)*bound.At(i, j) + 1e-30
			require.InDelta(t, want.At(i, j), c.At(i, j), tol, "C[%d,%d]", i, j)
		}
	}
	require.Greater(t, mat.Norm(c, 1), 0.0, "C is all zero")
}

func TestGEMMTile(t *testing.T) { checkGEMM(t, run(t, "kernels/gemm_tile.s", "teach16")) }

// The output- and input-stationary kernels: a weight tile longer (os) or
// wider (is) than the array, one instruction, the same values.
func TestGEMMOutputAndInputStationary(t *testing.T) {
	checkGEMM(t, run(t, "kernels/gemm_os.s", "tpuv4core", "mxu.dataflow=os"))
	checkGEMM(t, run(t, "kernels/gemm_is.s", "tpuv4core", "mxu.dataflow=is"))
}

func TestGEMM256(t *testing.T) {
	for _, chip := range []string{"tpuv4core", "trn1nc"} {
		t.Run(chip, func(t *testing.T) {
			m := run(t, "kernels/gemm256.s", chip)
			checkGEMM(t, m)
			// Every unit drained and the semaphores balanced as the kernel documents.
			require.Equal(t, uint32(0), m.Sems[1])
			require.Equal(t, uint32(0), m.Sems[2])
			require.Equal(t, uint32(0), m.Sems[3])
		})
	}
}

func TestSoftmax(t *testing.T) {
	m := run(t, "kernels/softmax.s", "teach16")
	x, _ := tensor(t, m, "X")
	y, _ := tensor(t, m, "Y")
	r, c := x.Dims()
	for i := 0; i < r; i++ {
		row := mat.Row(nil, i, x)
		mx := floats.Max(row)
		e := make([]float64, c)
		for j := range row {
			e[j] = math.Exp(row[j] - mx)
		}
		s := floats.Sum(e)
		for j := range e {
			require.InEpsilon(t, e[j]/s, y.At(i, j), 2e-6, "Y[%d,%d]", i, j)
		}
	}
}

func TestLayerNorm(t *testing.T) {
	m := run(t, "kernels/layernorm.s", "teach16")
	x, _ := tensor(t, m, "X")
	_, g := tensor(t, m, "gamma")
	_, b := tensor(t, m, "beta")
	y, _ := tensor(t, m, "Y")
	r, c := x.Dims()
	for i := 0; i < r; i++ {
		row := mat.Row(nil, i, x)
		mean := floats.Sum(row) / float64(c)
		v := 0.0
		for _, e := range row {
			v += (e - mean) * (e - mean)
		}
		rstd := 1 / math.Sqrt(v/float64(c)+1e-5)
		for j := range row {
			want := (row[j]-mean)*rstd*g[j] + b[j]
			require.InDelta(t, want, y.At(i, j), 2e-5*(1+math.Abs(want)), "Y[%d,%d]", i, j)
		}
	}
}

// TestDeterminism: the same program gives the same executable bytes and the
// same final state, byte for byte.
func TestDeterminism(t *testing.T) {
	src, err := os.ReadFile("kernels/gemm256.s")
	require.NoError(t, err)
	p1, err := asm.Assemble("gemm256.s", src, asm.Options{})
	require.NoError(t, err)
	p2, err := asm.Assemble("gemm256.s", src, asm.Options{})
	require.NoError(t, err)
	b1, _ := p1.Marshal()
	b2, _ := p2.Marshal()
	require.Equal(t, b1, b2)
	m1 := run(t, "kernels/gemm256.s", "tpuv4core")
	m2 := run(t, "kernels/gemm256.s", "tpuv4core")
	require.Equal(t, m1.Snapshot(), m2.Snapshot())
	require.Empty(t, ref.Diff(m1, m2))
}
