package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortOnChips: sorts (legalize.ExpandSorts, a bitonic network) give the
// evaluator's results on both chips: ascending and descending, along the
// last and an inner dimension, lengths that are and are not powers of two,
// several operands (argsort: the keys' ties resolved stably, as the
// evaluator does, for is_stable=false too), integer keys with many ties, a
// comparator with a tie-break, total order over NaN, infinities and signed
// zeros.
func TestSortOnChips(t *testing.T) {
	cmp := func(elem, dir, typ string, k int) string {
		s := "cmp {\n"
		for i := range 2 * k {
			e := elem
			if i >= 2 {
				e = "s32"
			}
			s += fmt.Sprintf("  p%d = %s[] parameter(%d)\n", i, e, i)
		}
		return s + fmt.Sprintf("  ROOT c = pred[] compare(p0, p1), direction=%s%s\n}\n", dir, typ)
	}
	cases := []struct {
		name, src string
	}{
		{"f32 ascending", cmp("f32", "LT", "", 1) + `ENTRY e {
  x = f32[3,37] parameter(0)
  ROOT s = f32[3,37] sort(x), dimensions={1}, to_apply=cmp
}`},
		{"bf16 descending inner dim", cmp("bf16", "GT", "", 1) + `ENTRY e {
  x = bf16[17,4,5] parameter(0)
  ROOT s = bf16[17,4,5] sort(x), dimensions={0}, to_apply=cmp
}`},
		{"two elements", cmp("f32", "LT", "", 1) + `ENTRY e {
  x = f32[6,2] parameter(0)
  ROOT s = f32[6,2] sort(x), dimensions={1}, to_apply=cmp
}`},
		{"one element", cmp("f32", "LT", "", 1) + `ENTRY e {
  x = f32[5,1] parameter(0)
  ROOT s = f32[5,1] sort(x), dimensions={1}, to_apply=cmp
}`},
		{"argsort of integer keys with ties", cmp("s32", "LT", "", 2) + `ENTRY e {
  x = s32[4,64] parameter(0)
  i = s32[4,64] iota(), iota_dimension=1
  ROOT s = (s32[4,64], s32[4,64]) sort(x, i), dimensions={1}, to_apply=cmp, is_stable=false
}`},
		{"u8 keys descending with a payload", cmp("u8", "GT", "", 2) + `ENTRY e {
  x = u8[100] parameter(0)
  v = s32[100] parameter(1)
  ROOT s = (u8[100], s32[100]) sort(x, v), dimensions={0}, to_apply=cmp, is_stable=true
}`},
		{"tie-break on the second operand", `cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  lt = pred[] compare(a, b), direction=LT
  eq = pred[] compare(a, b), direction=EQ
  lt2 = pred[] compare(c, d), direction=LT
  t = pred[] and(eq, lt2)
  ROOT r = pred[] or(lt, t)
}
ENTRY e {
  x = s32[9,12] parameter(0)
  y = f32[9,12] parameter(1)
  ROOT s = (s32[9,12], f32[9,12]) sort(x, y), dimensions={1}, to_apply=cmp
}`},
		{"total order", cmp("f32", "LT", ", type=TOTALORDER", 1) + `ENTRY e {
  x = f32[10] constant({nan, -inf, 1, -0, 0, -1, inf, 2.5, -0, -2.5})
  ROOT s = f32[10] sort(x), dimensions={0}, to_apply=cmp
}`},
		{"argsort in JAX's order=TOTAL, its values dropped", cmp("f32", "LT", ", order=TOTAL", 2) + `ENTRY e {
  x = f32[2,13] constant({{nan, 1, -0, 0, 1, -inf, inf, 2, -1, nan, 0, 3, 1}, {5, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5, -6, nan}})
  i = s32[2,13] iota(), iota_dimension=1
  s = (f32[2,13], s32[2,13]) sort(x, i), dimensions={1}, to_apply=cmp, is_stable=true
  ROOT r = s32[2,13] get-tuple-element(s), index=1
}`},
		{"keys of a payload's negation, descending, padded", `cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  nc = f32[] negate(c)
  nd = f32[] negate(d)
  ROOT r = pred[] compare(nc, nd), direction=GT
}
ENTRY e {
  x = s32[5,100] parameter(0)
  y = f32[5,100] parameter(1)
  ROOT s = (s32[5,100], f32[5,100]) sort(x, y), dimensions={1}, to_apply=cmp, is_stable=true
}`},
	}
	for _, c := range cases {
		for _, chip := range chips {
			t.Run(c.name+"/"+chip, func(t *testing.T) { runChecked(t, chip, c.src) })
		}
	}
}

