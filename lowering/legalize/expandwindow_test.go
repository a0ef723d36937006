package legalize_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// TestExpandReduceWindows: pooling, padded and dilated windows and short
// cumulative sums expand into pads, slices and elementwise folds that
// evaluate as the evaluator's reduce-window does.
func TestExpandReduceWindows(t *testing.T) {
	const reducers = `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
`
	cases := map[string]string{
		"max pool 3x3 stride 2, padded": reducers + `ENTRY e {
  x = f32[2,9,9,4] parameter(0)
  i = f32[] constant(-inf)
  ROOT r = f32[2,5,5,4] reduce-window(x, i), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
}`,
		"average-pool sum 2x2": reducers + `ENTRY e {
  x = f32[3,8,6] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3,4,3] reduce-window(x, z), window={size=1x2x2 stride=1x2x2}, to_apply=add
}`,
		"shifted window with one-sided padding (the corpus's)": reducers + `ENTRY e {
  x = f32[5,30,31] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[5,30,31] reduce-window(x, z), window={size=1x2x3 pad=0_0x0_1x1_1}, to_apply=add
}`,
		"window dilation and base dilation": reducers + `ENTRY e {
  x = f32[10,7] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[10,11] reduce-window(x, z), window={size=2x3 pad=0_1x1_1 rhs_dilate=1x2 lhs_dilate=1x2}, to_apply=add
}`,
		"cumulative sum over 1000 (a loop)": reducers + `ENTRY e {
  x = f32[1000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[1000] reduce-window(x, z), window={size=1000 pad=999_0}, to_apply=add
}`,
		"cumulative sum over 4": reducers + `ENTRY e {
  x = f32[16] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[16] reduce-window(x, z), window={size=4 pad=3_0}, to_apply=add
}`,
	}
	// Any reducer, one operand or several (folded in the evaluator's
	// order, padding masked out): a min with its companion, an argmax with
	// padding and base dilation, a reducer no op of the vector unit is.
	general := `HloModule m
minc {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  x0 = f32[] parameter(2)
  x1 = s32[] parameter(3)
  le = pred[] compare(a0, x0), direction=LE
  m = f32[] select(le, a0, x0)
  n = s32[] select(le, a1, x1)
  ROOT t = (f32[], s32[]) tuple(m, n)
}
` + argmaxAndDecay + ``
	generalCases := map[string]string{
		"variadic min with companion": general + `ENTRY e {
  v = f32[4,6] parameter(0)
  c = s32[4,6] parameter(1)
  inf = f32[] constant(inf)
  z = s32[] constant(-1)
  r = (f32[2,2], s32[2,2]) reduce-window(v, c, inf, z), window={size=2x2 stride=2x3}, to_apply=minc
  ROOT o = s32[2,2] get-tuple-element(r), index=1
}`,
		"argmax, padded and base-dilated": general + `ENTRY e {
  v = f32[3,5] parameter(0)
  i = s32[3,5] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  z = s32[] constant(-1)
  r = (f32[3,5], s32[3,5]) reduce-window(v, i, lo, z), window={size=2x3 stride=1x2 pad=1_0x1_1 lhs_dilate=1x2}, to_apply=argmax
  a = f32[3,5] get-tuple-element(r), index=0
  b = s32[3,5] get-tuple-element(r), index=1
  fb = f32[3,5] convert(b)
  ROOT o = f32[3,5] add(a, fb)
}`,
		"a running decay, no vector op": general + `ENTRY e {
  x = f32[12] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[12] reduce-window(x, z), window={size=4 pad=3_0}, to_apply=decay
}`,
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) { evaltest.CheckExpanded(t, name, text, legalize.ExpandReduceWindows) })
	}
	// The same windows folded by loops (one position per iteration, then
	// two unrolled, or a divisor of the dim's positions): the
	// straight-line expansion's bits.
	for name, text := range cases {
		if strings.HasPrefix(name, "cumulative") {
			continue // scans (TestScanWindows), not loops
		}
		t.Run(name+"/loop", func(t *testing.T) {
			m, err := hlo.Parse(name, text)
			require.NoError(t, err)
			args, err := eval.RandomArgs(m, 9)
			require.NoError(t, err)
			straight := m.Clone()
			require.NoError(t, legalize.ExpandReduceWindows(straight))
			want, err := (&eval.Evaluator{File: name, M: straight}).Run(args)
			require.NoError(t, err)
			defer func(w, u int64) { legalize.MaxWindowPositions, legalize.MaxUnrolledTaps = w, u }(legalize.MaxWindowPositions, legalize.MaxUnrolledTaps)
			legalize.MaxWindowPositions = 0
			for _, unroll := range []int64{0, 2, 3} {
				legalize.MaxUnrolledTaps = unroll
				evaltest.CheckExpanded(t, name, text, legalize.ExpandReduceWindows)
				looped := m.Clone()
				require.NoError(t, legalize.ExpandReduceWindows(looped))
				require.Contains(t, looped.String(), "while(")
				got, err := (&eval.Evaluator{File: name, M: looped}).Run(args)
				require.NoError(t, err)
				require.Empty(t, eval.BitDiff(want, got), name)
			}
		})
	}
	for name, text := range generalCases {
		t.Run(name, func(t *testing.T) { evaltest.CheckExpanded(t, name, text, legalize.ExpandReduceWindows) })
	}
}

