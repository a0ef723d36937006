package eval

import (
	"math"
	"os"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// evalText evaluates the module src on args.
func evalText(t *testing.T, src string, args ...*Value) *Value {
	t.Helper()
	v, err := EvaluateText("e.hlo", src, args...)
	require.NoError(t, err)
	return v
}

// Hand-computed cases, one module per group of ops.
func TestEvalOps(t *testing.T) {
	src := `
add2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[2,3] parameter(0)
  t = f32[3,2] transpose(x), dimensions={1,0}
  r = f32[3,2] reshape(x)
  s = f32[2] reduce(x, z), dimensions={1}, to_apply=add2
  z = f32[] constant(0)
  m = f32[3] reduce(x, ninf), dimensions={0}, to_apply=max2
  ninf = f32[] constant(-inf)
  b = f32[2,3] broadcast(s), dimensions={0}
  d = f32[2,3] subtract(x, b)
  c = pred[2,3] compare(x, b), direction=GT
  sel = f32[2,3] select(c, x, b)
  i = s32[2,3] iota(), iota_dimension=1
  cv = s8[2,3] convert(x)
  h = bf16[2,3] convert(x)
  sl = f32[2,2] slice(x), slice={[0:2], [1:3]}
  cc = f32[2,5] concatenate(x, sl), dimensions={1}
  rv = f32[2,3] reverse(x), dimensions={1}
  ROOT out = (f32[3,2], f32[3,2], f32[2], f32[3], f32[2,3], pred[2,3], f32[2,3], s32[2,3], s8[2,3], bf16[2,3], f32[2,5], f32[2,3]) tuple(t, r, s, m, d, c, sel, i, cv, h, cc, rv)
}
`
	// Definitions must come before uses: reorder z and ninf.
	src = reorder(src)
	v := evalText(t, src, Array("f32", []int64{2, 3}, 1, -2, 3.5, 200, 5, 1.00390625))
	get := func(i int) []float64 { return v.Tuple[i].Data }
	require.Equal(t, []float64{1, 200, -2, 5, 3.5, 1.00390625}, get(0), "transpose")
	require.Equal(t, []float64{1, -2, 3.5, 200, 5, 1.00390625}, get(1), "reshape keeps row-major order")
	require.Equal(t, []float64{2.5, float64(float32(206.00390625))}, get(2), "reduce add")
	require.Equal(t, []float64{200, 5, 3.5}, get(3), "reduce max")
	require.Equal(t, []float64{-1.5, -4.5, 1}, get(4)[:3], "subtract a broadcast")
	require.Equal(t, []float64{0, 0, 1, 0, 0, 0}, get(5), "compare GT")
	require.Equal(t, []float64{0, 1, 2, 0, 1, 2}, get(7), "iota")
	require.Equal(t, []float64{1, -2, 3, 127, 5, 1}, get(8), "convert to s8 truncates and saturates")
	require.Equal(t, []float64{1, -2, 3.5, 200, 5, 1}, get(9), "bf16 rounds 1.00390625 to even")
	require.Equal(t, []float64{1, -2, 3.5, -2, 3.5, 200, 5, 1.00390625, 5, 1.00390625}, get(10), "slice and concatenate")
	require.Equal(t, []float64{3.5, -2, 1, 1.00390625, 5, 200}, get(11), "reverse")
}

// reorder moves the constants of the test module before their uses.
func reorder(src string) string {
	m, _ := hlo.Parse("x", src)
	e := m.Entry
	var consts, rest []*hlo.Instruction
	for _, in := range e.Instructions {
		if in.Opcode == hlo.OpConstant || in.Opcode == hlo.OpParameter {
			consts = append(consts, in)
		} else {
			rest = append(rest, in)
		}
	}
	e.Instructions = append(consts, rest...)
	return m.String()
}

func TestEvalIntegerSemantics(t *testing.T) {
	v := evalText(t, `ENTRY e {
  a = s32[4] parameter(0)
  b = s32[4] parameter(1)
  d = s32[4] divide(a, b)
  s = s32[4] add(a, a)
  ROOT t = (s32[4], s32[4]) tuple(d, s)
}`, Array("s32", []int64{4}, 7, -7, 5, 2147483647), Array("s32", []int64{4}, 2, 2, 0, 1))
	require.Equal(t, []float64{3, -3, -1, 2147483647}, v.Tuple[0].Data, "truncating division, x/0 = -1")
	require.Equal(t, []float64{14, -14, 10, -2}, v.Tuple[1].Data, "wrap-around")
}

// TestEvalDotAgainstGonum compares a batched dot with a float64 reference.
func TestEvalDotAgainstGonum(t *testing.T) {
	m, err := hlo.Parse("d.hlo", `ENTRY e {
  a = f32[2,5,7] parameter(0)
  b = f32[2,7,3] parameter(1)
  ROOT d = f32[2,5,3] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}`)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("d.hlo", m))
	args, err := RandomArgs(m, 3)
	require.NoError(t, err)
	v, err := (&Evaluator{File: "d.hlo", M: m}).Run(args)
	require.NoError(t, err)
	for b := 0; b < 2; b++ {
		a := mat.NewDense(5, 7, args[0].Data[b*35:(b+1)*35])
		w := mat.NewDense(7, 3, args[1].Data[b*21:(b+1)*21])
		var want mat.Dense
		want.Mul(a, w)
		for i := 0; i < 5; i++ {
			for j := 0; j < 3; j++ {
				require.InDelta(t, want.At(i, j), v.Data[b*15+i*3+j], 1e-6)
			}
		}
	}
}

