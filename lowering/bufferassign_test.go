package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/lowering"
	"github.com/stretchr/testify/require"
)

// A scan as JAX writes it: each iteration reads the weights (rows x
// columns, passed through unchanged) and writes its output row into a stacked array with a
// dynamic-update-slice; the entry reads the weights again after the loop.
const scanStack = `HloModule scan
cond {
  p = (s32[], f32[%[1]d,%[2]d], f32[%[3]d,%[2]d], f32[%[2]d]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(%[1]d)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[%[1]d,%[2]d], f32[%[3]d,%[2]d], f32[%[2]d]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ys = f32[%[1]d,%[2]d] get-tuple-element(p), index=1
  w = f32[%[3]d,%[2]d] get-tuple-element(p), index=2
  h = f32[%[2]d] get-tuple-element(p), index=3
  h2 = f32[1,%[2]d] reshape(h)
  wr = f32[1,%[2]d] slice(w), slice={[0:1], [0:%[2]d]}
  d = f32[1,%[2]d] multiply(h2, wr)
  t = f32[1,%[2]d] tanh(d)
  z = s32[] constant(0)
  ys2 = f32[%[1]d,%[2]d] dynamic-update-slice(ys, t, i, z)
  hn = f32[%[2]d] reshape(t)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[%[1]d,%[2]d], f32[%[3]d,%[2]d], f32[%[2]d]) tuple(j, ys2, w, hn)
}
ENTRY e {
  w = f32[%[3]d,%[2]d] parameter(0)
  h = f32[%[2]d] parameter(1)
  z = s32[] constant(0)
  zf = f32[] constant(0)
  ys = f32[%[1]d,%[2]d] broadcast(zf), dimensions={}
  t = (s32[], f32[%[1]d,%[2]d], f32[%[3]d,%[2]d], f32[%[2]d]) tuple(z, ys, w, h)
  l = (s32[], f32[%[1]d,%[2]d], f32[%[3]d,%[2]d], f32[%[2]d]) while(t), condition=cond, body=body
  out = f32[%[1]d,%[2]d] get-tuple-element(l), index=1
  hl = f32[%[2]d] get-tuple-element(l), index=3
  hl2 = f32[1,%[2]d] reshape(hl)
  wl = f32[1,%[2]d] slice(w), slice={[1:2], [0:%[2]d]}
  last = f32[1,%[2]d] add(hl2, wl)
  ROOT res = (f32[%[1]d,%[2]d], f32[1,%[2]d]) tuple(out, last)
}
`

// TestScanBuffersAsXLA: the stacked output is updated in place (its
// kernel moves only the row), the loop carries neither it nor the weights,
// and the program needs one copy of each, as XLA's buffer assignment.
func TestScanBuffersAsXLA(t *testing.T) {
	const n, d, rows = 64, 512, 256
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			x, r := compileRunChecked(t, chip, nil, fmt.Sprintf(scanStack, n, d, rows))
			row, stack, w := int64(d*4), int64(n*d*4), int64(rows*d*4)
			// The body's one DMA-only kernel is the dynamic-update-slice.
			var dus []lowering.Kernel
			for _, k := range x.Kernels {
				if strings.HasPrefix(k.Name, "l/body/") && k.Kind == "copy" {
					dus = append(dus, k)
				}
				require.NotEqual(t, "l/loop-carry-save", k.Name, "nothing needs saving")
				if k.Name == "l/loop-carry" {
					require.Equal(t, 2*row, k.Bytes, "the carry moves h alone: i+1 is written into i's buffer")
				}
			}
			require.Len(t, dus, 1)
			require.Equal(t, 2*row, dus[0].Bytes, "the update alone moves")
			for _, k := range r.Kernels {
				if k.Name == "l/loop-carry" {
					require.Equal(t, int64(n), k.Runs)
				}
			}
			// One stacked array (32 pages), one weight matrix, and the
			// small arrays of a page each: not a second stacked array.
			require.Less(t, x.PeakHBMBytes, w+stack+16*4096, "one stacked array, one weight matrix")

			// The report at the peak accounts for the bytes it names.
			h := x.HBM
			require.Equal(t, x.PeakHBMBytes, h.Needed)
			require.LessOrEqual(t, h.Live, h.Needed)
			require.Equal(t, h.Live, h.Parameters+h.Constants+h.Outputs+h.Temporaries)
			require.NotEmpty(t, h.Arrays)
			var sum int64
			for i, a := range h.Arrays {
				sum += a.Bytes
				if i > 0 {
					require.LessOrEqual(t, a.Bytes, h.Arrays[i-1].Bytes, "largest first")
				}
				require.True(t, strings.HasPrefix(a.Pos, "t.hlo:"), a.Pos)
			}
			require.Equal(t, h.Live, sum)
			require.Equal(t, "parameter", h.Arrays[0].Kind, "w, the largest")
			require.Equal(t, "w", h.Arrays[0].HLO)
			require.Equal(t, stack, h.Arrays[1].Bytes)
			require.Equal(t, "output", h.Arrays[1].Kind, "the stacked array: the loop's, then the module's result")
		})
	}
}

