package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/lowering"

	"github.com/stretchr/testify/require"
)

// TestDotsSplitAcrossCores: on a chip of two cores (tpuv4) a dot is split
// by the rows when its rhs is the smaller operand and by the columns when
// its lhs is, each core doing its share, with the values of the reference
// evaluator and about half the time of one of its cores doing it all.
func TestDotsSplitAcrossCores(t *testing.T) {
	for _, c := range []struct {
		name, split string
		m, k, n     int
		most        float64 // the two cores' cycles over one core's, at most
	}{
		{"tall: rows", "rows 0-255 | 256-511", 512, 256, 256, 0.8},
		{"wide: columns", "columns 0-255 | 256-511", 256, 256, 512, 0.9},
		// Small dots: latencies and the cores' meeting weigh more.
		{"uneven rows", "rows 0-103 | 104-199", 200, 256, 136, 0.95},
		{"few rows: columns", "columns 0-383 | 384-639", 136, 256, 640, 0.95},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := fmt.Sprintf(`HloModule m
ENTRY e {
  a = bf16[%[1]d,%[2]d] parameter(0)
  b = bf16[%[2]d,%[3]d] parameter(1)
  c = f32[%[1]d,%[3]d] parameter(2)
  d = f32[%[1]d,%[3]d] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[%[1]d,%[3]d] add(d, c)
}`, c.m, c.k, c.n)
			comp := compileFor(t, "tpuv4", src)
			require.Len(t, comp.CoreSplit, 1)
			require.Equal(t, c.split, comp.CoreSplit[0].How)
			require.Empty(t, comp.OneCore)
			two := runChecked(t, "tpuv4", src)
			one := runCheckedWith(t, "tpuv4", []string{"cores=1"}, src)
			require.Less(t, float64(two.Report.Cycles), c.most*float64(one.Report.Cycles))
			// Both cores' arrays worked.
			require.Positive(t, two.Report.Units["mxu0"].BusyCycles)
			require.Positive(t, two.Report.Units["core1.mxu0"].BusyCycles)
		})
	}
}

// TestKernelsOnCoreZero: a kernel no emitter splits runs on core 0 while
// core 1 waits at its end, and control flow runs on every core: a while
// loop whose condition core 0 computes gives the evaluator's values.
func TestKernelsOnCoreZero(t *testing.T) {
	src := fmt.Sprintf(swapLoop, 5, 5)
	comp := compileFor(t, "tpuv4", src)
	require.NotEmpty(t, comp.OneCore)
	require.Contains(t, comp.Asm, "bne     r1, r0, ")
	r := runChecked(t, "tpuv4", src)
	for _, k := range r.Kernels {
		if strings.HasPrefix(k.Name, "w/body/") {
			require.EqualValues(t, 5, k.Runs, k.Name)
		}
	}
	// A batched dot shares out its batches, with the evaluator's values; a
	// dot of one batch shares its rows; batches of one-tile matrices
	// (chunked, dotbatched.go) stay whole on core 0.
	batched := `HloModule m
ENTRY e {
  a = bf16[5,64,192] parameter(0)
  b = bf16[5,192,40] parameter(1)
  c = f32[5,64,40] parameter(2)
  d = f32[5,64,40] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ROOT r = f32[5,64,40] add(d, c)
}`
	bat := compileFor(t, "tpuv4", batched)
	require.Equal(t, []lowering.CoreSplit{{Kernel: "fusion.2", How: "batches 0-2 | 3-4"}}, bat.CoreSplit)
	runChecked(t, "tpuv4", batched)
	one := compileFor(t, "tpuv4", strings.ReplaceAll(batched, "[5,", "[1,"))
	require.Len(t, one.CoreSplit, 1) // one batch: split by rows instead
	require.Contains(t, one.CoreSplit[0].How, "rows")
	chunked := compileFor(t, "tpuv4", strings.ReplaceAll(strings.ReplaceAll(batched, "192", "72"), "[5,", "[6,"))
	require.Empty(t, chunked.CoreSplit)
}

// TestStreamKernelsSplitAcrossCores: elementwise loops and row reductions
// share their rows out among the cores in whole tiles, with the
// evaluator's values (uneven rows, a broadcast operand); a column
// reduction (accumulating) runs on core 0.
func TestStreamKernelsSplitAcrossCores(t *testing.T) {
	for _, c := range []struct{ name, src, split string }{
		{"loop", `HloModule m
ENTRY e {
  a = f32[999,300] parameter(0)
  b = f32[300] parameter(1)
  bb = f32[999,300] broadcast(b), dimensions={1}
  x = f32[999,300] exponential(a)
  ROOT r = f32[999,300] add(x, bb)
}`, "rows 0-499 | 500-998"},
		{"row reduction", `HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[999,300] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[999] reduce(a, z), dimensions={1}, to_apply=add
}`, "rows 0-499 | 500-998"},
		{"column reduction", `HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[999,300] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[300] reduce(a, z), dimensions={0}, to_apply=add
}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			comp := compileFor(t, "tpuv4", c.src)
			if c.split == "" {
				require.Empty(t, comp.CoreSplit)
				require.NotEmpty(t, comp.OneCore)
			} else {
				require.Len(t, comp.CoreSplit, 1)
				require.Equal(t, c.split, comp.CoreSplit[0].How)
			}
			two := runChecked(t, "tpuv4", c.src)
			if c.split != "" {
				require.Positive(t, two.Report.Units["core1.vpu"].BusyCycles)
				one := runCheckedWith(t, "tpuv4", []string{"cores=1"}, c.src)
				require.Less(t, two.Report.Cycles, one.Report.Cycles)
			}
		})
	}
}