// TestEvalCorpus evaluates the softmax, layernorm, attention, GEMM-GELU,
// RMS-norm and MLP corpus modules on random inputs.
func TestEvalCorpus(t *testing.T) {
	corpus.HLOFiles(t)
	for _, name := range []string{"test_softmax_f32_bf16out.hlo", "test_layernorm_fwd_4d.hlo", "test_layernorm_train_bwd_2d.hlo",
		"jax_attention_bias_softmax_fwd_bwd_bf16.hlo", "jax_causal_attention_fwd_bwd_bf16.hlo", "torchxla_mlp_single_final.hlo",
		"test_gemm_bias_gelu_tanh.hlo", "test_rmsnorm_diamond.hlo", "jax_nsys_example_dot_add.hlo"} {
		t.Run(name, func(t *testing.T) {
			f := corpus.Path(t, "hlo", name)
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			m, err := hlo.Parse(f, string(src))
			require.NoError(t, err)
			require.NoError(t, verify.Verify(f, m))
			args, err := RandomArgs(m, 1)
			require.NoError(t, err)
			v, err := (&Evaluator{File: f, M: m}).Run(args)
			require.NoError(t, err)
			require.NotNil(t, v)
			if name == "test_softmax_f32_bf16out.hlo" {
				// Every softmax row sums to 1 (bf16 output: within bf16 precision).
				cols := v.Shape.Dims[len(v.Shape.Dims)-1]
				for r := int64(0); r < int64(len(v.Data))/cols; r++ {
					sum := 0.0
					for c := int64(0); c < cols; c++ {
						sum += v.Data[r*cols+c]
					}
					require.InDelta(t, 1, sum, 0.02, "row %d", r)
					if r > 50 {
						break
					}
				}
			}
			finite := 0
			var walk func(*Value)
			walk = func(x *Value) {
				for _, t := range x.Tuple {
					walk(t)
				}
				for _, d := range x.Data {
					if !math.IsNaN(d) && !math.IsInf(d, 0) {
						finite++
					}
				}
			}
			walk(v)
			require.Greater(t, finite, 0)
		})
	}
}

// TestEvalMemoryBudget: a module too big for the host stops with an error.
func TestEvalMemoryBudget(t *testing.T) {
	m, err := hlo.Parse("big.hlo", "ENTRY e {\n a = f32[1000] parameter(0)\n b = f32[1000] negate(a)\n ROOT c = f32[1000] exponential(b)\n}\n")
	require.NoError(t, err)
	args, _ := RandomArgs(m, 1)
	_, err = (&Evaluator{File: "big.hlo", M: m, MaxLiveElements: 2500}).Run(args)
	require.ErrorContains(t, err, "big.hlo:4:2: c: exponential: evaluating this module needs more than 2500 live elements")
	// Dropping values after their last use keeps a chain within budget.
	_, err = (&Evaluator{File: "big.hlo", M: m, MaxLiveElements: 3000}).Run(args)
	require.NoError(t, err)
}

func TestEvalConditional(t *testing.T) {
	v := evalText(t, `
neg {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
same {
  x = f32[2] parameter(0)
  ROOT c = f32[2] copy(x)
}
ENTRY e {
  i = s32[] parameter(0)
  a = f32[2] parameter(1)
  ROOT r = f32[2] conditional(i, a, a), branch_computations={neg, same}
}`, Array("s32", nil, 0), Array("f32", []int64{2}, 1, -2))
	require.Equal(t, []float64{-1, 2}, v.Data)
}

