package fusion_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/fusion"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/stretchr/testify/require"
)

const mlpSoftmax = `HloModule mlp
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  w = f32[16,32] parameter(1)
  b = f32[32] parameter(2)
  d = f32[8,32] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[8,32] broadcast(b), dimensions={1}
  z = f32[] constant(0)
  zb = f32[8,32] broadcast(z), dimensions={}
  a = f32[8,32] add(d, bb)
  r = f32[8,32] maximum(a, zb)
  ninf = f32[] constant(-inf)
  mx = f32[8] reduce(r, ninf), dimensions={1}, to_apply=max
  mxb = f32[8,32] broadcast(mx), dimensions={0}
  s = f32[8,32] subtract(r, mxb)
  ex = f32[8,32] exponential(s)
  sm = f32[8] reduce(ex, z), dimensions={1}, to_apply=add
  smb = f32[8,32] broadcast(sm), dimensions={0}
  ROOT o = f32[8,32] divide(ex, smb)
}
`

// TestFuseKernels: a dense layer with ReLU and a softmax become the five
// kernels XLA makes of them. The exponential feeds both the sum and the
// division, so it is not fused into either (that would compute it twice).
func TestFuseKernels(t *testing.T) {
	m, err := hlo.Parse("mlp.hlo", mlpSoftmax)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("mlp.hlo", m))
	fm, st, err := fusion.Fuse(m)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"kOutput": 1, "kInput": 2, "kLoop": 2}, st.Fusions)
	// The kernels' operands and results, each once: the dot's x, w and b
	// (512 + 2,048 + 128 B) and its [8,32] result (1,024), the max's r and
	// [8] (1,024 + 32), the exp's r, max and result (2,080), the sum's
	// (1,056), the divide's (2,080).
	require.Equal(t, int64(3712+1056+2080+1056+2080), st.KernelBytes)
	var entry []string
	for _, in := range fm.Entry.Instructions {
		k, _ := in.Attr("kind")
		entry = append(entry, strings.TrimSpace(in.Opcode+" "+k))
	}
	require.Equal(t, []string{"parameter", "parameter", "parameter",
		"fusion kOutput", // dot + bias + relu
		"fusion kInput",  // max over rows
		"fusion kLoop",   // subtract max, exp
		"fusion kInput",  // sum over rows
		"fusion kLoop",   // divide
	}, entry)
	// The first kernel holds the dot and its epilogue, with the zero
	// constant and the broadcasts inside.
	body := fm.Computation(mustAttr(t, fm.Entry.Instructions[3], "calls"))
	var ops []string
	for _, in := range body.Instructions {
		ops = append(ops, in.Opcode)
	}
	require.Equal(t, []string{"parameter", "parameter", "parameter", "dot", "broadcast", "constant", "broadcast", "add", "maximum"}, ops)
	require.Equal(t, 1, st.Duplicated, "the zero constant feeds the relu and the sum")
	checkFusedModule(t, "mlp.hlo", mlpSoftmax, fm, 1<<20)
}

func mustAttr(t *testing.T, in *hlo.Instruction, key string) string {
	v, ok := in.Attr(key)
	require.True(t, ok, key)
	return v
}

// TestFuseLeavesFusedModules: a post-fusion module comes back unchanged.
func TestFuseLeavesFusedModules(t *testing.T) {
	m, err := hlo.Parse("mlp.hlo", mlpSoftmax)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("mlp.hlo", m))
	fm, _, err := fusion.Fuse(m)
	require.NoError(t, err)
	text := fm.String()
	again, err := hlo.Parse("fused.hlo", text)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("fused.hlo", again))
	out, st, err := fusion.Fuse(again)
	require.NoError(t, err)
	require.True(t, st.AlreadyFused)
	require.Equal(t, text, out.String())
}

// opCounts counts the instructions that do work, by opcode: what fusion
// must neither lose nor duplicate (broadcasts, iotas and constants may be
// duplicated, and cheap values' copies are named .clone; parameters and
// fusions are added, and a multi-output fusion's tuple and
// get-tuple-elements).
// structural ops move no data: fusion adds them.
var structural = hlo.OpSet("parameter fusion tuple get-tuple-element")

