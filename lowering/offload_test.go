package lowering_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestHostOffloadThroughTheLink: moves to the host and back are copies
// through the host link: the values are right, the link carries each
// array once each way, the cycles grow by the transfers (a 256 KiB array
// at 16 GB/s each way is about 16 us), and infeed records, whose queue
// now starts above the offloaded arrays, still arrive. A move back of an
// array that came through a loop's state is listed as not modelled.
func TestHostOffloadThroughTheLink(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  x = f32[256,256] parameter(0)
  tok = token[] after-all()
  in = (f32[4], token[]) infeed(tok)
  v = f32[4] get-tuple-element(in), index=0
  a = f32[256,256] exponential(x)
  h = f32[256,256] custom-call(a), custom_call_target="MoveToHost"
  b = f32[256,256] tanh(x)
  d = f32[256,256] custom-call(h), custom_call_target="MoveToDevice"
  r = f32[256,256] add(d, b)
  ROOT t = (f32[256,256], f32[4]) tuple(r, v)
}`
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("t.hlo", m))
	args, err := eval.RandomArgs(m, 5)
	require.NoError(t, err)
	recs, err := eval.RandomInfeed(m, 3, 1)
	require.NoError(t, err)
	want, err := (&eval.Evaluator{File: "t.hlo", M: m, Infeed: recs}).Run(args)
	require.NoError(t, err)
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			_, x, r := compileFed(t, chip, m, args, recs)
			require.Equal(t, want.Tuple[0].Data, r.Outputs[0].Data)
			require.Equal(t, want.Tuple[1].Data, r.Outputs[1].Data)
			require.Empty(t, x.Compiled.NotModelled)
			require.Equal(t, int64(256*256*4+16), r.Report.Host.BytesIn, "the array back, and the record")
			require.Equal(t, int64(256*256*4), r.Report.Host.BytesOut)
		})
	}

	// Without the moves, the same module runs faster by about the two
	// transfers' time.
	c, err := config.Load("tpuv4core", nil)
	require.NoError(t, err)
	cycles := func(src string) int64 {
		m, err := hlo.Parse("t.hlo", src)
		require.NoError(t, err)
		_, _, r := compileFed(t, "tpuv4core", m, args, recs)
		return r.Report.Cycles
	}
	plain := cycles(strings.NewReplacer(`custom_call_target="MoveToHost"`, `custom_call_target="Sharding"`, `custom_call_target="MoveToDevice"`, `custom_call_target="Sharding"`).Replace(src))
	moved := cycles(src)
	link := float64(256*256*4) / (c.Host.LinkGBps * 1e9) * float64(c.ClockMHz) * 1e6 // cycles of one transfer
	require.InDelta(t, 2*link, float64(moved-plain), 0.25*link, "moved %d, plain %d cycles, one transfer %.0f", moved, plain, link)
}

// TestHostOffloadInABranch: a move to the host inside a conditional's
// branch is known there only: the other branch's move back of the same
// array (here, the entry's parameter, which is in HBM) must not read the
// host place the untaken branch would have written (it faulted on
// "read of host that was never written"; with other bytes there it
// would have been a wrong value).
func TestHostOffloadInABranch(t *testing.T) {
	const src = `HloModule m
b0 {
  p = (f32[128], f32[128]) parameter(0)
  a = f32[128] get-tuple-element(p), index=0
  h = f32[128] custom-call(a), custom_call_target="MoveToHost"
  ROOT r = (f32[128], f32[128]) tuple(h, a)
}
b1 {
  p = (f32[128], f32[128]) parameter(0)
  a = f32[128] get-tuple-element(p), index=0
  d = f32[128] custom-call(a), custom_call_target="MoveToDevice"
  e = f32[128] exponential(d)
  ROOT r = (f32[128], f32[128]) tuple(e, d)
}
ENTRY e {
  x = f32[128] parameter(0)
  i = s32[] parameter(1)
  t = (f32[128], f32[128]) tuple(x, x)
  ROOT c = (f32[128], f32[128]) conditional(i, t, t), branch_computations={b0, b1}
}`
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("t.hlo", m))
	for _, branch := range []float64{0, 1} {
		args, err := eval.RandomArgs(m, 5)
		require.NoError(t, err)
		args[1].Data[0] = branch
		want, err := (&eval.Evaluator{File: "t.hlo", M: m}).Run(args)
		require.NoError(t, err)
		for _, chip := range chips {
			_, _, r := compileFed(t, chip, m, args, nil)
			require.Equal(t, want.Tuple[0].Data, r.Outputs[0].Data, "%s, branch %v", chip, branch)
			require.Equal(t, want.Tuple[1].Data, r.Outputs[1].Data, "%s, branch %v", chip, branch)
		}
	}
}
