package lowering_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// runChecked compiles src for chip, simulates it on random inputs and
// compares every output with the HLO reference evaluator.
func runChecked(t *testing.T, chipName, src string) *runtime.Result {
	t.Helper()
	return runCheckedWith(t, chipName, nil, src)
}

// runCheckedWith is runChecked on chip with overrides.
func runCheckedWith(t *testing.T, chipName string, sets []string, src string) *runtime.Result {
	t.Helper()
	_, r := compileRunChecked(t, chipName, sets, src)
	return r
}

// compileRunChecked is runCheckedWith that also returns the executable,
// for tests of the program itself (its kernels, what it holds in HBM).
func compileRunChecked(t *testing.T, chipName string, sets []string, src string) (*runtime.Executable, *runtime.Result) {
	t.Helper()
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("t.hlo", m))
	c, err := config.Load(chipName, sets)
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	x, err := client.Compile("t.hlo", m)
	require.NoError(t, err)
	args, err := eval.RandomArgs(m, 5)
	require.NoError(t, err)
	// The race detector watches every checked run: the functional values
	// come from the timing model, where an unordered access shows as a
	// wrong number only for some latencies (a dot's epilogue writing the
	// buffer its previous store still read passed every value check here
	// and failed BERT's).
	races := &core.Races{}
	r, err := client.Execute(x, args, runtime.ExecOptions{Observers: []core.Observer{races}})
	require.NoError(t, err)
	require.Zero(t, races.Count, "%s: unordered accesses: %v", chipName, races.Found)
	want, err := (&eval.Evaluator{File: "t.hlo", M: m}).Run(args)
	require.NoError(t, err)
	wants := eval.Leaves(want)
	require.Len(t, r.Outputs, len(wants))
	for i := range wants {
		d := check.Compare(r.Outputs[i], wants[i])
		require.Zero(t, d.Mismatches, "output %d on %s: first mismatch at %d: got %v, want %v (max abs %g)", i, chipName, d.First, d.FirstGot, d.FirstWant, d.MaxAbs)
	}
	return x, r
}

var chips = []string{"teach16", "tpuv4core"}

// rawOutputs compiles and runs src (no parameters) on a chip and returns
// each output tensor's values as the machine holds them (64-bit integers
// as their bits: isa.Bits).
func rawOutputs(t *testing.T, chipName, src string) ([][]float64, []lowering.Binding) {
	t.Helper()
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("t.hlo", m))
	chip, err := config.Load(chipName, nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: chip}
	x, err := client.Compile("t.hlo", m)
	require.NoError(t, err)
	r, err := client.Execute(x, nil, runtime.ExecOptions{})
	require.NoError(t, err)
	var out [][]float64
	for _, bnd := range x.Outputs {
		vals, _, err := r.Model.Arch.ReadTensorAs(bnd.Tensor, bnd.DType)
		require.NoError(t, err)
		out = append(out, vals)
	}
	return out, x.Outputs
}