// TestScanWindows: cumulative windows longer than MaxWindowPositions
// (cumsum, a reversed cumsum, cummax, cumlogsumexp as JAX writes it, a
// running argmax of two operands) expand into prefix scans of log2(N)
// steps, with no loop and no reduce-window left, that agree with the
// evaluator's in-order fold; a reducer that is not associative is refused.
func TestScanWindows(t *testing.T) {
	const reducers = `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] maximum(a, b)
}
logaddexp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  sub = f32[] subtract(a, b)
  ne = pred[] compare(sub, sub), direction=NE
  add = f32[] add(a, b)
  mx = f32[] maximum(a, b)
  abs = f32[] abs(sub)
  neg = f32[] negate(abs)
  exp = f32[] exponential(neg)
  l1p = f32[] log-plus-one(exp)
  add2 = f32[] add(mx, l1p)
  ROOT r = f32[] select(ne, add, add2)
}
` + argmaxAndDecay + ``
	cases := map[string]string{
		"cumsum over 1000": reducers + `ENTRY e {
  x = f32[1000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[1000] reduce-window(x, z), window={size=1000 pad=999_0}, to_apply=add
}`,
		"reversed cumsum along rows": reducers + `ENTRY e {
  x = f32[3,37] parameter(0)
  z = f32[] constant(1.5)
  ROOT r = f32[3,37] reduce-window(x, z), window={size=1x37 pad=0_0x0_36}, to_apply=add
}`,
		"cummax of integers along the first dim": reducers + `ENTRY e {
  x = s32[33,4] parameter(0)
  z = s32[] constant(-2147483648)
  ROOT r = s32[33,4] reduce-window(x, z), window={size=33x1 pad=32_0x0_0}, to_apply=max
}`,
		"cumlogsumexp (JAX's reducer)": reducers + `ENTRY e {
  x = f32[16,512] parameter(0)
  z = f32[] constant(-inf)
  ROOT r = f32[16,512] reduce-window(x, z), window={size=1x512 pad=0_0x511_0}, to_apply=logaddexp
}`,
		"running argmax of two operands": reducers + `ENTRY e {
  v = f32[2,40] parameter(0)
  i = s32[2,40] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  z = s32[] constant(-1)
  r = (f32[2,40], s32[2,40]) reduce-window(v, i, lo, z), window={size=1x40 pad=0_0x39_0}, to_apply=argmax
  ROOT o = s32[2,40] get-tuple-element(r), index=1
}`,
	}
	defer func(w int64) { legalize.MaxWindowPositions = w }(legalize.MaxWindowPositions)
	legalize.MaxWindowPositions = 2
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			evaltest.CheckExpanded(t, name, text, legalize.ExpandReduceWindows)
			m, err := hlo.Parse(name, text)
			require.NoError(t, err)
			require.NoError(t, legalize.ExpandReduceWindows(m))
			require.NotContains(t, m.String(), "while(", "a scan, not a loop")
		})
	}
	m, err := hlo.Parse("decay", reducers+`ENTRY e {
  x = f32[12] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[12] reduce-window(x, z), window={size=12 pad=11_0}, to_apply=decay
}`)
	require.NoError(t, err)
	err = legalize.ExpandReduceWindows(m)
	require.ErrorContains(t, err, "decay is not associative")
}

// argmaxAndDecay are two reducers of the window tests: an argmax of a value
// and its index (associative) and a running decay a*0.5 + x (not).
const argmaxAndDecay = `argmax {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  x0 = f32[] parameter(2)
  x1 = s32[] parameter(3)
  gt = pred[] compare(x0, a0), direction=GT
  m = f32[] select(gt, x0, a0)
  n = s32[] select(gt, x1, a1)
  ROOT t = (f32[], s32[]) tuple(m, n)
}
decay {
  a = f32[] parameter(0)
  x = f32[] parameter(1)
  h = f32[] constant(0.5)
  d = f32[] multiply(a, h)
  ROOT s = f32[] add(d, x)
}
`
