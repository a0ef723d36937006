package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortComposite: a keyed sort that moves only its positions and its
// key (an argsort whose sorted values nobody reads; an s32 sort carrying
// its positions) sorts one s64 array of keys and positions with vmin and
// vmax: in the registers when two such arrays fit them, else in SRAM. Ties
// (keys from a handful of values) keep their positions' order both ways,
// padded rows included; values are the evaluator's, races watched.
func TestSortComposite(t *testing.T) {
	argsort := func(rows, n int, dir string) string {
		return fmt.Sprintf(`cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=%[3]s, type=TOTALORDER
}
ENTRY e {
  p = f32[%[1]d,%[2]d] parameter(0)
  three = f32[] constant(3)
  t = f32[%[1]d,%[2]d] broadcast(three), dimensions={}
  m = f32[%[1]d,%[2]d] multiply(p, t)
  x = f32[%[1]d,%[2]d] floor(m)
  i = s32[%[1]d,%[2]d] iota(), iota_dimension=1
  s = (f32[%[1]d,%[2]d], s32[%[1]d,%[2]d]) sort(x, i), dimensions={1}, to_apply=cmp, is_stable=true
  ROOT r = s32[%[1]d,%[2]d] get-tuple-element(s), index=1
}`, rows, n, dir)
	}
	s32Sort := `cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY e {
  p = f32[4,300] parameter(0)
  ten = f32[] constant(10)
  t = f32[4,300] broadcast(ten), dimensions={}
  m = f32[4,300] multiply(p, t)
  x = s32[4,300] convert(m)
  i = s32[4,300] iota(), iota_dimension=1
  ROOT s = (s32[4,300], s32[4,300]) sort(x, i), dimensions={1}, to_apply=cmp, is_stable=true
}`
	cases := []struct {
		name, chip, src, space string
	}{
		{"argsort ascending, padded, in the registers", "tpuv4core", argsort(8, 1000, "LT"), "vreg"},
		{"argsort descending, in the registers", "tpuv4core", argsort(8, 1024, "GT"), "vreg"},
		{"argsort beyond the registers", "tpuv4core", argsort(16, 2048, "LT"), "sram"},
		{"an s32 sort carrying its key, descending", "tpuv4core", s32Sort, "vreg"},
		{"argsort on a scratchpad", "teach16", argsort(4, 100, "GT"), "sram"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x, _ := compileRunChecked(t, tc.chip, nil, tc.src)
			asm := x.Compiled.Asm
			at := strings.Index(asm, ": sort s (")
			require.GreaterOrEqual(t, at, 0, "a sort kernel")
			sortText := asm[at:]
			require.True(t, strings.Contains(sortText, "vmin    "+tc.space+"[") && strings.Contains(sortText, ":s64["), "an s64 network in %s", tc.space)
			network := sortText[strings.Index(sortText, "vmin"):]
			require.False(t, strings.Contains(network, "vsel"), "no swap masks in the network")
		})
	}
}