// TestEvalLiveAccounting: packed arrays count half against the live
// budget, the float64 temporaries they are read through count while their
// instruction runs, and a buffer aliased by a tuple, a get-tuple-element or
// a reshape counts once.
func TestEvalLiveAccounting(t *testing.T) {
	const four = "ENTRY e {\n a = f32[1000] parameter(0)\n b = f32[1000] negate(a)\n c = f32[1000] exponential(a)\n d = f32[1000] sine(a)\n e = f32[1000] cosine(a)\n" +
		" f = f32[1000] add(b, c)\n g = f32[1000] add(d, e)\n ROOT h = f32[1000] add(f, g)\n}\n"
	for _, tc := range []struct {
		name, src string
		packMin   int
		peak      int64
	}{
		// a, b..e packed (4 x 500), f's operands unpacked (2000), f.
		{"packed", four, 1, 1000 + 2000 + 2000},
		// a, b..e, f.
		{"float64", four, 1 << 30, 6000},
		// s32 values beyond 2^24 stay float64: a, kb, b (k is dropped).
		{"wide ints", "ENTRY e {\n a = s32[1000] parameter(0)\n k = s32[] constant(100000001)\n kb = s32[1000] broadcast(k), dimensions={}\n" +
			" b = s32[1000] add(a, kb)\n ROOT d = s32[1000] negate(b)\n}\n", 1, 3000},
		// b and x are packed; b is one buffer however many values alias
		// it, and each is unpacked in place where it is read last: a, x,
		// c, h.
		{"aliases", "ENTRY e {\n a = f32[1000] parameter(0)\n b = f32[1000] negate(a)\n x = f32[1000] exponential(a)\n t = (f32[1000], f32[1000]) tuple(b, b)\n" +
			" g = f32[1000] get-tuple-element(t), index=1\n r = f32[10,100] reshape(g)\n c = f32[10,100] sine(r)\n cr = f32[1000] reshape(c)\n ROOT h = f32[1000] add(cr, x)\n}\n", 1, 4000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(n int) { packMin = n }(packMin)
			packMin = tc.packMin
			m, err := hlo.Parse("m.hlo", tc.src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("m.hlo", m))
			args, _ := RandomArgs(m, 1)
			e := &Evaluator{File: "m.hlo", M: m}
			v, err := e.Run(args)
			require.NoError(t, err)
			require.Equal(t, tc.peak, e.PeakLiveElements())
			require.Equal(t, int64(len(args[0].Data)), e.live, "every buffer but the argument released")
			_, err = (&Evaluator{File: "m.hlo", M: m, MaxLiveElements: tc.peak - 1}).Run(args)
			require.ErrorContains(t, err, "live elements", "a budget below the peak stops the evaluator")
			packMin = 1 << 30
			want, err := (&Evaluator{File: "m.hlo", M: m}).Run(args)
			require.NoError(t, err)
			require.Equal(t, want.Data, v.Data)
		})
	}
}

func TestFilled(t *testing.T) {
	cases := []struct {
		elem string
		dims []int64
		x    float64
		want float64
		err  string
	}{
		{"f32", []int64{2, 3}, 6, 6, ""},
		{"f32", nil, 0.1, float64(float32(0.1)), ""},
		{"bf16", []int64{4}, 0.8, 0.80078125, ""},
		{"s64", nil, 96000, 96000, ""},
		{"u8", []int64{2}, 255, 255, ""},
		{"pred", []int64{3}, 1, 1, ""},
		{"f16", nil, 1e5, 0, "100000 is beyond the range of f16"},
		{"s32", nil, 2.5, 0, "s32 cannot hold 2.5"},
		{"u8", nil, 256, 0, "u8 cannot hold 256"},
		{"s8", nil, -129, 0, "s8 cannot hold -129"},
		{"pred", nil, 2, 0, "pred holds 0 or 1, not 2"},
		{"tuple", nil, 1, 0, "is not an array"},
	}
	for _, c := range cases {
		t.Run(c.elem, func(t *testing.T) {
			s := &hlo.Shape{Elem: c.elem, Dims: c.dims}
			if c.elem == "tuple" {
				s = &hlo.Shape{IsTuple: true, Tuple: []*hlo.Shape{{Elem: "f32"}}}
			}
			v, err := Filled(s, c.x)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, v.Data, int(s.Elems()))
			for _, got := range v.Data {
				require.Equal(t, c.want, scalar.WideNumber(s.Elem, got))
			}
		})
	}
}
