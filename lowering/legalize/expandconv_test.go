package legalize_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/pulse-sim/pulse/lowering/legalize"
	"github.com/stretchr/testify/require"
)

// convModule is a module with one convolution of the given operand shapes.
func convModule(lhs, rhs, out, attrs string) string {
	return fmt.Sprintf(`HloModule conv
ENTRY e {
  a = %s parameter(0)
  b = %s parameter(1)
  ROOT c = %s convolution(a, b), %s
}
`, lhs, rhs, out, attrs)
}

// expandConvCases cover every attribute the rewrite handles: layouts,
// strides, padding (negative too), lhs and rhs dilation, reversal,
// feature groups (dense and depthwise, with channel multipliers), batch
// groups (dense and the depthwise weight gradient), mixed types and the
// shapes of MobileNet's backward pass.
var expandConvCases = []struct{ name, text string }{
	{"nhwc 3x3 same", convModule("f32[2,6,6,3]", "f32[3,3,3,4]", "f32[2,6,6,4]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f")},
	{"nchw 1x1", convModule("f32[2,5,4,4]", "f32[7,5,1,1]", "f32[2,7,4,4]", "window={size=1x1}, dim_labels=bf01_oi01->bf01")},
	{"nchw 1x1 weight gradient", convModule("f32[4,3,5,5]", "f32[4,6,5,5]", "f32[1,1,3,6]", "window={size=5x5}, dim_labels=fb01_io01->01bf")},
	{"nchw 1x1 input gradient", convModule("f32[3,6,5,5]", "f32[1,1,4,6]", "f32[3,4,5,5]", "window={size=1x1}, dim_labels=bf01_01oi->bf01")},
	{"stride 2", convModule("f32[1,3,9,9]", "f32[4,3,3,3]", "f32[1,4,5,5]", "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01")},
	{"lhs dilation (transposed conv)", convModule("f32[2,3,4,4]", "f32[3,3,3,2]", "f32[2,2,8,8]", "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=bf01_01io->bf01")},
	{"rhs dilation", convModule("f32[1,10,10,2]", "f32[3,3,2,3]", "f32[1,6,6,3]", "window={size=3x3 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f")},
	{"negative padding", convModule("f32[1,8,2]", "f32[3,2,2]", "f32[1,6,2]", "window={size=3 pad=-1_1}, dim_labels=b0f_0io->b0f")},
	{"1d asymmetric", convModule("f32[3,11,4]", "f32[4,4,5]", "f32[3,4,5]", "window={size=4 stride=3 pad=2_0}, dim_labels=b0f_0io->b0f")},
	{"3d", convModule("f32[1,4,4,4,2]", "f32[2,2,2,2,3]", "f32[1,3,3,3,3]", "window={size=2x2x2}, dim_labels=b012f_012io->b012f")},
	{"reversal", convModule("f32[1,5,5,1]", "f32[2,2,1,1]", "f32[1,4,4,1]", "window={size=2x2 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f")},
	{"odd output layout", convModule("f32[6,2,3,5]", "f32[2,3,4,2]", "f32[4,5,2,4]", "window={size=2x2}, dim_labels=0bf1_0io1->f0b1")},
	{"feature groups", convModule("f32[2,6,6,4]", "f32[3,3,2,6]", "f32[2,6,6,6]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2")},
	{"depthwise", convModule("f32[2,4,7,7]", "f32[3,3,4,1]", "f32[2,4,7,7]", "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_01oi->bf01, feature_group_count=4")},
	{"depthwise stride 2", convModule("f32[2,3,8,8]", "f32[3,1,3,3]", "f32[2,3,4,4]", "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=3")},
	{"depthwise multiplier", convModule("f32[1,5,5,3]", "f32[2,2,1,6]", "f32[1,4,4,6]", "window={size=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=3")},
	{"depthwise transposed", convModule("f32[2,3,4,4]", "f32[3,3,3,1]", "f32[2,3,8,8]", "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=bf01_01oi->bf01, feature_group_count=3")},
	{"weight gradient", convModule("f32[4,3,7,7]", "f32[4,5,7,7]", "f32[1,1,3,5]", "window={size=7x7}, dim_labels=fb01_io01->01bf")},
	{"weight gradient padded", convModule("f32[4,3,6,6]", "f32[4,5,6,6]", "f32[3,3,3,5]", "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->01bf")},
	{"depthwise weight gradient", convModule("f32[4,3,6,6]", "f32[4,3,6,6]", "f32[3,3,1,3]", "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=3")},
	{"depthwise weight gradient dilated", convModule("f32[2,3,8,8]", "f32[2,3,4,4]", "f32[3,3,1,3]", "window={size=4x4 pad=1_0x1_0 rhs_dilate=2x2}, dim_labels=fb01_io01->01bf, batch_group_count=3")},
	// JAX's NHWC weight gradients (flatWeightGradient): same padding, valid, 1-D.
	{"nhwc weight gradient", convModule("f32[2,6,6,3]", "f32[2,6,6,5]", "f32[3,3,3,5]", "window={size=6x6 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf")},
	{"nhwc weight gradient valid", convModule("f32[2,7,7,3]", "f32[2,6,6,4]", "f32[2,2,3,4]", "window={size=6x6}, dim_labels=f01b_i01o->01bf")},
	{"1d weight gradient bf16", convModule("bf16[3,10,4]", "bf16[3,8,2]", "f32[5,4,2]", "window={size=8 pad=1_1}, dim_labels=f0b_i0o->0bf")},
	{"batch groups", convModule("f32[3,4,5]", "f32[3,6,2]", "f32[5,2,6]", "window={size=2 pad=0_1}, dim_labels=fb0_io0->0bf, batch_group_count=2")},
	{"bf16 into f32", convModule("bf16[1,5,5,4]", "bf16[3,3,4,8]", "f32[1,3,3,8]", "window={size=3x3}, dim_labels=b01f_01io->b01f")},
	{"bf16", convModule("bf16[1,5,5,4]", "bf16[3,3,4,8]", "bf16[1,3,3,8]", "window={size=3x3}, dim_labels=b01f_01io->b01f")},
	{"mixed types", convModule("bf16[1,4,4,2]", "f32[1,1,2,3]", "f32[1,4,4,3]", "window={size=1x1}, dim_labels=b01f_01io->b01f")},
	{"s8 into s32", convModule("s8[1,4,4,2]", "s8[2,2,2,3]", "s32[1,3,3,3]", "window={size=2x2}, dim_labels=b01f_01io->b01f")},
	{"no spatial dims", convModule("f32[3,4]", "f32[4,5]", "f32[3,5]", "dim_labels=bf_io->bf")},
	{"window larger than input", convModule("f32[1,2,2,1]", "f32[3,3,1,1]", "f32[1,0,0,1]", "window={size=3x3}, dim_labels=b01f_01io->b01f")},
}