func opCounts(m *hlo.Module) map[string]int {
	n := map[string]int{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if !fusion.CheapOps[in.Opcode] && !structural[in.Opcode] && !strings.Contains(in.Name, ".clone") {
				n[in.Opcode]++
			}
		}
	}
	return n
}

// checkFusedModule: the fused module prints, parses and verifies; it does
// the same work; and when the original evaluates within the budget, the
// fused one gives the same bits.
func checkFusedModule(t *testing.T, name, src string, fm *hlo.Module, budget int64) (evaluated bool) {
	t.Helper()
	orig, err := hlo.Parse(name, src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify(name, orig))
	text := fm.String()
	again, err := hlo.Parse(name+".fused", text)
	require.NoError(t, err, "%s: the fused module must parse", name)
	require.NoError(t, verify.Verify(name+".fused", again), "%s: the fused module must verify", name)
	require.Equal(t, opCounts(orig), opCounts(again), "%s: fusion must not lose or duplicate work", name)
	if eval.ParamElements(orig) > budget {
		return false
	}
	args, err := eval.RandomArgs(orig, 7)
	if err != nil {
		return false
	}
	want, err := (&eval.Evaluator{File: name, M: orig, MaxLiveElements: budget, MaxWhileIterations: 1000}).Run(args)
	if err != nil {
		require.NotContains(t, err.Error(), "internal evaluator error", name)
		return false
	}
	// A fused call keeps its operands live until it returns: allow more.
	got, err := (&eval.Evaluator{File: name + ".fused", M: again, MaxLiveElements: 8 * budget, MaxWhileIterations: 1000}).Run(args)
	require.NoError(t, err, "%s: the original evaluates, the fused module must too", name)
	requireSameBits(t, name, want, got)
	return true
}

func requireSameBits(t *testing.T, name string, want, got *eval.Value) {
	t.Helper()
	if d := eval.BitDiff(want, got); d != "" {
		t.Fatalf("%s: before fusion, against after: %s", name, d)
	}
}

// TestFuseCorpus: fusion runs on every complete corpus module; the result
// verifies and does the same work, post-fusion dumps are unchanged, and
// every module that evaluates within a 4M-element budget gives the same
// bits before and after fusion.
func TestFuseCorpus(t *testing.T) {
	var fused, evaluated, unchanged int
	for _, f := range corpus.HLOFiles(t) {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		m, err := hlo.Parse(f, string(src))
		if err != nil {
			continue // the two truncated dumps (TestCorpusParsesAndRoundTrips)
		}
		require.NoError(t, verify.Verify(f, m))
		start := time.Now()
		fm, st, err := fusion.Fuse(m)
		require.NoError(t, err, f)
		d := time.Since(start)
		if st.AlreadyFused {
			unchanged++
		}
		fused++
		if checkFusedModule(t, filepath.Base(f), string(src), fm, 1<<22) {
			evaluated++
		}
		t.Logf("%-58s %s (%v)", filepath.Base(f), st, d.Round(time.Millisecond))
	}
	t.Logf("fused %d modules (%d already fused, unchanged); %d evaluated before and after with identical bits", fused, unchanged, evaluated)
	require.Equal(t, 50, fused)
}

// TestFuseXLATestsCorpus: the same checks on every module of XLA's tests
// that verifies.
func TestFuseXLATestsCorpus(t *testing.T) {
	for _, multi := range []bool{false, true} {
		t.Run(fmt.Sprintf("multi-output=%v", multi), func(t *testing.T) {
			var n, changed, withExtra, evaluated int
			corpus.ForEachXLACase(t, func(c corpus.XLACase) {
				m, err := hlo.Parse("case.hlo", c.Text)
				if err != nil || verify.Verify("case.hlo", m) != nil {
					return
				}
				n++
				fm, st, err := fusion.FuseWith(m, fusion.FuseOptions{MultiOutput: multi})
				require.NoError(t, err, "%s:%d", c.Source, c.Line)
				if st.Fused > 0 {
					changed++
				}
				withExtra += st.MultiOutput
				if checkFusedModule(t, fmt.Sprintf("%s:%d", c.Source, c.Line), c.Text, fm, 1<<16) {
					evaluated++
				}
			})
			t.Logf("XLA tests corpus: fused %d verified modules (%d changed, %d fusions with extra results); %d evaluated before and after with identical bits", n, changed, withExtra, evaluated)
		})
	}
}

