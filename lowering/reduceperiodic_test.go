package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPeriodicBroadcastReduce: a row reduction whose input multiplies an
// operand broadcast along its leading kept dims (a decode step's q . K^T
// as a multiply and a sum: q[h, d] over K[t, h, d]) streams the kept rows
// as one run, the operand's period broadcast over each tile, rather than
// walking the leading dims in passes of a period each (64 passes of 4
// rows: 6,869 cycles on tpuv4core). Also with a leading dim walked in
// passes for another reason, and bf16 into f32; a per-row statistic
// broadcast over passes that are long already keeps the passes. The
// values are the evaluator's, races watched.
func TestPeriodicBroadcastReduce(t *testing.T) {
	const qk = `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  q = f32[4,32] parameter(0)
  k = f32[64,4,32] parameter(1)
  qb = f32[64,4,32] broadcast(q), dimensions={1,2}
  p = f32[64,4,32] multiply(k, qb)
  z = f32[] constant(0)
  ROOT r = f32[64,4] reduce(p, z), dimensions={2}, to_apply=add
}`
	const passes = `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  g = bf16[3,8] parameter(0)
  x = bf16[6,5,3,8] parameter(1)
  gb = bf16[6,5,3,8] broadcast(g), dimensions={2,3}
  p = bf16[6,5,3,8] multiply(x, gb)
  pf = f32[6,5,3,8] convert(p)
  z = f32[] constant(0)
  ROOT r = f32[6,5,3] reduce(pf, z), dimensions={3}, to_apply=add
}`
	const variance = `HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,16,32,32] parameter(0)
  m = f32[16] parameter(1)
  mb = f32[8,16,32,32] broadcast(m), dimensions={1}
  d = f32[8,16,32,32] subtract(x, mb)
  d2 = f32[8,16,32,32] multiply(d, d)
  z = f32[] constant(0)
  ROOT r = f32[8,16] reduce(d2, z), dimensions={2,3}, to_apply=add
}`
	for _, tc := range []struct {
		name, chip, src string
		maxCycles       int64
	}{
		// A per-channel mean over passes of 64 KiB: the passes stay
		// (one run in a single tile was 2,213 cycles; MobileNet's batch
		// norms read the mean through a stride of 0, 566M cycles).
		{"a batch norm's variance", "tpuv4core", variance, 1900},
		{"a batch norm's variance", "teach16", variance, 0},
		{"q.K^T", "tpuv4core", qk, 1000},
		{"q.K^T", "teach16", qk, 0},
		{"q.K^T", "trn1nc", qk, 0},
		{"q.K^T", "tpuv4", qk, 0},
		{"bf16 gain", "tpuv4core", passes, 0},
		{"bf16 gain", "teach16", passes, 0},
	} {
		t.Run(tc.name+"/"+tc.chip, func(t *testing.T) {
			_, r := compileRunChecked(t, tc.chip, nil, tc.src)
			if tc.maxCycles > 0 {
				require.Less(t, r.Report.Cycles, tc.maxCycles)
			}
		})
	}
}
