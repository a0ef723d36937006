package lowering_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIotaOnChip: a stream kernel's iota is made by the vector unit
// (viota) where its tiles' indices are the iota's — counting along a
// dimension of the row, or along the rows of a kernel of one tile — and
// is an HBM constant only where later tiles would need their row offset
// added (a kernel of many tiles counting along its rows). The values are
// the evaluator's each way, with the race detector watching.
func TestIotaOnChip(t *testing.T) {
	cases := []struct {
		name, src string
		onChip    bool // no iota constant in HBM
	}{
		{"along the row", `ENTRY e {
  x = s32[512,300] parameter(0)
  i = s32[512,300] iota(), iota_dimension=1
  ROOT c = pred[512,300] compare(i, x), direction=LE
}`, true},
		{"along the rows, one tile", `ENTRY e {
  x = s32[64] parameter(0)
  i = s32[64] iota(), iota_dimension=0
  ROOT c = pred[64] compare(i, x), direction=LE
}`, true},
		{"a broadcast column, one tile", `ENTRY e {
  x = f32[48,40] parameter(0)
  i = f32[48,40] iota(), iota_dimension=0
  ROOT m = f32[48,40] multiply(i, x)
}`, true},
		{"along the rows, many tiles", `ENTRY e {
  x = s32[2097152] parameter(0)
  i = s32[2097152] iota(), iota_dimension=0
  ROOT a = s32[2097152] add(i, x)
}`, false},
		{"the result, along the rows, one tile", `ENTRY e {
  ROOT i = s32[1024] iota(), iota_dimension=0
}`, true},
		{"the result, along the row", `ENTRY e {
  ROOT i = f32[600,300] iota(), iota_dimension=1
}`, true},
		{"a result beside a computed one", `ENTRY e {
  x = f32[64,8] parameter(0)
  i = f32[64,8] iota(), iota_dimension=0
  a = f32[64,8] add(x, i)
  ROOT t = (f32[64,8], f32[64,8]) tuple(a, i)
}`, true},
		{"a one-hot in a reduce", `add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  l = s32[32] parameter(0)
  x = f32[32,1000] parameter(1)
  i = s32[32,1000] iota(), iota_dimension=1
  lb = s32[32,1000] broadcast(l), dimensions={0}
  eq = pred[32,1000] compare(i, lb), direction=EQ
  z = f32[] constant(0)
  zs = f32[32,1000] broadcast(z), dimensions={}
  s = f32[32,1000] select(eq, x, zs)
  ROOT r = f32[32] reduce(s, z), dimensions={1}, to_apply=add
}`, true},
	}
	constant := regexp.MustCompile(`(?m)^\.tensor t_\S+ hbm .* = iota\(\)$`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x, _ := compileRunChecked(t, "tpuv4core", nil, tc.src)
			asm := x.Compiled.Asm
			require.Equal(t, tc.onChip, !constant.MatchString(asm), "iota constant in HBM:\n%s", asm)
			require.Equal(t, tc.onChip, regexp.MustCompile(`\bviota\b`).MatchString(asm), "viota")
		})
	}
}