// TestTopKOnChips: topk (legalize.ExpandTopKs: a sort with an iota, sliced)
// gives the evaluator's values and indices, ties included.
func TestTopKOnChips(t *testing.T) {
	src := `ENTRY e {
  x = f32[6,40] parameter(0)
  y = s32[3,9] parameter(1)
  a = (f32[6,5], s32[6,5]) topk(x), k=5, largest=true
  b = (s32[3,4], s32[3,4]) topk(y), k=4, largest=false
  a0 = f32[6,5] get-tuple-element(a), index=0
  a1 = s32[6,5] get-tuple-element(a), index=1
  b0 = s32[3,4] get-tuple-element(b), index=0
  b1 = s32[3,4] get-tuple-element(b), index=1
  ROOT t = (f32[6,5], s32[6,5], s32[3,4], s32[3,4]) tuple(a0, a1, b0, b1)
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) { runChecked(t, chip, src) })
	}
}

// TestSortComparatorNotPred: a comparator that returns no pred is a
// positioned error, not a program that faults on the chip.
func TestSortComparatorNotPred(t *testing.T) {
	const src = `c {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,5] parameter(0)
  ROOT s = f32[4,5] sort(x), dimensions={1}, to_apply=c
}
`
	_, err := compileErr(t, "teach16", src)
	require.ErrorContains(t, err, "the comparator c returns f32, not pred")
}

// TestTopKCall: XLA's TopK custom call (expand.TopKCallsAsTopK; the GPU
// backend's __gpu$TopK too), largest by default and smallest under an LT
// comparator, on both chips against the evaluator.
func TestTopKCall(t *testing.T) {
	const src = `HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[10,40] parameter(0)
  t = (f32[10,3], s32[10,3]) custom-call(x), custom_call_target="TopK"
  s = (f32[10,5], s32[10,5]) custom-call(x), custom_call_target="TopK", called_computations={less}
  g = (f32[10,4], s32[10,4]) custom-call(x), custom_call_target="__gpu$TopK", called_computations={less}
  ROOT r = ((f32[10,3], s32[10,3]), (f32[10,5], s32[10,5]), (f32[10,4], s32[10,4])) tuple(t, s, g)
}`
	for _, chip := range chips {
		runChecked(t, chip, src)
	}
}

// TestSortKernel: a sort whose rows fit SRAM is one kernel (kind sort)
// there, an argsort of f32[8,1024] in under 5,000 cycles on tpuv4core, its
// network in the vector registers (through SRAM, in a transposed layout
// for the short distances, 7,189; expanded into HLO ops 440,000; the
// kernel evaluating the comparator in every step, on rows only in
// row-major order, 64,595); one too big for the registers still runs in
// SRAM; one whose rows do not
// fit (teach16's 256 KiB) or whose keys are f64 is still expanded into a
// network of kernels. Values are the evaluator's, races watched.
func TestSortKernel(t *testing.T) {
	// argsortCmp orders (key, position) pairs by key alone.
	const argsortCmp = `cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
