package eval

import (
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/stretchr/testify/require"
)

func randArr(r *rand.Rand, elem string, dims ...int64) *Value {
	v := NewArray(&hlo.Shape{Elem: elem, Dims: dims})
	for i := range v.Data {
		v.Data[i] = float64(float32(2*r.Float64() - 1))
	}
	return v
}

// naiveConv: NHWC input, HWIO kernel (I = C/groups), stride, symmetric pad.
func naiveConv(x, w *Value, stride, pad, groups int64, oh, ow int64) []float64 {
	N, H, W, C := x.Shape.Dims[0], x.Shape.Dims[1], x.Shape.Dims[2], x.Shape.Dims[3]
	KH, KW, CI, O := w.Shape.Dims[0], w.Shape.Dims[1], w.Shape.Dims[2], w.Shape.Dims[3]
	_ = C
	out := make([]float64, N*oh*ow*O)
	for n := int64(0); n < N; n++ {
		for y := int64(0); y < oh; y++ {
			for z := int64(0); z < ow; z++ {
				for o := int64(0); o < O; o++ {
					g := o / (O / groups)
					s := 0.0
					for ky := int64(0); ky < KH; ky++ {
						for kx := int64(0); kx < KW; kx++ {
							iy, ix := y*stride-pad+ky, z*stride-pad+kx
							if iy < 0 || iy >= H || ix < 0 || ix >= W {
								continue
							}
							for c := int64(0); c < CI; c++ {
								s += x.Data[((n*H+iy)*W+ix)*x.Shape.Dims[3]+g*CI+c] * w.Data[((ky*KW+kx)*CI+c)*O+o]
							}
						}
					}
					out[((n*oh+y)*ow+z)*O+o] = float64(float32(s))
				}
			}
		}
	}
	return out
}

func TestEvalConvolution(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	cases := []struct {
		name                string
		src                 string
		stride, pad, groups int64
		x, w                []int64
		oh                  int64
	}{
		{"3x3 stride 2 pad 1", `ENTRY e {
  x = f32[2,7,7,4] parameter(0)
  w = f32[3,3,4,5] parameter(1)
  ROOT c = f32[2,4,4,5] convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}`, 2, 1, 1, []int64{2, 7, 7, 4}, []int64{3, 3, 4, 5}, 4},
		{"depthwise", `ENTRY e {
  x = f32[1,5,5,6] parameter(0)
  w = f32[3,3,1,6] parameter(1)
  ROOT c = f32[1,5,5,6] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=6
}`, 1, 1, 6, []int64{1, 5, 5, 6}, []int64{3, 3, 1, 6}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, w := randArr(r, "f32", c.x...), randArr(r, "f32", c.w...)
			v := evalText(t, c.src, x, w)
			want := naiveConv(x, w, c.stride, c.pad, c.groups, c.oh, c.oh)
			require.Len(t, v.Data, len(want))
			for i := range want {
				require.InDelta(t, want[i], v.Data[i], 1e-5)
			}
		})
	}
	// a convolution with no spatial dimensions is a matmul (how TPU dumps print dots).
	a, b := randArr(r, "f32", 3, 4), randArr(r, "f32", 4, 2)
	conv := evalText(t, `ENTRY e {
  a = f32[3,4] parameter(0)
  b = f32[4,2] parameter(1)
  ROOT c = f32[3,2] convolution(a, b), dim_labels=bf_io->bf
}`, a, b)
	dot := evalText(t, `ENTRY e {
  a = f32[3,4] parameter(0)
  b = f32[4,2] parameter(1)
  ROOT c = f32[3,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, a, b)
	require.Equal(t, dot.Data, conv.Data)
}

func TestEvalPadAndDynamicSlices(t *testing.T) {
	v := evalText(t, `ENTRY e {
  x = f32[2,2] parameter(0)
  z = f32[] constant(0)
  p = f32[3,4] pad(x, z), padding=1_0x0_1_1
  i = s32[] constant(1)
  j = s32[] constant(7)
  ds = f32[2,2] dynamic-slice(p, i, j), dynamic_slice_sizes={2,2}
  u = f32[1,2] constant({{9, 8}})
  dus = f32[2,2] dynamic-update-slice(x, u, i, i)
  ROOT t = (f32[3,4], f32[2,2], f32[2,2]) tuple(p, ds, dus)
}`, Array("f32", []int64{2, 2}, 1, 2, 3, 4))
	require.Equal(t, []float64{0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0}, v.Tuple[0].Data, "edge and interior padding")
	require.Equal(t, []float64{2, 0, 4, 0}, v.Tuple[1].Data, "start 7 clamps to 2")
	require.Equal(t, []float64{1, 2, 9, 8}, v.Tuple[2].Data, "column start 1 clamps to 0 so the [1,2] update fits")
}

func TestEvalCorpusConvolutions(t *testing.T) {
	corpus.HLOFiles(t)
	for _, name := range []string{"tf_isolated_convolution_nhwc.hlo", "test_conv_bias_sideinput_relu.hlo"} {
		t.Run(name, func(t *testing.T) {
			f := corpus.Path(t, "hlo", name)
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			m, err := hlo.Parse(f, string(src))
			require.NoError(t, err)
			require.NoError(t, verify.Verify(f, m))
			args, err := RandomArgs(m, 1)
			require.NoError(t, err)
			_, err = (&Evaluator{File: f, M: m}).Run(args)
			require.NoError(t, err)
		})
	}
}

func TestEvalReduceWindow(t *testing.T) {
	v := evalText(t, `
mx {
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
  x = f32[4,4] parameter(0)
  ninf = f32[] constant(-inf)
  z = f32[] constant(0)
  pool = f32[2,2] reduce-window(x, ninf), window={size=2x2 stride=2x2}, to_apply=mx
  cum = f32[4,4] reduce-window(x, z), window={size=1x4 pad=0_0x3_0}, to_apply=add
  ROOT t = (f32[2,2], f32[4,4]) tuple(pool, cum)
}`, Array("f32", []int64{4, 4}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
	require.Equal(t, []float64{6, 8, 14, 16}, v.Tuple[0].Data, "2x2 max pooling")
	require.Equal(t, []float64{1, 3, 6, 10, 5, 11, 18, 26, 9, 19, 30, 42, 13, 27, 42, 58}, v.Tuple[1].Data, "cumulative sums along rows")
}

// TestParallelFor: every index is visited once whatever the split, and a
// worker's panic reaches the caller (where Run makes it an error).
func TestParallelFor(t *testing.T) {
	for _, tc := range []struct{ n, cost int }{{0, 1}, {1, 1}, {7, 1 << 20}, {1000, 1 << 12}, {1 << 20, 1}} {
		seen := make([]int32, tc.n)
		parallelFor(tc.n, tc.cost, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			require.Equal(t, int32(1), c, "n=%d index %d", tc.n, i)
		}
	}
	if runtime.GOMAXPROCS(0) < 2 {
		return // one worker: nothing runs off the caller's goroutine
	}
	require.PanicsWithValue(t, "boom", func() {
		parallelFor(1<<20, 1, func(lo, hi int) {
			if lo > 0 {
				panic("boom")
			}
		})
	})
}