func TestLoopKernels(t *testing.T) {
	cases := map[string]string{
		"elementwise chain with broadcasts": `ENTRY e {
  x = f32[300,200] parameter(0)
  y = f32[300,200] parameter(1)
  b = f32[200] parameter(2)
  bb = f32[300,200] broadcast(b), dimensions={1}
  a = f32[300,200] add(x, y)
  m = f32[300,200] multiply(a, bb)
  two = f32[] constant(2)
  t = f32[300,200] broadcast(two), dimensions={}
  d = f32[300,200] divide(m, t)
  z = f32[] constant(0)
  zb = f32[300,200] broadcast(z), dimensions={}
  c = pred[300,200] compare(d, zb), direction=GT
  s = f32[300,200] select(c, d, zb)
  ROOT e = f32[300,200] exponential(s)
}`,
		"bf16 with a column broadcast and convert": `ENTRY e {
  x = bf16[64,33] parameter(0)
  r = bf16[64] parameter(1)
  rb = bf16[64,33] broadcast(r), dimensions={0}
  s = bf16[64,33] subtract(x, rb)
  t = bf16[64,33] tanh(s)
  ROOT f = f32[64,33] convert(t)
}`,
		"unfused single ops and a tuple result": `ENTRY e {
  x = f32[7] parameter(0)
  n = f32[7] negate(x)
  a = f32[7] abs(x)
  ROOT t = (f32[7], f32[7]) tuple(n, a)
}`,
		"integer and clamp": `ENTRY e {
  x = s32[5,6] parameter(0)
  y = s32[5,6] parameter(1)
  m = s32[5,6] multiply(x, y)
  lo = s32[] constant(2)
  hi = s32[] constant(30)
  lb = s32[5,6] broadcast(lo), dimensions={}
  hb = s32[5,6] broadcast(hi), dimensions={}
  ROOT c = s32[5,6] clamp(lb, m, hb)
}`,
		"rows of 2 MiB: an identity broadcast and a mask broadcast over batch dims": `ENTRY e {
  m = bf16[1024,1024] parameter(0)
  x = bf16[2,2,1024,1024] parameter(1)
  r = bf16[1,1,1024,1024] reshape(m)
  i = bf16[1,1,1024,1024] broadcast(r), dimensions={0,1,2,3}
  r2 = bf16[1024,1024] reshape(i)
  b = bf16[2,2,1024,1024] broadcast(r2), dimensions={2,3}
  ROOT a = bf16[2,2,1024,1024] add(x, b)
}`,
		"select with a scalar predicate (older XLA's form)": `ENTRY e {
  p = pred[] parameter(0)
  x = f32[40,30] parameter(1)
  y = f32[40,30] parameter(2)
  t = pred[] constant(true)
  f = pred[] constant(false)
  a = f32[40,30] select(t, x, y)
  b = f32[40,30] select(f, x, y)
  c = f32[40,30] select(p, x, y)
  ROOT r = (f32[40,30], f32[40,30], f32[40,30]) tuple(a, b, c)
}`,
		"bitcasts that read f32 bits as s32 and u32 (XLA's post-layout form), fused and alone": `HloModule t
bitcast_fusion {
  p0 = f32[150,160] parameter(0)
  ROOT b = s32[150,160] bitcast(p0)
}
ENTRY e {
  p0 = f32[150,160] parameter(0)
  f = s32[150,160] fusion(p0), kind=kCustom, calls=bitcast_fusion
  n = f32[150,160] negate(p0)
  u = u32[24000] bitcast(n)
  ROOT r = (s32[150,160], u32[24000]) tuple(f, u)
}`,
		"floating-point remainder, exact (huge quotients, f32 and f16)": `ENTRY e {
  x = f32[40,30] parameter(0)
  y = f32[40,30] parameter(1)
  big = f32[] constant(3e+30)
  b = f32[40,30] broadcast(big), dimensions={}
  s = f32[40,30] multiply(x, b)
  r = f32[40,30] remainder(s, y)
  h = f16[40,30] convert(x)
  k = f16[40,30] convert(y)
  q = f16[40,30] remainder(h, k)
  ROOT t = (f32[40,30], f16[40,30]) tuple(r, q)
}`,
		"s64 remainder, with x % 0 = x and MIN % -1 = 0": `ENTRY e {
  x = s64[64] parameter(0)
  y = s64[64] parameter(1)
  big = s64[] constant(-9223372036854775808)
  b = s64[64] broadcast(big), dimensions={}
  m1 = s64[] constant(-1)
  mb = s64[64] broadcast(m1), dimensions={}
  z = s64[] constant(0)
  zb = s64[64] broadcast(z), dimensions={}
  r = s64[64] remainder(x, y)
  r2 = s64[64] remainder(b, mb)
  r3 = s64[64] remainder(x, zb)
  ROOT t = (s64[64], s64[64], s64[64]) tuple(r, r2, r3)
}`,
		"u64 remainder beyond 2^63, and by 0": `ENTRY e {
  x = u64[4] constant({18446744073709551615, 9223372036854775809, 12345678901234567890, 7})
  y = u64[4] constant({10, 18446744073709551614, 3, 0})
  p = u64[4] parameter(0)
  r = u64[4] remainder(x, y)
  ROOT a = u64[4] add(r, p)
}`,
		"u32 remainder beyond 2^31, and by 0": `ENTRY e {
  x = u32[5] constant({4294967295, 2147483649, 3000000000, 7, 4000000000})
  y = u32[5] constant({10, 4294967294, 3, 0, 2147483648})
  p = u32[5] parameter(0)
  r = u32[5] remainder(x, y)
  ROOT a = u32[5] add(r, p)
}`,
		"rank 3 with iota": `ENTRY e {
  x = f32[4,5,6] parameter(0)
  i = f32[4,5,6] iota(), iota_dimension=2
  ROOT a = f32[4,5,6] add(x, i)
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

func TestDotKernels(t *testing.T) {
	cases := map[string]string{
		"dense layer with bias and relu": `HloModule mlp
ENTRY e {
  x = f32[70,50] parameter(0)
  w = f32[50,40] parameter(1)
  b = f32[40] parameter(2)
  d = f32[70,40] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[70,40] broadcast(b), dimensions={1}
  a = f32[70,40] add(d, bb)
  z = f32[] constant(0)
  zb = f32[70,40] broadcast(z), dimensions={}
  ROOT r = f32[70,40] maximum(a, zb)
}`,
		"f16 operands and an f16 epilogue (tpuv4core multiplies them as f32)": `ENTRY e {
  a = f16[40,64] parameter(0)
  b = f16[64,48] parameter(1)
  d = f16[40,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f16[40,48] tanh(d)
}`,
		"bf16 batched dot with a transposed rhs": `ENTRY e {
  a = bf16[3,20,36] parameter(0)
  b = bf16[3,24,36] parameter(1)
  ROOT d = f32[3,20,24] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
}`,
		"batch dims apart in memory, an lhs free dim between them, a rhs free dim of 1": `ENTRY e {
  a = bf16[3,20,2,36] parameter(0)
  b = bf16[3,24,2,1,36] parameter(1)
  ROOT d = f32[3,2,20,24,1] dot(a, b), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={4}
}`,
		"lhs free dims apart in memory": `ENTRY e {
  a = f32[5,36,7] parameter(0)
  b = f32[36,9] parameter(1)
  ROOT d = f32[5,7,9] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`,
		"bf16 result and a residual": `ENTRY e {
  a = bf16[33,300] parameter(0)
  b = bf16[300,130] parameter(1)
  r = bf16[33,130] parameter(2)
  d = bf16[33,130] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = bf16[33,130] add(d, r)
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

func TestMoveKernels(t *testing.T) {
	cases := map[string]string{
		"transpose, slice, reverse, concatenate, pad": `ENTRY e {
  x = f32[6,5,4] parameter(0)
  t = f32[4,6,5] transpose(x), dimensions={2,0,1}
  s = f32[3,5,2] slice(x), slice={[1:6:2], [0:5], [1:4:2]}
  r = f32[6,5,4] reverse(x), dimensions={0,2}
  c = f32[6,7,4] concatenate(x, s2), dimensions={1}
  s2 = f32[6,2,4] slice(x), slice={[0:6], [3:5], [0:4]}
  z = f32[] constant(-1.5)
  p = f32[9,7,7] pad(x, z), padding=1_2x0_2x0_0_1
  ROOT o = (f32[4,6,5], f32[3,5,2], f32[6,5,4], f32[6,7,4], f32[9,7,7]) tuple(t, s, r, c, p)
}`,
		// teach16 walks the reversed rows in several tiles, its base
		// register stepping below zero.
		"reverse walked backwards in tiles": `ENTRY e {
  x = f32[64,300] parameter(0)
  r = f32[64,300] reverse(x), dimensions={0,1}
  ROOT n = f32[64,300] negate(r)
}`,
		// Rank 5, as BERT's attention pads it: copies merge the
		// dimensions both sides walk contiguously, and loop over what is
		// left beyond 4.
		"rank-5 pad, slice, reverse, concatenate": `ENTRY e {
  x = f16[4,16,1,3,8] parameter(0)
  z = f16[] constant(0)
  p = f16[4,16,3,3,8] pad(x, z), padding=0_0x0_0x1_1x0_0x0_0
  y = f32[3,4,5,6,7] parameter(1)
  s = f32[3,2,5,3,7] slice(y), slice={[0:3],[1:3],[0:5],[1:4],[0:7]}
  r = f32[3,4,5,6,7] reverse(y), dimensions={0,3}
  c = f32[3,8,5,6,7] concatenate(y, y), dimensions={1}
  t = f32[7,3,6,5,4] transpose(y), dimensions={4,0,3,2,1}
  ROOT o = (f16[4,16,3,3,8], f32[3,2,5,3,7], f32[3,4,5,6,7], f32[3,8,5,6,7], f32[7,3,6,5,4]) tuple(p, s, r, c, t)
}`,
		"rank-6 transpose": `ENTRY e {
  x = f32[2,3,2,3,2,3] parameter(0)
  ROOT t = f32[3,2,3,2,3,2] transpose(x), dimensions={5,4,3,2,1,0}
}`,
		"pad with a computed value": `ENTRY e {
  x = bf16[5,3] parameter(0)
  v = bf16[] parameter(1)
  ROOT p = bf16[8,4] pad(x, v), padding=1_2x0_1
}`,
		"pad with a constant passed into a nested fusion": `HloModule m
inner {
  x = f32[4,3] parameter(0)
  v = f32[] parameter(1)
  p = f32[4,5] pad(x, v), padding=0_0x1_1
  ROOT n = f32[4,5] negate(p)
}
outer {
  x = f32[4,3] parameter(0)
  ninf = f32[] constant(-inf)
  f = f32[4,5] fusion(x, ninf), kind=kLoop, calls=inner
  ROOT e = f32[4,5] exponential(f)
}
ENTRY e {
  x = f32[4,3] parameter(0)
  ROOT f = f32[4,5] fusion(x), kind=kLoop, calls=outer
}`,
	}
	for name, src := range cases {
		src = reorderForTest(src)
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// reorderForTest puts s2 before its use (kept out of order above to read
// better).
func reorderForTest(src string) string {
	lines := strings.Split(src, "\n")
	var s2 string
	var out []string
	for _, l := range lines {
		if strings.Contains(l, "s2 = ") {
			s2 = l
			continue
		}
		out = append(out, l)
	}
	for i, l := range out {
		if strings.Contains(l, "c = f32[6,7,4]") {
			out = append(out[:i], append([]string{s2}, out[i:]...)...)
			break
		}
	}
	return strings.Join(out, "\n")
}

func TestRepeatedOperand(t *testing.T) {
	for _, chip := range chips {
		runChecked(t, chip, `ENTRY e {
  x = f32[32,32,32] parameter(0)
  ROOT m = f32[32,32,32] multiply(x, x)
}`)
	}
}

func TestCallsAreInlined(t *testing.T) {
	src := `HloModule c
sq {
  p = f32[8,8] parameter(0)
  ROOT m = f32[8,8] multiply(p, p)
}
twice {
  q = f32[8,8] parameter(0)
  a = f32[8,8] call(q), to_apply=sq
  ROOT b = f32[8,8] call(a), to_apply=sq
}
ENTRY e {
  x = f32[8,8] parameter(0)
  y = f32[8,8] call(x), to_apply=twice
  ROOT z = f32[8,8] add(y, x)
}`
	for _, chip := range chips {
		runChecked(t, chip, src)
	}
}

// A call inside a while body (a scanned layer) is inlined too.
func TestCallsInLoopBodiesAreInlined(t *testing.T) {
	src := `HloModule c
layer {
  p = f32[8,8] parameter(0)
  ROOT m = f32[8,8] multiply(p, p)
}
cond {
  s = (s32[], f32[8,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8,8] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[8,8] call(x), to_apply=layer
  ROOT t = (s32[], f32[8,8]) tuple(j, y)
}
ENTRY e {
  x = f32[8,8] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[8,8]) tuple(z, x)
  w = (s32[], f32[8,8]) while(t), condition=cond, body=body
  ROOT r = f32[8,8] get-tuple-element(w), index=1
}`
	for _, chip := range chips {
		runChecked(t, chip, src)
	}
}

// A dot or reduction whose fusion its kernel does not take whole (here an
// epilogue that transposes, and a reduction of a transposed product) runs
// as that op's kernel plus loop kernels, not op by op.
func TestFusionsSplitAroundTheirKernel(t *testing.T) {
	cases := map[string]string{
		"dot with a transposing epilogue": `ENTRY e {
  x = f32[40,64] parameter(0)
  w = f32[64,48] parameter(1)
  b = f32[48,40] parameter(2)
  d = f32[40,48] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[48,40] transpose(d), dimensions={1,0}
  ROOT a = f32[48,40] add(t, b)
}`,
		"reduction of a transposed product": `add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY e {
  x = f32[30,50] parameter(0)
  y = f32[30,50] parameter(1)
  m = f32[30,50] multiply(x, y)
  t = f32[50,30] transpose(m), dimensions={1,0}
  z = f32[] constant(0)
  ROOT r = f32[50] reduce(t, z), dimensions={1}, to_apply=add
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) {
				comp := compileFor(t, chip, src)
				require.Empty(t, comp.Unfused)
				if strings.HasPrefix(name, "dot with a transposing") {
					// hlo/fusion leaves a transpose of a dot's result out of
					// the dot's fusion: the dot and the rest are kernels of
					// their own from the start, nothing is split.
					require.Empty(t, comp.Split)
					require.GreaterOrEqual(t, len(comp.Kernels), 2)
				} else {
					require.NotEmpty(t, comp.Split)
				}
				runChecked(t, chip, src)
			})
		}
	}
}

// A big transpose inside a loop fusion that brings another dim innermost
// runs as a tiled transpose (xpose on the cross-lane unit), the rest of the
// fusion reading its result contiguously.
func TestTransposeInLoopFusion(t *testing.T) {
	src := `ENTRY e {
  x = f32[8,2,64,130] parameter(0)
  y = f32[8,130,128] parameter(1)
  r = f32[8,128,130] reshape(x)
  t = f32[8,130,128] transpose(r), dimensions={0,2,1}
  ROOT a = f32[8,130,128] add(t, y)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			comp := compileFor(t, chip, src)
			require.Contains(t, comp.Asm, "xpose")
			require.Empty(t, comp.Unfused)
			runChecked(t, chip, src)
		})
	}
}

// Rows too big for SRAM whose operands' patterns do not collapse (two
// windows of a padded image, as an expanded depthwise convolution reads)
// run in passes over the leading dim: a counted loop, not unrolled.
func TestLoopKernelPasses(t *testing.T) {
	src := `ENTRY e {
  x = f32[6,66,66,64] parameter(0)
  a = f32[6,64,64,64] slice(x), slice={[0:6], [1:65], [1:65], [0:64]}
  b = f32[6,64,64,64] slice(x), slice={[0:6], [0:64], [2:66], [0:64]}
  ROOT s = f32[6,64,64,64] add(a, b)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			require.Contains(t, compileFor(t, chip, src).Asm, "_pass:")
			runChecked(t, chip, src)
		})
	}
}

// Rank-6 elementwise work merges its dims into tiles of at most 4.
func TestHighRankLoopKernel(t *testing.T) {
	src := `ENTRY e {
  x = f32[2,3,1,3,2,5] parameter(0)
  y = f32[2,3,1,3,2,5] parameter(1)
  b = f32[3,2] parameter(2)
  bb = f32[2,3,1,3,2,5] broadcast(b), dimensions={3,4}
  a = f32[2,3,1,3,2,5] add(x, y)
  ROOT m = f32[2,3,1,3,2,5] multiply(a, bb)
}`
	for _, chip := range chips {
		runChecked(t, chip, src)
	}
}

func TestConstantBroadcastKernel(t *testing.T) {
	for _, chip := range chips {
		runChecked(t, chip, `ENTRY e {
  z = f32[] constant(1.5)
  ROOT b = f32[40,30] broadcast(z), dimensions={}
}`)
	}
}

// Tall dots loop over their row blocks (offsets in registers) instead of
// unrolling them; the loop must give the same values as the evaluator,
// with epilogue operands that advance with the rows, that are broadcast,
// with a K loop nested inside and with a batch dimension.
func TestDotRowBlockLoops(t *testing.T) {
	cases := map[string]string{
		"tall dense layer with bias, residual and relu": `ENTRY e {
  x = f32[20000,40] parameter(0)
  w = f32[40,70] parameter(1)
  b = f32[70] parameter(2)
  r = f32[20000,70] parameter(3)
  d = f32[20000,70] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[20000,70] broadcast(b), dimensions={1}
  a = f32[20000,70] add(d, bb)
  s = f32[20000,70] add(a, r)
  z = f32[] constant(0)
  zb = f32[20000,70] broadcast(z), dimensions={}
  ROOT o = f32[20000,70] maximum(s, zb)
}`,
		"long K nested in the row loop, bf16 out": `ENTRY e {
  x = bf16[9000,700] parameter(0)
  w = bf16[700,150] parameter(1)
  ROOT d = bf16[9000,150] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`,
		"batched, transposed lhs": `ENTRY e {
  x = f32[2,30,13000] parameter(0)
  w = f32[2,30,20] parameter(1)
  ROOT d = f32[2,13000,20] dot(x, w), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}`,
	}
	for name, src := range cases {
		for _, chipName := range chips {
			t.Run(name+"/"+chipName, func(t *testing.T) {
				comp := compileFor(t, chipName, src)
				require.Contains(t, comp.Asm, "_mloop:", "the row blocks are not looped")
				runChecked(t, chipName, src)
			})
		}
	}
}

// Batches of many row blocks and column groups each run as a loop over
// batches when its body is smaller than the batches unrolled with their
// own loops: 380 batches of 44 groups (XLA's indexing_analysis_test.cc:2619,
// canonicalized) were 277,037 instructions unrolled one batch at a time.
func TestDotBatchLoops(t *testing.T) {
	cases := map[string]struct {
		src  string
		most int // instructions
	}{
		"20 batches of 2x22 groups, two batch dims": {`ENTRY e {
  p0 = f32[4,5,44,40] parameter(0)
  p1 = f32[4,5,40,352] parameter(1)
  ROOT d = f32[4,5,44,352] dot(p0, p1), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_contracting_dims={2}
}`, 2000},
		"30 batches, bf16 to f32 with a tanh epilogue": {`ENTRY e {
  p0 = bf16[30,100,200] parameter(0)
  p1 = bf16[30,200,300] parameter(1)
  d = f32[30,100,300] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ROOT t = f32[30,100,300] tanh(d)
}`, 10000},
		"12 batches of 22 column groups, column loops nested, bias, residual and relu": {`ENTRY e {
  x = f32[12,24,40] parameter(0)
  w = f32[12,40,352] parameter(1)
  r = f32[12,24,352] parameter(2)
  b = f32[352] parameter(3)
  d = f32[12,24,352] dot(x, w), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  bb = f32[12,24,352] broadcast(b), dimensions={2}
  a = f32[12,24,352] add(d, bb)
  s = f32[12,24,352] add(a, r)
  z = f32[] constant(0)
  zb = f32[12,24,352] broadcast(z), dimensions={}
  ROOT o = f32[12,24,352] maximum(s, zb)
}`, 600},
	}
	for name, c := range cases {
		for _, chipName := range chips {
			t.Run(name+"/"+chipName, func(t *testing.T) {
				comp := compileFor(t, chipName, c.src)
				if chipName == "teach16" { // tpuv4core's tiles hold a batch in a group or two
					require.Contains(t, comp.Asm, "_bloop:", "the batches are not looped")
					if strings.Contains(name, "nested") {
						require.Regexp(t, `(?s)_bloop:.*_nloop:.*loop +r7, .*loop +r24, k\d+_bloop`, comp.Asm, "no column loop in the batch loop")
					}
				}
				require.LessOrEqual(t, strings.Count(comp.Asm, "\n        "), c.most)
				runChecked(t, chipName, c.src)
			})
		}
	}
}

// Transposes that move the innermost dimension run as tiles through SRAM
// and the cross-lane unit; the permutations and shapes below are batched
// 2-D transposes with and without size-1 dims, odd and even tile counts,
// and one that takes two passes; one that keeps the innermost dimension is
// a strided DMA.
func TestTiledTransposes(t *testing.T) {
	cases := map[string]string{
		"NCHW to NHWC": `ENTRY e {
  x = f32[3,24,14,14] parameter(0)
  ROOT t = f32[3,14,14,24] transpose(x), dimensions={0,2,3,1}
}`,
		"NHWC to NCHW, bf16": `ENTRY e {
  x = bf16[2,28,28,96] parameter(0)
  ROOT t = bf16[2,96,28,28] transpose(x), dimensions={0,3,1,2}
}`,
		"2-D with a size-1 dim": `ENTRY e {
  x = f32[1,300,1000] parameter(0)
  ROOT t = f32[1000,1,300] transpose(x), dimensions={2,0,1}
}`,
		"weights OIHW to HWIO, not batched 2-D: two passes": `ENTRY e {
  x = f32[32,16,3,3] parameter(0)
  ROOT t = f32[3,3,16,32] transpose(x), dimensions={2,3,1,0}
}`,
		"heads swap keeps the innermost dim: strided DMA": `ENTRY e {
  x = f32[2,8,4,64] parameter(0)
  ROOT t = f32[2,4,8,64] transpose(x), dimensions={0,2,1,3}
}`,
	}
	for name, src := range cases {
		for _, chipName := range chips {
			t.Run(name+"/"+chipName, func(t *testing.T) {
				comp := compileFor(t, chipName, src)
				require.Equal(t, !strings.Contains(name, "strided"), strings.Contains(comp.Asm, "xpose"))
				runChecked(t, chipName, src)
			})
		}
	}
}

// compileFor lowers src for a chip, failing the test on any error.
func compileFor(t *testing.T, chipName, src string) *lowering.Compiled {
	t.Helper()
	comp, err := compileErr(t, chipName, src)
	require.NoError(t, err)
	return comp
}

// compileErr compiles src (which must parse) for the chip.
func compileErr(t *testing.T, chipName, src string) (*lowering.Compiled, error) {
	t.Helper()
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	chip, err := config.Load(chipName, nil)
	require.NoError(t, err)
	return lowering.Compile("t.hlo", m, chip)
}

// A piece split out of a fusion counts the bytes it reads, not the
// fusion's: here the [32] product of two per-feature vectors that the
// fusion then broadcasts over a 2 MiB array. Counting the array made the
// kernel table show such pieces at thousands of percent of HBM peak.
func TestSplitPieceCountsItsOwnBytes(t *testing.T) {
	src := `ENTRY e {
  x = f32[64,32,16,16] parameter(0)
  s = f32[32] parameter(1)
  v = f32[32] parameter(2)
  m = f32[32] multiply(s, v)
  b = f32[64,32,16,16] broadcast(m), dimensions={1}
  ROOT o = f32[64,32,16,16] multiply(x, b)
}`
	comp := compileFor(t, "tpuv4core", src)
	var piece *lowering.Kernel
	for i, k := range comp.Kernels {
		t.Logf("%s %s flops %d bytes %d", k.Name, k.Kind, k.FLOPs, k.Bytes)
		if strings.HasSuffix(k.Name, "/m") {
			piece = &comp.Kernels[i]
		}
	}
	require.NotNil(t, piece, "the multiply of the two vectors runs as a kernel of its own")
	require.Equal(t, int64(3*32*4), piece.Bytes, "reads s and v, writes m")
	require.Equal(t, int64(32), piece.FLOPs)
	runChecked(t, "tpuv4core", src)
}

// TestSlicedThroughReshapeCountsItsPart: a piece that slices its operand
// through reshapes (a convolution's windows over the input flattened to
// rows) counts the slice's bytes, not the whole operand's: counting the
// whole made such a copy claim 105.6% of its roof.
func TestSlicedThroughReshapeCountsItsPart(t *testing.T) {
	src := `ENTRY e {
  a = f32[9,58,58,64] parameter(0)
  r5 = f32[9,29,2,29,2,64] reshape(a)
  t6 = f32[9,29,29,2,2,64] transpose(r5), dimensions={0,1,3,2,4,5}
  r7 = f32[9,29,29,256] reshape(t6)
  r13 = f32[7569,256] reshape(r7)
  s14 = f32[6728,256] slice(r13), slice={[0:6728:1], [0:256:1]}
  s15 = f32[6728,256] slice(r13), slice={[1:6729:1], [0:256:1]}
  ROOT c = f32[6728,512] concatenate(s14, s15), dimensions={1}
}`
	comp := compileFor(t, "tpuv4core", src)
	found := 0
	for _, k := range comp.Kernels {
		if strings.HasSuffix(k.Name, "/s14") || strings.HasSuffix(k.Name, "/s15") {
			found++
			require.Equal(t, int64(2*6728*256*4), k.Bytes, "%s reads its slice and writes it", k.Name)
		}
	}
	require.Equal(t, 2, found, "the slices are pieces of their own")
}

// A module that does not fit HBM names the array that overflows it, its
// size, and the biggest arrays already there.
func TestHBMOverflowNamesTheArray(t *testing.T) {
	src := `ENTRY e {
  a = f32[1024] parameter(0)
  b = f32[160,1024,1024] parameter(1)
  ROOT n = f32[160,1024,1024] negate(b)
}`
	_, err := compileErr(t, "teach16", src)
	require.ErrorContains(t, err, "t.hlo:3:3: b: parameter: cannot lower: its f32[160,1024,1024] (640.0 MiB) brings the HBM needed to 640.0 MiB, beyond the chip's 512.0 MiB (1 array already live, largest a 4.0 KiB)")
}

// A fusion whose result does not fit is reported as that fusion, not as
// an instruction inside it: running it op by op would need more HBM, not
// less, so it does not fall back (and the fallback once inherited the
// failed attempt's allocation, blaming a 64 MiB iota for 2 TiB).
func TestHBMOverflowInAFusionNamesTheFusion(t *testing.T) {
	src := `f {
  p = f32[1024] parameter(0)
  i = s32[160,1024,1024] iota(), iota_dimension=2
  c = f32[160,1024,1024] convert(i)
  b = f32[160,1024,1024] broadcast(p), dimensions={2}
  ROOT m = f32[160,1024,1024] multiply(c, b)
}

ENTRY e {
  a = f32[1024] parameter(0)
  ROOT r = f32[160,1024,1024] fusion(a), kind=kLoop, calls=f
}`
	_, err := compileErr(t, "teach16", src)
	require.ErrorContains(t, err, "t.hlo:11:3: r: fusion: cannot lower: its f32[160,1024,1024] (640.0 MiB) brings the HBM needed to 640.0 MiB, beyond the chip's 512.0 MiB (1 array already live, largest a 4.0 KiB)")
}

// Arrays of rank above 4 in every kernel kind: loop fusions with
// transposes and broadcasts, reductions over scattered dims, dots with
// several batch dims, moves. Dims that walk contiguously merge; the rest
// become rows walked in passes.
func TestRankAboveFour(t *testing.T) {
	cases := map[string]string{
		"fused rank-5 transpose": `ENTRY e {
  x = f32[2,3,2,3,2] parameter(0)
  t = f32[2,3,2,3,2] transpose(x), dimensions={0,3,2,1,4}
  y = f32[2,3,2,3,2] parameter(1)
  ROOT a = f32[2,3,2,3,2] add(t, y)
}`,
		"rank 6 in every kernel kind": `add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[2,3,4,3,2,5] parameter(0)
  z = f32[] constant(0)
  r1 = f32[2,4,2] reduce(x, z), dimensions={1,3,5}, to_apply=add
  ni = f32[] constant(-inf)
  r2 = f32[2,3,4,3,2] reduce(x, ni), dimensions={5}, to_apply=mx
  r3 = f32[3,3,5] reduce(x, z), dimensions={0,2,4}, to_apply=add
  t = f32[5,2,3,4,3,2] transpose(x), dimensions={5,4,3,2,1,0}
  y = f32[5,2,3,4,3,2] parameter(1)
  e = f32[5,2,3,4,3,2] exponential(y)
  a = f32[5,2,3,4,3,2] add(t, e)
  b = f32[2,3,4,3,2] parameter(2)
  bb = f32[5,2,3,4,3,2] broadcast(b), dimensions={5,4,3,2,1}
  m = f32[5,2,3,4,3,2] multiply(a, bb)
  p = f32[2,3,4,5,6] parameter(3)
  q = f32[2,3,4,6,7] parameter(4)
  d = f32[2,3,4,5,7] dot(p, q), lhs_batch_dims={0,1,2}, rhs_batch_dims={0,1,2}, lhs_contracting_dims={4}, rhs_contracting_dims={3}
  ROOT o = (f32[2,4,2], f32[2,3,4,3,2], f32[3,3,5], f32[5,2,3,4,3,2], f32[2,3,4,5,7]) tuple(r1, r2, r3, m, d)
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// set-dimension-size and get-dimension-size compute on bounded shapes, as
// the evaluator does (legalize.StaticDimensionSizes).
func TestDimensionSizes(t *testing.T) {
	src := `ENTRY e {
  x = f32[8] parameter(0)
  n = s32[] constant(5)
  d = f32[<=8] set-dimension-size(x, n), dimensions={0}
  g = s32[] get-dimension-size(d), dimensions={0}
  e = f32[<=8] exponential(d)
  ROOT t = (f32[<=8], s32[]) tuple(e, g)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}

// erf and the torch-neuronx activation calls compile (expanded into
// elementwise ops, expand.ExpandErfAndActivations) and match the evaluator.
func TestErfAndNeuronActivations(t *testing.T) {
	src := `ENTRY e {
  x = f32[64,48] parameter(0)
  e = f32[64,48] erf(x)
  g = f32[64,48] custom-call(x), custom_call_target="AwsNeuronGelu"
  h = f32[64,48] custom-call(x), custom_call_target="AwsNeuronGeluApprxTanh"
  s = f32[64,48] custom-call(x), custom_call_target="AwsNeuronSilu"
  b = bf16[64,48] convert(x)
  eb = bf16[64,48] erf(b)
  gb = f32[64,48] custom-call(x), custom_call_target="AwsNeuronGeluBackward"
  ROOT t = (f32[64,48], f32[64,48], f32[64,48], f32[64,48], bf16[64,48], f32[64,48]) tuple(e, g, h, s, eb, gb)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}

// rng-bit-generator runs on the chips (expanded into u32 arithmetic,
// expand.ExpandRngBitGenerators): the same bits and state as the evaluator,
// here as BERT's dropout uses them, for both algorithms.
func TestRngBitGeneratorOnChips(t *testing.T) {
	src := `ENTRY e {
  s = u64[2] parameter(0)
  x = f32[16,130] parameter(1)
  r = (u64[2], u32[16,130]) rng-bit-generator(s), algorithm=rng_default
  bits = u32[16,130] get-tuple-element(r), index=1
  ns = u64[2] get-tuple-element(r), index=0
  t = (u64[2], u32[7,3]) rng-bit-generator(ns), algorithm=rng_three_fry
  tb = u32[7,3] get-tuple-element(t), index=1
  half = u32[] constant(2147483648)
  hb = u32[16,130] broadcast(half), dimensions={}
  keep = pred[16,130] compare(bits, hb), direction=LT
  z = f32[] constant(0)
  zb = f32[16,130] broadcast(z), dimensions={}
  d = f32[16,130] select(keep, x, zb)
  ts = u64[2] get-tuple-element(t), index=0
  ROOT o = (f32[16,130], u32[16,130], u32[7,3], u64[2]) tuple(d, bits, tb, ts)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}

// TestCopiesInsideFusions: a copy that keeps the layout (MaxText's
// sharding constraints in XLA's partitioned modules) is the identity
// inside a loop fusion and a dot's epilogue, so neither runs unfused nor
// is split around it; values as the evaluator's.
func TestCopiesInsideFusions(t *testing.T) {
	const src = `mx {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT m = f32[] maximum(p, q)
}
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY e {
  x = bf16[64,128] parameter(0)
  w = bf16[128,256] parameter(1)
  d = bf16[64,256] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = bf16[64,256]{1,0} copy(d)
  f = f32[64,256] convert(c)
  ninf = f32[] constant(-inf)
  m = f32[64] reduce(f, ninf), dimensions={1}, to_apply=mx
  mc = f32[64]{0} copy(m)
  mb = f32[64,256] broadcast(mc), dimensions={0}
  s = f32[64,256] subtract(f, mb)
  e = f32[64,256] exponential(s)
  z = f32[] constant(0)
  l = f32[64] reduce(e, z), dimensions={1}, to_apply=add
  lb = f32[64,256] broadcast(l), dimensions={0}
  ROOT p = f32[64,256] divide(e, lb)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			comp := compileFor(t, chip, src)
			require.Empty(t, comp.Unfused)
			for _, k := range comp.Kernels {
				require.False(t, strings.HasSuffix(k.Name, "/d"), "%s: the dot's epilogue takes the copy, the dot is not split out", k.Name)
			}
			runChecked(t, chip, src)
		})
	}
}

// TestReductionInsideLoopFusion: a softmax written as one loop fusion (as
// XLA's dumps hold it) runs its reductions as reduce kernels over their
// producers, not over an HBM temporary of the converted input: three
// kernels, none of them the convert or the exponential alone.
func TestReductionInsideLoopFusion(t *testing.T) {
	const src = `mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  p0 = bf16[96,300] parameter(0)
  x = f32[96,300] convert(p0)
  ninf = f32[] constant(-inf)
  m = f32[96] reduce(x, ninf), dimensions={1}, to_apply=mx
  mb = f32[96,300] broadcast(m), dimensions={0}
  s = f32[96,300] subtract(x, mb)
  e = f32[96,300] exponential(s)
  zero = f32[] constant(0)
  l = f32[96] reduce(e, zero), dimensions={1}, to_apply=add
  lb = f32[96,300] broadcast(l), dimensions={0}
  ROOT d = f32[96,300] divide(e, lb)
}
ENTRY e {
  p0 = bf16[96,300] parameter(0)
  ROOT f = f32[96,300] fusion(p0), kind=kLoop, calls=fused
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			comp := compileFor(t, chip, src)
			var names []string
			for _, k := range comp.Kernels {
				names = append(names, k.Name)
			}
			require.Equal(t, []string{"f/m", "f/l", "f"}, names)
			runChecked(t, chip, src)
		})
	}
}

// TestReshapedPieceIsAView: a layer's weights sliced from a scan's stack
// and reshaped to drop the layer dim, in one fusion: the dynamic slice is
// a piece of its own and the reshape is a view of its buffer, not a loop
// kernel copying it again; the values are the evaluator's.
func TestReshapedPieceIsAView(t *testing.T) {
	const src = `fused {
  ws = f32[4,64,128] parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  s = f32[1,64,128] dynamic-slice(ws, i, z, z), dynamic_slice_sizes={1,64,128}
  ROOT r = f32[64,128] reshape(s)
}
ENTRY e {
  ws = f32[4,64,128] parameter(0)
  i = s32[] parameter(1)
  x = f32[8,64] parameter(2)
  w = f32[64,128] fusion(ws, i), kind=kLoop, calls=fused
  ROOT d = f32[8,128] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			comp := compileFor(t, chip, src)
			for _, k := range comp.Kernels {
				require.NotEqual(t, "w", k.Name, "the reshape left a kernel of its own")
			}
			runChecked(t, chip, src)
		})
	}
}

// TestIotaInReduceFusion: a cross-entropy's one-hot (iota == labels) times
// the log-probabilities, summed over the vocabulary in one reduce fusion,
// is one reduce kernel: the iota a constant read as a broadcast. It ran
// op by op before, each op an array of the logits' size (MaxText's 8B
// step: three of 7.8 GiB).
func TestIotaInReduceFusion(t *testing.T) {
	const src = `add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  lp = f32[4,64,1000] parameter(0)
  lab = s32[4,64] parameter(1)
  io = s32[4,64,1000] iota(), iota_dimension=2
  lb = s32[4,64,1000] broadcast(lab), dimensions={0,1}
  eq = pred[4,64,1000] compare(io, lb), direction=EQ
  oh = f32[4,64,1000] convert(eq)
  m = f32[4,64,1000] multiply(oh, lp)
  z = f32[] constant(0)
  ROOT r = f32[4,64] reduce(m, z), dimensions={2}, to_apply=add
}
ENTRY e {
  lp = f32[4,64,1000] parameter(0)
  lab = s32[4,64] parameter(1)
  ROOT f = f32[4,64] fusion(lp, lab), kind=kInput, calls=fused
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			comp := compileFor(t, chip, src)
			require.Empty(t, comp.Unfused)
			require.Empty(t, comp.Split)
			require.Len(t, comp.Kernels, 1)
			runChecked(t, chip, src)
		})
	}
}

// TestLongRowsInSRAM: a loop fusion whose rows are longer than the
// streaming budget but fit SRAM, over leading dims that do not collapse
// (one operand transposed in them), streams whole rows in a few passes
// instead of walking every leading index (as MaxText's loss fusions over
// 16,384 tokens of a 128K vocabulary do), with the evaluator's values.
// The pass bound is lowered so that a small array takes that path.
func TestLongRowsInSRAM(t *testing.T) {
	defer lowering.SetMaxRowPasses(4)()
	const src = `fused {
  x = f32[2,3,49152] parameter(0)
  y = f32[3,2,49152] parameter(1)
  yt = f32[2,3,49152] transpose(y), dimensions={1,0,2}
  a = f32[2,3,49152] add(x, yt)
  m = f32[2,3,49152] multiply(a, x)
  e = f32[2,3,49152] exponential(m)
  s = f32[2,3,49152] subtract(e, yt)
  n = f32[2,3,49152] negate(s)
  b = f32[2,3,49152] maximum(n, x)
  c = f32[2,3,49152] minimum(b, yt)
  d = f32[2,3,49152] multiply(c, a)
  ROOT r = f32[2,3,49152] add(d, m)
}
ENTRY e {
  x = f32[2,3,49152] parameter(0)
  y = f32[3,2,49152] parameter(1)
  ROOT f = f32[2,3,49152] fusion(x, y), kind=kLoop, calls=fused
}`
	comp := compileFor(t, "tpuv6e", src)
	require.Empty(t, comp.Unfused)
	runChecked(t, "tpuv6e", src)
}

// TestReduceOfRowsBeyondTheStreamBudget: a reduce fusion whose row, in all
// its buffers (twelve values live to the end), is more than a buffer set's
// 4 MiB but fits its share of SRAM (a loss summed over a 128K vocabulary)
// is one kernel streaming a row at a time; before, its elementwise part was
// split out and written to HBM whole.
func TestReduceOfRowsBeyondTheStreamBudget(t *testing.T) {
	const src = `add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[2,128256] parameter(0)
  y = f32[2,128256] parameter(1)
  v0 = f32[2,128256] add(y, x)
  v1 = f32[2,128256] multiply(v0, y)
  v2 = f32[2,128256] subtract(v1, v0)
  v3 = f32[2,128256] maximum(v2, v1)
  v4 = f32[2,128256] minimum(v3, v2)
  v5 = f32[2,128256] add(v4, v3)
  v6 = f32[2,128256] multiply(v5, v4)
  v7 = f32[2,128256] subtract(v6, v5)
  v8 = f32[2,128256] maximum(v7, v6)
  v9 = f32[2,128256] minimum(v8, v7)
  v10 = f32[2,128256] add(v9, v8)
  v11 = f32[2,128256] multiply(v10, v9)
  w0 = f32[2,128256] add(v0, v1)
  w1 = f32[2,128256] add(w0, v2)
  w2 = f32[2,128256] add(w1, v3)
  w3 = f32[2,128256] add(w2, v4)
  w4 = f32[2,128256] add(w3, v5)
  w5 = f32[2,128256] add(w4, v6)
  w6 = f32[2,128256] add(w5, v7)
  w7 = f32[2,128256] add(w6, v8)
  w8 = f32[2,128256] add(w7, v9)
  w9 = f32[2,128256] add(w8, v10)
  w10 = f32[2,128256] add(w9, v11)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(w10, z), dimensions={1}, to_apply=add
}
ENTRY e {
  x = f32[2,128256] parameter(0)
  y = f32[2,128256] parameter(1)
  ROOT f = f32[2] fusion(x, y), kind=kInput, calls=fused
}`
	comp := compileFor(t, "tpuv6e", src)
	require.Empty(t, comp.Unfused)
	require.Empty(t, comp.Split)
	require.Len(t, comp.Kernels, 1)
	runChecked(t, "tpuv6e", src)
}