func BenchmarkFuseMixtral(b *testing.B) {
	src, err := os.ReadFile(corpus.Path(b, "hlo", "jax_maxtext_mixtral_8x7b_bf16_1x8_train_step.hlo"))
	if err != nil {
		b.Skip("corpus not present")
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		m, err := hlo.Parse("mixtral.hlo", string(src))
		require.NoError(b, err)
		require.NoError(b, verify.Verify("mixtral.hlo", m))
		b.StartTimer()
		_, _, err = fusion.Fuse(m)
		require.NoError(b, err)
	}
}

// FuzzEvalFuse: whatever parses and verifies fuses into a module that
// verifies and evaluates to the same bits, and the evaluator never fails
// with an internal error (a recovered panic) or runs away: small budgets
// bound it.
func FuzzEvalFuse(f *testing.F) {
	cases, _ := filepath.Glob("testdata/eval/*.hlo")
	for _, p := range cases {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(mlpSoftmax)
	for _, text := range corpus.XLACaseTexts(200) {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := hlo.Parse("fuzz.hlo", src)
		if err != nil || verify.Verify("fuzz.hlo", m) != nil || eval.ParamElements(m) > 1<<12 {
			return
		}
		// Odd inputs take the multi-output fusions the compiler makes.
		fm, _, err := fusion.FuseWith(m, fusion.FuseOptions{MultiOutput: len(src)%2 == 1})
		if err != nil {
			t.Fatalf("fuse: %v", err)
		}
		again, err := hlo.Parse("fused.hlo", fm.String())
		if err != nil {
			t.Fatalf("fused module does not parse: %v\n%s", err, fm.String())
		}
		if err := verify.Verify("fused.hlo", again); err != nil {
			t.Fatalf("fused module does not verify: %v\n%s", err, fm.String())
		}
		orig, _ := hlo.Parse("fuzz.hlo", src)
		_ = verify.Verify("fuzz.hlo", orig)
		args, err := eval.RandomArgsWithin(orig, 1, 1<<12)
		if err != nil {
			return
		}
		want, err := (&eval.Evaluator{File: "fuzz.hlo", M: orig, MaxLiveElements: 1 << 14, MaxWhileIterations: 50}).Run(args)
		if err != nil {
			if strings.Contains(err.Error(), "internal evaluator error") {
				t.Fatal(err)
			}
			return
		}
		got, err := (&eval.Evaluator{File: "fused.hlo", M: again, MaxLiveElements: 1 << 17, MaxWhileIterations: 50}).Run(args)
		if err != nil {
			t.Fatalf("the original evaluates, the fused module fails: %v", err)
		}
		requireSameBits(t, "fuzz", want, got)
	})
}

// TestCloneIsDeep: fusing a clone leaves the original as it was.
func TestCloneIsDeep(t *testing.T) {
	m, err := hlo.Parse("mlp.hlo", mlpSoftmax)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("mlp.hlo", m))
	before := m.String()
	_, _, err = fusion.Fuse(m.Clone())
	require.NoError(t, err)
	require.Equal(t, before, m.String())
}