func TestExpandConvolutions(t *testing.T) {
	// Every convolution expanded: the plane correlations a depthwise
	// weight gradient becomes otherwise are TestPlaneCorrelations'.
	defer func(on bool) { legalize.PlaneCorrelation = on }(legalize.PlaneCorrelation)
	legalize.PlaneCorrelation = false
	for _, c := range expandConvCases {
		t.Run(c.name, func(t *testing.T) {
			evaltest.CheckExpanded(t, c.name, c.text, legalize.ExpandConvolutions)
		})
	}
}

// TestExpandXLATests: every convolution and batch norm of XLA's own tests
// that evaluates on the host also evaluates, within tolerance, once
// expanded.
func TestExpandXLATests(t *testing.T) {
	for _, k := range []struct {
		marker string
		expand func(*hlo.Module) error
	}{{"convolution(", legalize.ExpandConvolutions}, {"batch-norm-", expand.ExpandBatchNorms}, {"reduce-window(", legalize.ExpandReduceWindows}} {
		var n, checked int
		corpus.ForEachXLACase(t, func(c corpus.XLACase) {
			if !strings.Contains(c.Text, k.marker) {
				return
			}
			m, err := hlo.Parse("case.hlo", c.Text)
			if err != nil || verify.Verify("case.hlo", m) != nil {
				return
			}
			n++
			name := fmt.Sprintf("%s:%d", c.Source, c.Line)
			x := m.Clone()
			if err := k.expand(x); err != nil {
				t.Logf("%s: %v", name, err)
				return
			}
			again, err := hlo.Parse(name, x.String())
			require.NoError(t, err, name)
			require.NoError(t, verify.Verify(name, again), name)
			if eval.ParamElements(m) > 1<<16 {
				return
			}
			args, err := eval.RandomArgs(m, 5)
			if err != nil {
				return
			}
			want, err := (&eval.Evaluator{File: name, M: m, MaxLiveElements: 1 << 20, MaxWhileIterations: 100}).Run(args)
			if err != nil {
				return
			}
			// The expansion adds loops of its own (a convolution's taps).
			got, err := (&eval.Evaluator{File: name, M: again, MaxLiveElements: 1 << 22, MaxWhileIterations: 1 << 20}).Run(args)
			require.NoError(t, err, name)
			evaltest.RequireClose(t, name, want, got)
			checked++
		})
		t.Logf("%s: %d verified XLA-test modules expanded; %d evaluated within tolerance", k.marker, n, checked)
	}
}

