package lowering_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestVPUDot: a dot one of whose operands has only batch and contracting
// dims runs on the vector unit (a product and a sum: vrsum when the
// contracted dims are the other operand's innermost, a tree of vadds
// otherwise), with the evaluator's values, in HBM and in VMEM (inside a
// loop), with the race detector watching; a dot of two matrices, or one
// whose products exceed a tile, stays on the matrix unit.
func TestVPUDot(t *testing.T) {
	cases := []struct {
		name, src string
		onVPU     bool
	}{
		{"q.K^T, one query per head (vrsum)", `ENTRY e {
  q = f32[4,32] parameter(0)
  k = f32[64,4,32] parameter(1)
  ROOT d = f32[4,64] dot(q, k), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={1}, rhs_contracting_dims={2}
}`, true},
		{"p.V (a tree over the leading dim)", `ENTRY e {
  p = f32[4,64] parameter(0)
  v = f32[64,4,32] parameter(1)
  ROOT d = f32[4,32] dot(p, v), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={1}, rhs_contracting_dims={0}
}`, true},
		{"matrix times vector, odd contracted size", `ENTRY e {
  m = f32[24,37] parameter(0)
  v = f32[37] parameter(1)
  ROOT d = f32[24] dot(m, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, true},
		{"vector times matrix, contracted dims in the middle", `ENTRY e {
  v = f32[3,5,2] parameter(0)
  m = f32[2,3,5,7,2] parameter(1)
  ROOT d = f32[2,2,7] dot(v, m), lhs_batch_dims={2}, lhs_contracting_dims={0,1}, rhs_batch_dims={4}, rhs_contracting_dims={1,2}
}`, true},
		{"bf16 operands, bf16 result", `ENTRY e {
  q = bf16[8,64] parameter(0)
  k = bf16[8,32,64] parameter(1)
  ROOT d = bf16[8,32] dot(q, k), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={2}
}`, true},
		{"a decode query [B,H,1,D] (its dim of 1 dropped, as XLA does)", `ENTRY e {
  q = f32[2,4,1,32] parameter(0)
  k = f32[2,4,64,32] parameter(1)
  ROOT d = f32[2,4,1,64] dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
}`, true},
		{"p.V with a trailing dim of 1 on the vector side", `ENTRY e {
  v = f32[2,64,32] parameter(0)
  p = f32[2,64,1] parameter(1)
  ROOT d = f32[2,32,1] dot(v, p), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}`, true},
		{"two matrices", `ENTRY e {
  a = f32[16,32] parameter(0)
  b = f32[32,16] parameter(1)
  ROOT d = f32[16,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, false},
		{"too many products", `ENTRY e {
  v = f32[1024] parameter(0)
  m = f32[1024,512] parameter(1)
  ROOT d = f32[512] dot(v, m), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}`, false},
		{"in a loop, in VMEM", `HloModule m
cond {
  s = (s32[], f32[4,64], f32[64,4,32]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4,64], f32[64,4,32]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  p = f32[4,64] get-tuple-element(s), index=1
  v = f32[64,4,32] get-tuple-element(s), index=2
  o = f32[4,32] dot(p, v), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={1}, rhs_contracting_dims={0}
  q = f32[4,64] dot(o, v), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={1}, rhs_contracting_dims={2}
  ROOT r = (s32[], f32[4,64], f32[64,4,32]) tuple(j, q, v)
}
ENTRY e {
  p0 = f32[4,64] parameter(0)
  v0 = f32[64,4,32] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4,64], f32[64,4,32]) tuple(zero, p0, v0)
  loop = (s32[], f32[4,64], f32[64,4,32]) while(init), condition=cond, body=body
  ROOT out = f32[4,64] get-tuple-element(loop), index=1
}`, true},
	}
	onVPU := regexp.MustCompile(`dot on the vector unit`)
	mxu := regexp.MustCompile(`\bmxu\.(ldw|mm)\b`)
	for _, tc := range cases {
		for _, chip := range chips {
			t.Run(tc.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, tc.src)
				asm := x.Compiled.Asm
				require.Equal(t, tc.onVPU, onVPU.MatchString(asm), "on the vector unit")
				require.Equal(t, !tc.onVPU, mxu.MatchString(asm), "on the matrix unit")
				if chip == "tpuv4core" && strings.Contains(tc.name, "VMEM") {
					require.Regexp(t, `vmul +sram\[\d+\]:f32\S*, sram\[v_`, asm, "the loop's state read where it lies")
				}
			})
		}
	}
}
