package lowering_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/lowering"
	"github.com/stretchr/testify/require"
)

// loopInitBytes is what the program's loop-init copies move.
func loopInitBytes(t *testing.T, chip, src string) int64 {
	t.Helper()
	comp, err := compileErr(t, chip, src)
	require.NoError(t, err)
	var n int64
	for _, k := range comp.Kernels {
		if strings.HasSuffix(k.Name, "/loop-init") {
			n += k.Bytes
		}
	}
	return n
}

// TestWhileTakesDyingInit: a while's initial array that nothing reads
// afterwards becomes its loop buffer as it is (no loop-init copy); one
// read after the loop, a parameter or a constant is copied, and every
// result stays right.
func TestWhileTakesDyingInit(t *testing.T) {
	loop := func(after string) string {
		return `HloModule m
cond {
  s = (s32[], f32[64,32]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[64,32]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[64,32] get-tuple-element(s), index=1
  y = f32[64,32] multiply(x, x)
  ROOT t = (s32[], f32[64,32]) tuple(j, y)
}
ENTRY e {
  p = f32[64,32] parameter(0)
  a = f32[64,32] sine(p)
  z = s32[] constant(0)
  init = (s32[], f32[64,32]) tuple(z, a)
  w = (s32[], f32[64,32]) while(init), condition=cond, body=body
  r = f32[64,32] get-tuple-element(w), index=1
` + after + `
}`
	}
	dying := loop("  ROOT o = f32[64,32] add(r, r)")
	kept := loop("  ROOT o = f32[64,32] add(r, a)")
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			// Only the s32 counter (a constant) is copied in.
			require.EqualValues(t, 2*4, loopInitBytes(t, chip, dying))
			require.EqualValues(t, 2*4+2*64*32*4, loopInitBytes(t, chip, kept))
			runChecked(t, chip, dying)
			runChecked(t, chip, kept)
		})
	}
}

// TestConvolutionTapLoop: a 9x9 window (81 taps, more than are unrolled)
// runs as a loop over the window's rows: a tenth of the kernels, the
// same numbers.
func TestConvolutionTapLoop(t *testing.T) {
	src := `HloModule conv81
ENTRY e {
  a = f32[2,20,20,16] parameter(0)
  b = f32[9,9,16,32] parameter(1)
  ROOT c = f32[2,12,12,32] convolution(a, b), window={size=9x9}, dim_labels=b01f_01io->b01f
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			comp, err := compileErr(t, chip, src)
			require.NoError(t, err)
			require.Less(t, len(comp.Kernels), 60, "81 taps unrolled are 324 kernels")
			runChecked(t, chip, src)
		})
	}
}

// TestNestedPasses: a loop kernel whose rows are walked in passes over
// two dims (a base-dilated reduce-window's batch and output rows, from
// XLA's spmd_partitioner_test.cc:4408) runs them as two nested loops, not
// one copy of the tile loop per pass (6,309 instructions before).
func TestNestedPasses(t *testing.T) {
	src := `HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT add = f32[] add(a, b)
}
ENTRY entry {
  p = f32[2,5,5,768] parameter(0)
  z = f32[] constant(0)
  ROOT rw = f32[2,17,17,768] reduce-window(p, z), window={size=1x5x5x1 pad=0_0x4_4x4_4x0_0 lhs_dilate=1x3x3x1}, to_apply=sum
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			comp, err := compileErr(t, chip, src)
			require.NoError(t, err)
			require.Contains(t, comp.Asm, "_run:")
			require.Less(t, len(comp.Program.Code), 1000)
			runChecked(t, chip, src)
		})
	}
}

// TestDotRunsOfBatches: an lhs free dim before the contracting one is
// transposed away first (faster than walking it as batches, a run per
// batch: lowering.awkwardDot); with the runs allowed (up to 16 here, as
// they once were) the walk still gives the evaluator's numbers, and more
// runs are transposed (XLA's spmd_partitioner_test.cc:5664: 143,051
// instructions walked, 20,203 transposed).
func TestDotRunsOfBatches(t *testing.T) {
	dot := func(b int) string {
		return fmt.Sprintf(`HloModule m
ENTRY e {
  lhs = f32[%[1]d,3,16,8] parameter(0)
  rhs = f32[%[1]d,32,16] parameter(1)
  ROOT d = f32[%[1]d,3,8,32] dot(lhs, rhs), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
}`, b)
	}
	for _, chip := range chips {
		for _, tc := range []struct {
			batches, runs int
			transpose     bool
		}{{4, 0, true}, {4, 16, false}, {17, 16, true}} {
			t.Run(fmt.Sprintf("%s/%d batches, %d runs", chip, tc.batches, tc.runs), func(t *testing.T) {
				defer lowering.SetMaxLhsRuns(int64(tc.runs))()
				comp, err := compileErr(t, chip, dot(tc.batches))
				require.NoError(t, err)
				require.Equal(t, tc.transpose, regexp.MustCompile(`kernel k\d+: transpose `).MatchString(comp.Asm))
				runChecked(t, chip, dot(tc.batches))
			})
		}
	}
}