// TestExpandConvolutionTapLoops: with every convolution's taps in a loop,
// each case still evaluates as the convolution does, and to the same bits
// as the straight-line expansion (the loop sums in the same order, from
// the additive identity) where that too sums over the taps; the weight
// gradients, whose straight-line form is one dot per output position,
// sum in another order.
func TestExpandConvolutionTapLoops(t *testing.T) {
	defer func(on bool) { legalize.PlaneCorrelation = on }(legalize.PlaneCorrelation)
	legalize.PlaneCorrelation = false
	perOutput := map[string]bool{"weight gradient": true, "weight gradient padded": true, "nhwc weight gradient": true,
		"nhwc weight gradient valid": true, "1d weight gradient bf16": true, "nchw 1x1 weight gradient": true,
		"depthwise weight gradient": true, "depthwise weight gradient dilated": true}
	for _, c := range expandConvCases {
		t.Run(c.name, func(t *testing.T) {
			m, err := hlo.Parse(c.name, c.text)
			require.NoError(t, err)
			args, err := eval.RandomArgs(m, 7)
			require.NoError(t, err)
			// The flattened grid sums taps and features in one product;
			// the loop keeps the sum over taps.
			legalize.FlatGrid = false
			unrolled := m.Clone()
			err = legalize.ExpandConvolutions(unrolled)
			legalize.FlatGrid = true
			require.NoError(t, err)
			want, err := (&eval.Evaluator{File: c.name, M: unrolled}).Run(args)
			require.NoError(t, err)

			defer func(n int64) { legalize.MaxUnrolledTaps = n }(legalize.MaxUnrolledTaps)
			// 0: one tap per iteration; 2: the last dim's taps unrolled
			// where there are at most 2.
			for _, unroll := range []int64{0, 2} {
				legalize.MaxUnrolledTaps = unroll
				evaltest.CheckExpanded(t, c.name, c.text, legalize.ExpandConvolutions)
				// The tap loop itself: a few taps left unrolled would
				// otherwise go on the flattened grid.
				legalize.FlatGrid = false
				looped := m.Clone()
				err := legalize.ExpandConvolutions(looped)
				legalize.FlatGrid = true
				require.NoError(t, err)
				got, err := (&eval.Evaluator{File: c.name, M: looped}).Run(args)
				require.NoError(t, err)
				// Lhs dilation unrolled is split by output phase, its taps
				// summed inside each phase's dot: the loop's order differs
				// (CheckExpanded holds both to the evaluator).
				if !perOutput[c.name] && !strings.Contains(c.text, "lhs_dilate") {
					require.Empty(t, eval.BitDiff(want, got), c.name)
				}
			}
		})
	}
}