// TestInPlaceOnlyWhenDead: a dynamic-update-slice whose operand is read
// afterwards (in the entry, in a loop body, or as a loop value also passed
// through) must copy it; the values say whether it did.
func TestInPlaceOnlyWhenDead(t *testing.T) {
	cases := map[string]string{
		"entry operand read after": `ENTRY e {
  x = f32[64,128] parameter(0)
  u = f32[2,128] parameter(1)
  i = s32[] constant(5)
  z = s32[] constant(0)
  v = f32[64,128] dynamic-update-slice(x, u, i, z)
  s = f32[64,128] add(v, x)
  ROOT r = (f32[64,128], f32[64,128]) tuple(v, s)
}`,
		"entry operand dead": `ENTRY e {
  x = f32[64,128] parameter(0)
  u = f32[2,128] parameter(1)
  e = f32[64,128] exponential(x)
  i = s32[] constant(5)
  z = s32[] constant(0)
  v = f32[64,128] dynamic-update-slice(e, u, i, z)
  ROOT s = f32[64,128] add(v, x)
}`,
		"body reads the old value after the update": `HloModule m
cond {
  p = (s32[], f32[8,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[8,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ys = f32[8,128] get-tuple-element(p), index=1
  row = f32[1,128] dynamic-slice(ys, i, i), dynamic_slice_sizes={1,128}
  e = f32[1,128] exponential(row)
  z = s32[] constant(0)
  ys2 = f32[8,128] dynamic-update-slice(ys, e, i, z)
  old = f32[8,128] negate(ys)
  s = f32[8,128] add(ys2, old)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[8,128]) tuple(j, s)
}
ENTRY e {
  x = f32[8,128] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[8,128]) tuple(z, x)
  l = (s32[], f32[8,128]) while(t), condition=cond, body=body
  ROOT o = f32[8,128] get-tuple-element(l), index=1
}`,
		"one initial array, passed through and updated": `HloModule m
cond {
  p = (s32[], f32[8,128], f32[8,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[8,128], f32[8,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[8,128] get-tuple-element(p), index=1
  b = f32[8,128] get-tuple-element(p), index=2
  row = f32[1,128] dynamic-slice(a, i, i), dynamic_slice_sizes={1,128}
  e = f32[1,128] exponential(row)
  z = s32[] constant(0)
  b2 = f32[8,128] dynamic-update-slice(b, e, i, z)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[8,128], f32[8,128]) tuple(j, a, b2)
}
ENTRY e {
  x = f32[8,128] parameter(0)
  c = f32[8,128] cosine(x)
  z = s32[] constant(0)
  t = (s32[], f32[8,128], f32[8,128]) tuple(z, c, c)
  l = (s32[], f32[8,128], f32[8,128]) while(t), condition=cond, body=body
  o = f32[8,128] get-tuple-element(l), index=2
  ROOT s = f32[8,128] add(o, c)
}`,
		"loop values swapped and updated": `HloModule m
cond {
  p = (s32[], f32[8,128], f32[8,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[8,128], f32[8,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[8,128] get-tuple-element(p), index=1
  b = f32[8,128] get-tuple-element(p), index=2
  row = f32[1,128] dynamic-slice(b, i, i), dynamic_slice_sizes={1,128}
  e = f32[1,128] exponential(row)
  z = s32[] constant(0)
  a2 = f32[8,128] dynamic-update-slice(a, e, i, z)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[8,128], f32[8,128]) tuple(j, b, a2)
}
ENTRY e {
  x = f32[8,128] parameter(0)
  y = f32[8,128] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[8,128], f32[8,128]) tuple(z, x, y)
  l = (s32[], f32[8,128], f32[8,128]) while(t), condition=cond, body=body
  a = f32[8,128] get-tuple-element(l), index=1
  b = f32[8,128] get-tuple-element(l), index=2
  ROOT s = (f32[8,128], f32[8,128]) tuple(a, b)
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { compileRunChecked(t, chip, nil, src) })
		}
	}
}

// TestLoopTemporariesReleased: what a loop body leaves in its result is
// given back once the carry has copied it, so an array made after the
// loop reuses its bytes.
func TestLoopTemporariesReleased(t *testing.T) {
	src := `HloModule m
cond {
  p = (s32[], f32[1024,1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[1024,1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[1024,1024] get-tuple-element(p), index=1
  e = f32[1024,1024] exponential(a)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[1024,1024]) tuple(j, e)
}
ENTRY e {
  x = f32[1024,1024] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[1024,1024]) tuple(z, x)
  l = (s32[], f32[1024,1024]) while(t), condition=cond, body=body
  o = f32[1024,1024] get-tuple-element(l), index=1
  n = f32[1024,1024] negate(o)
  ROOT s = f32[1024,1024] add(n, x)
}`
	const mib4 = 4 << 20
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			x, _ := compileRunChecked(t, chip, nil, src)
			// x, the loop's state and the body's result: three arrays of
			// 4 MiB; the result made after the loop takes the body
			// result's bytes.
			require.Less(t, x.PeakHBMBytes, int64(3*mib4+mib4/2))
		})
	}
}

// TestElementwiseInPlace: an elementwise kernel whose operand dies at it
// writes its result into that operand's buffer (an AdamW update into its
// donated parameter), so a chain of them needs one array, not two; an
// operand read afterwards, or read transposed, keeps its own.
func TestElementwiseInPlace(t *testing.T) {
	const mib4 = 4 << 20
	donated := `HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  w = f32[1024,1024] parameter(0)
  g = f32[1024,1024] parameter(1)
  lr = f32[] constant(0.1)
  l = f32[1024,1024] broadcast(lr), dimensions={}
  s = f32[1024,1024] multiply(g, l)
  ROOT u = f32[1024,1024] subtract(w, s)
}`
	for _, chip := range chips {
		t.Run("donated/"+chip, func(t *testing.T) {
			x, _ := compileRunChecked(t, chip, nil, donated)
			require.Less(t, x.PeakHBMBytes, int64(2*mib4+mib4/2), "w and g: the update is written into w")
		})
	}
	for name, src := range map[string]string{
		"read after": `ENTRY e {
  x = f32[256,256] parameter(0)
  e = f32[256,256] exponential(x)
  n = f32[256,256] negate(e)
  ROOT r = (f32[256,256], f32[256,256]) tuple(n, e)
}`,
		"read transposed": `ENTRY e {
  x = f32[256,256] parameter(0)
  e = f32[256,256] exponential(x)
  t = f32[256,256] transpose(e), dimensions={1,0}
  ROOT a = f32[256,256] add(e, t)
}`,
		"read broadcast": `ENTRY e {
  x = f32[256,256] parameter(0)
  e = f32[256,256] exponential(x)
  r = f32[1,256] slice(e), slice={[3:4], [0:256]}
  r2 = f32[256] reshape(r)
  b = f32[256,256] broadcast(r2), dimensions={1}
  ROOT a = f32[256,256] add(e, b)
}`,
	} {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { compileRunChecked(t, chip, nil, src) })
		}
	}
}