`
	argsort := argsortCmp + `ENTRY e {
  x = f32[%d,%d] parameter(0)
  i = s32[%d,%d] iota(), iota_dimension=1
  ROOT s = (f32[%d,%d], s32[%d,%d]) sort(x, i), dimensions={1}, to_apply=cmp, is_stable=true
}`
	// JAX's argsort broadcasts a row's iota: fused into a kernel of its
	// own, its result is still the positions the sort kernel stands for,
	// not an array it loads and moves (argsort_and_sort's sort: 9,659 ->
	// 7,189 cycles).
	jaxArgsort := argsortCmp + `ENTRY e {
  x = f32[8,1024] parameter(0)
  r = s32[1024] iota(), iota_dimension=0
  i = s32[8,1024] broadcast(r), dimensions={1}
  ROOT s = (f32[8,1024], s32[8,1024]) sort(x, i), dimensions={1}, to_apply=cmp, is_stable=true
}`
	f64 := `cmp {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=GT
}
ENTRY e {
  x = f64[4,33] parameter(0)
  ROOT s = f64[4,33] sort(x), dimensions={1}, to_apply=cmp
}`
	for _, tc := range []struct {
		name, chip, src string
		kernel          bool
		maxCycles       int64
	}{
		{"argsort 8x1024", "tpuv4core", fmt.Sprintf(argsort, 8, 1024, 8, 1024, 8, 1024, 8, 1024), true, 5000},
		{"argsort of a broadcast iota", "tpuv4core", jaxArgsort, true, 5000},
		{"argsort beyond the registers", "tpuv4core", fmt.Sprintf(argsort, 16, 2048, 16, 2048, 16, 2048, 16, 2048), true, 0},
		{"argsort 3x1000 padded", "trn1nc", fmt.Sprintf(argsort, 3, 1000, 3, 1000, 3, 1000, 3, 1000), true, 0},
		{"argsort beyond teach16's SRAM", "teach16", fmt.Sprintf(argsort, 16, 2048, 16, 2048, 16, 2048, 16, 2048), false, 0},
		{"f64 keys", "tpuv4core", f64, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, r := compileRunChecked(t, tc.chip, nil, tc.src)
			kinds := map[string]bool{}
			for _, k := range x.Compiled.Kernels {
				kinds[k.Kind] = true
			}
			require.Equal(t, tc.kernel, kinds["sort"], "a sort kernel")
			if tc.kernel {
				sortText := x.Compiled.Asm[strings.Index(x.Compiled.Asm, ": sort s ("):]
				if tc.src == jaxArgsort {
					require.NotContains(t, sortText, "fusion", "the positions are not loaded")
				}
				regs := tc.chip == "tpuv4core" && !strings.Contains(tc.name, "beyond")
				require.Equal(t, regs, strings.Contains(sortText, "vsel    vreg["), "the network in the registers")
				require.Equal(t, !regs, strings.Contains(sortText, "xpose"), "a transposed layout in SRAM")
			}
			if tc.maxCycles > 0 {
				require.Less(t, r.Report.Cycles, tc.maxCycles)
			}
		})
	}
}

// tiedTopK is a topk of k of a constant [16,1001] (two groups of 501
// columns, the last padded) whose rows are mostly ties: one value
// throughout, five values in turn, or three values with the extremes of
// s32 (or, for f32, NaNs and infinities) among them.
func tiedTopK(xShape, outShape string, k int, largest string) string {
	var rows []string
	for r := range 16 {
		var row []string
		for i := range 1001 {
			v := []string{"5", fmt.Sprint(i % 5), []string{"-7", "3", "8"}[i%3]}[r%3]
			if r%3 == 2 && i%31 == 4 {
				v = map[bool]string{true: "-nan", false: "-2147483648"}[strings.HasPrefix(xShape, "f32")]
			}
			if r%3 == 2 && i%37 == 6 {
				v = map[bool]string{true: "inf", false: "2147483647"}[strings.HasPrefix(xShape, "f32")]
			}
			row = append(row, v)
		}
		rows = append(rows, "{"+strings.Join(row, ", ")+"}")
	}
	return fmt.Sprintf("ENTRY e {\n  x = %s constant({%s})\n  ROOT t = (%s, s32[16,%d]) topk(x), k=%d, largest=%s\n}", xShape, strings.Join(rows, ", "), outShape, k, k, largest)
}

// TestTopKKernel: a topk of a few of each row's elements that fits SRAM is
// one kernel (kind sort): the top 5 of f32[64,1000] in under 2,000 cycles
// on tpuv4core, a tournament over columns in the vector registers a chunk
// of rows at a time (topkregs.go; 3,713 as a selection over whole rows in
// registers, 6,952 through SRAM, 35,422 as rounds of HLO kernels), floats
// in total order (NaNs of both signs, infinities, signed zeros, ties:
// lower index first), smallest as well as largest, more rounds than
// groups (a column taken to exhaustion), rows that do not divide into the
// groups, on chips with registers and without; the values and indices are
// the evaluator's.
func TestTopKKernel(t *testing.T) {
	for _, tc := range []struct {
		name, chip, src string
		maxCycles       int64
	}{
		{"top 5 of f32[64,1000]", "tpuv4core", `ENTRY e {
  x = f32[64,1000] parameter(0)
  ROOT t = (f32[64,5], s32[64,5]) topk(x), k=5, largest=true
}`, 2000},
		{"chunks of rows, s32 with ties", "tpuv4core", `ENTRY e {
  x = s32[37,300] parameter(0)
  ROOT t = (s32[37,7], s32[37,7]) topk(x), k=7, largest=true
}`, 0},
		{"total order, largest, in registers", "tpuv4core", `ENTRY e {
  x = f32[2,16] constant({{nan, -inf, 1, -0, 0, -nan, inf, 1, 3, 3, -2, 0, -0, -inf, inf, 7}, {-1, -1, -1, 2, -0, 0, -0, 0, 2, -nan, 5, 5, -3, 1, 1, 0}})
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
}`, 0},
		{"total order, largest", "trn1nc", `ENTRY e {
  x = f32[2,16] constant({{nan, -inf, 1, -0, 0, -nan, inf, 1, 3, 3, -2, 0, -0, -inf, inf, 7}, {-1, -1, -1, 2, -0, 0, -0, 0, 2, -nan, 5, 5, -3, 1, 1, 0}})
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
}`, 0},
		{"ties, more rounds than groups, ragged groups", "tpuv4core", tiedTopK("s32[16,1001]", "s32[16,9]", 9, "true"), 0},
		{"ties, smallest, more rounds than groups", "tpuv4core", tiedTopK("f32[16,1001]", "f32[16,9]", 9, "false"), 0},
		{"total order, smallest", "tpuv4core", `ENTRY e {
  x = f32[2,16] constant({{nan, -inf, 1, -0, 0, -nan, inf, 1, 3, 3, -2, 0, -0, -inf, inf, 7}, {-1, -1, -1, 2, -0, 0, -0, 0, 2, -nan, 5, 5, -3, 1, 1, 0}})
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=false
}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, r := compileRunChecked(t, tc.chip, nil, tc.src)
			require.Len(t, x.Compiled.Kernels, 1)
			require.Equal(t, "sort", x.Compiled.Kernels[0].Kind)
			if tc.maxCycles > 0 {
				require.Less(t, r.Report.Cycles, tc.maxCycles)
			}
		})
	}
}