// TestExpandConvolutionLoopSize: a 30x30 window (XLA's
// swap_conv_operands_test) expands into a loop over the window's rows of
// 30 dots (one row of taps), not 900 dots.
func TestExpandConvolutionLoopSize(t *testing.T) {
	m, err := hlo.Parse("swap.hlo", convModule("f32[512,128,3,3]", "f32[1,30,30,512]", "f32[1,32,32,128]",
		"window={size=30x30 pad=29_29x29_29}, dim_labels=fb01_o01i->f01b"))
	require.NoError(t, err)
	require.NoError(t, legalize.ExpandConvolutions(m))
	dots, whiles := 0, 0
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			switch in.Opcode {
			case hlo.OpDot:
				dots++
			case hlo.OpWhile:
				whiles++
				n, ok := analysis.KnownTripCount(in)
				require.True(t, ok)
				require.EqualValues(t, 30, n)
			}
		}
	}
	require.Equal(t, 30, dots)
	require.Equal(t, 1, whiles)
}

// A weight gradient's few output positions (3x3) with small rows (B = 3)
// stack their windows into one dot's rows, as im2col does, rather than a
// dot of 3 rows per position; a convolution with many positions keeps its
// dot per kernel tap. Values are checked by TestExpandConvolutions.
func TestConvolutionPositionsStacked(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		dots       int
	}{
		{"weight gradient padded", convModule("f32[4,3,6,6]", "f32[4,5,6,6]", "f32[3,3,3,5]", "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->01bf"), 1},
		{"nhwc 3x3 same: taps", convModule("f32[2,6,6,3]", "f32[3,3,3,4]", "f32[2,6,6,4]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"), 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := hlo.Parse("c.hlo", tc.text)
			require.NoError(t, err)
			require.NoError(t, legalize.ExpandConvolutions(m))
			require.Equal(t, tc.dots, strings.Count(m.String(), " dot("))
		})
	}
}

// TestConvolutionSubPixel: a convolution with lhs dilation (a transposed
// convolution, a strided convolution's input gradient) is split by output
// phase, reading the undilated input: no pad with interior padding, a
// dot per phase that some tap reaches (its taps stacked in the
// contraction); the values are the evaluator's, for asymmetric and
// negative padding, kernels shorter than the dilation (phases no tap
// reaches), 1-D to 3-D, and mixed types.
func TestConvolutionSubPixel(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		dots       int
	}{
		{"upsample 2x, 4x4 kernel", convModule("f32[2,8,8,3]", "f32[4,4,3,5]", "f32[2,16,16,5]", "window={size=4x4 pad=2_2x2_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f"), 4},
		{"stride-2 input gradient, 3x3", convModule("f32[2,4,4,3]", "f32[3,3,3,2]", "f32[2,8,8,2]", "window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f"), 4},
		{"1-D, dilation 3, negative padding", convModule("f32[2,3,10]", "f32[4,3,5]", "f32[2,4,24]", "window={size=5 pad=-1_1 lhs_dilate=3}, dim_labels=bf0_oi0->bf0"), 3},
		{"kernel shorter than the dilation", convModule("f32[1,5,5,2]", "f32[1,1,2,2]", "f32[1,10,10,2]", "window={size=1x1 pad=0_1x0_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f"), 1},
		{"3-D", convModule("f32[1,3,3,3,2]", "f32[2,2,2,2,2]", "f32[1,6,6,6,2]", "window={size=2x2x2 pad=1_1x1_1x1_1 lhs_dilate=2x2x2}, dim_labels=b012f_012io->b012f"), 8},
		{"bf16 into f32", convModule("bf16[2,4,4,3]", "bf16[4,4,3,5]", "f32[2,8,8,5]", "window={size=4x4 pad=2_2x2_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f"), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evaltest.CheckExpanded(t, tc.name, tc.text, legalize.ExpandConvolutions)
			m, err := hlo.Parse("c.hlo", tc.text)
			require.NoError(t, err)
			require.NoError(t, legalize.ExpandConvolutions(m))
			text := m.String()
			require.Equal(t, tc.dots, strings.Count(text, " dot("), text)
			require.NotRegexp(t, `padding=[^,]*_[-0-9]+_[1-9]`, text, "no interior (dilation) padding")
		})
	}
}