// TestRecomputeCheapProducers: a cheap elementwise value of one array
// (x - mean in a layer norm, read by the variance and by the output) is
// recomputed by each consumer from x, as XLA duplicates producers that are
// not expensive, instead of being stored and read back: three kernels read
// x and nothing stores xc. A value of a dot's result stays the dot's
// epilogue (TestFuseKernels), and an expensive one (exp) is stored.
func TestRecomputeCheapProducers(t *testing.T) {
	const src = `HloModule ln
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = bf16[64,128] parameter(0)
  xf = f32[64,128] convert(x)
  z = f32[] constant(0)
  s = f32[64] reduce(xf, z), dimensions={1}, to_apply=add
  n = f32[] constant(128)
  nb = f32[64] broadcast(n), dimensions={}
  mean = f32[64] divide(s, nb)
  mb = f32[64,128] broadcast(mean), dimensions={0}
  xc = f32[64,128] subtract(xf, mb)
  sq = f32[64,128] multiply(xc, xc)
  ss = f32[64] reduce(sq, z), dimensions={1}, to_apply=add
  var = f32[64] divide(ss, nb)
  rs = f32[64] rsqrt(var)
  rb = f32[64,128] broadcast(rs), dimensions={0}
  y = f32[64,128] multiply(xc, rb)
  ROOT r = bf16[64,128] convert(y)
}`
	m, err := hlo.Parse("ln.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("ln.hlo", m))
	fm, st, err := fusion.Fuse(m)
	require.NoError(t, err)
	require.Positive(t, st.Duplicated)
	readsX := 0
	for _, in := range fm.Entry.Instructions {
		require.NotEqual(t, "xc", in.Name, "xc is recomputed, not stored")
		if in.Opcode == hlo.OpFusion {
			for _, o := range in.Operands {
				if o.Name == "x" {
					readsX++
				}
			}
		}
	}
	require.Equal(t, 3, readsX, "the mean, the variance and the output each read x")
}

// TestRecomputeIsBounded: values that feed two consumers at every step of
// a long chain (a polynomial's terms) are not recomputed a number of times
// that doubles with each step: the fused module stays within a small
// multiple of the original.
func TestRecomputeIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("HloModule chain\nENTRY e {\n  x = f32[256] parameter(0)\n  c = f32[] constant(0.5)\n  cb = f32[256] broadcast(c), dimensions={}\n")
	prev := "x"
	for i := range 20 {
		fmt.Fprintf(&b, "  m%d = f32[256] multiply(%s, cb)\n  a%d = f32[256] add(%s, x)\n  s%d = f32[256] subtract(m%d, a%d)\n", i, prev, i, prev, i, i, i)
		prev = fmt.Sprintf("s%d", i)
	}
	fmt.Fprintf(&b, "  ROOT r = f32[256] exponential(%s)\n}\n", prev)
	m, err := hlo.Parse("chain.hlo", b.String())
	require.NoError(t, err)
	require.NoError(t, verify.Verify("chain.hlo", m))
	before := len(m.Entry.Instructions)
	start := time.Now()
	fm, _, err := fusion.Fuse(m)
	require.NoError(t, err)
	require.Less(t, time.Since(start), 5*time.Second)
	after := 0
	for _, c := range fm.Computations {
		after += len(c.Instructions)
	}
	require.LessOrEqual(t, after, 2*before+64, "instructions after fusion")
}

// TestFuseViewRoots: an excluded op listed as a view root takes the
// slices, reshapes and transposes of its operands into a fusion of its
// own, but no elementwise producer; excluded alone, it takes nothing.
func TestFuseViewRoots(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  x = f32[6,10] parameter(0)
  a = f32[4,8] slice(x), slice={[0:4], [0:8]}
  b = f32[4,8] slice(x), slice={[1:5], [1:9]}
  n = f32[4,8] negate(b)
  ra = f32[1,4,8] reshape(a)
  rn = f32[1,4,8] reshape(n)
  ROOT k = f32[2,4,8] concatenate(ra, rn), dimensions={0}
}
`
	for _, tc := range []struct {
		roots []string
		inK   []string // the concatenate's fusion's ops
	}{
		{[]string{"concatenate"}, []string{"parameter", "parameter", "slice", "reshape", "reshape", "concatenate"}},
		{nil, nil},
	} {
		m, err := hlo.Parse("v.hlo", src)
		require.NoError(t, err)
		require.NoError(t, verify.Verify("v.hlo", m))
		fm, _, err := fusion.FuseWith(m, fusion.FuseOptions{Exclude: []string{"concatenate"}, ViewRoots: tc.roots})
		require.NoError(t, err)
		root := fm.Entry.Root
		if tc.inK == nil {
			require.Equal(t, "concatenate", root.Opcode)
			continue
		}
		require.Equal(t, "fusion", root.Opcode)
		var ops []string
		for _, in := range fm.Computation(mustAttr(t, root, "calls")).Instructions {
			ops = append(ops, in.Opcode)
		}
		require.Equal(t, tc.inK, ops, "the negate (and its slice) stays out; the reshape of it joins")
		checkFusedModule(t, "v.hlo", src, fm, 1<<20)
	}
}

// TestReduceReadsComputedBroadcasts: a reduction that broadcasts a
// computed value (attention weights against a value cache) reads it from
// memory: the value's own kernel computes it once, and the reduce fusion
// takes the broadcast, the products and the sum.
func TestReduceReadsComputedBroadcasts(t *testing.T) {
	const src = `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4,64] parameter(0)
  v = f32[64,4,32] parameter(1)
  w = f32[4,64] exponential(p)
  t = f32[64,4] transpose(w), dimensions={1,0}
  b = f32[64,4,32] broadcast(t), dimensions={0,1}
  m = f32[64,4,32] multiply(v, b)
  z = f32[] constant(0)
  ROOT r = f32[4,32] reduce(m, z), dimensions={0}, to_apply=add
}
`
	m, err := hlo.Parse("bc.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("bc.hlo", m))
	fm, st, err := fusion.Fuse(m)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"kInput": 1, "kLoop": 1}, st.Fusions)
	red := fm.Computation(mustAttr(t, fm.Entry.Root, "calls"))
	var ops []string
	for _, in := range red.Instructions {
		ops = append(ops, in.Opcode)
	}
	require.Equal(t, []string{"parameter", "parameter", "broadcast", "multiply", "constant", "reduce"}, ops)
	checkFusedModule(t, "bc.hlo", src, fm, 1<<20)
}

// TestStatisticOfADotIsRecomputed: x - mean(x) of a dot's result x (a
// batch norm after a convolution) feeds both the variance and the
// output; it cannot be the dot's epilogue (the mean needs all of x), so
// both consumers recompute it from x rather than a kernel storing it.
func TestStatisticOfADotIsRecomputed(t *testing.T) {
	const src = `HloModule bn
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,16] parameter(0)
  w = f32[16,32] parameter(1)
  d = f32[64,32] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  s = f32[32] reduce(d, z), dimensions={0}, to_apply=add
  n = f32[] constant(64)
  nb = f32[32] broadcast(n), dimensions={}
  mean = f32[32] divide(s, nb)
  mb = f32[64,32] broadcast(mean), dimensions={1}
  xc = f32[64,32] subtract(d, mb)
  sq = f32[64,32] multiply(xc, xc)
  v = f32[32] reduce(sq, z), dimensions={0}, to_apply=add
  vb = f32[64,32] broadcast(v), dimensions={1}
  ROOT o = f32[64,32] multiply(xc, vb)
}
`
	m, err := hlo.Parse("bn.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("bn.hlo", m))
	fm, st, err := fusion.Fuse(m)
	require.NoError(t, err)
	// The dot, the mean's sum, the mean, the variance's sum, the output:
	// no kernel of x - mean alone.
	require.Equal(t, map[string]int{"kInput": 2, "kLoop": 2}, st.Fusions, fm.String())
	full := 0 // fusions with a result of x's size
	for _, in := range fm.Entry.Instructions {
		if in.Opcode == hlo.OpFusion && in.Shape.Elems() == 64*32 {
			full++
		}
	}
	require.Equal(t, 1, full, "only the output is stored, not x - mean: %s", fm)
	checkFusedModule(t, "bn.hlo", src, fm, 1<<20)
}
