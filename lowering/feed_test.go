package lowering_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// feedLoop reads (x, go-on flag) records in a loop until a flag is false,
// sums the x's, and outfeeds each running sum and, at the end, a record of
// another shape: the MNIST training loop's pattern
// (xlabuilder_mnist_training_loop.hlo).
const feedLoop = `HloModule m
cond {
  s = (s32[], f32[3,5], pred[]) parameter(0)
  ROOT go = pred[] get-tuple-element(s), index=2
}
body {
  s = (s32[], f32[3,5], pred[]) parameter(0)
  tok = token[] after-all()
  in = ((f32[3,5], pred[]), token[]) infeed(tok)
  rec = (f32[3,5], pred[]) get-tuple-element(in), index=0
  x = f32[3,5] get-tuple-element(rec), index=0
  go = pred[] get-tuple-element(rec), index=1
  acc = f32[3,5] get-tuple-element(s), index=1
  sum = f32[3,5] add(acc, x)
  t2 = token[] get-tuple-element(in), index=1
  o = token[] outfeed(sum, t2), outfeed_shape=f32[3,5]
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[3,5], pred[]) tuple(j, sum, go)
}
ENTRY e {
  z = s32[] constant(0)
  x0 = f32[3,5] parameter(0)
  t = pred[] constant(true)
  init = (s32[], f32[3,5], pred[]) tuple(z, x0, t)
  w = (s32[], f32[3,5], pred[]) while(init), condition=cond, body=body
  n = s32[] get-tuple-element(w), index=0
  tok = token[] after-all()
  nn = (s32[], s32[]) tuple(n, n)
  o = token[] outfeed(nn, tok), outfeed_shape=(s32[], s32[])
  ROOT sum = f32[3,5] get-tuple-element(w), index=1
}`

// compileFed compiles m for chip and runs it on args and infeed records.
func compileFed(t *testing.T, chip string, m *hlo.Module, args, recs []*eval.Value) (*runtime.Client, *runtime.Executable, *runtime.Result) {
	t.Helper()
	c, err := config.Load(chip, nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	x, err := client.Compile("t.hlo", m)
	require.NoError(t, err)
	r, err := client.Execute(x, args, runtime.ExecOptions{Infeed: recs})
	require.NoError(t, err)
	return client, x, r
}

// feedRecords makes n records whose flag is true but for the last.
func feedRecords(t *testing.T, m *hlo.Module, n int) []*eval.Value {
	recs, err := eval.RandomInfeed(m, 3, n)
	require.NoError(t, err)
	for i, r := range recs {
		r.Tuple[1].Data[0] = 1
		if i == n-1 {
			r.Tuple[1].Data[0] = 0
		}
	}
	return recs
}

// TestInfeedOutfeed: on both chips a loop reads its records from the
// host's infeed queue and sends what the evaluator sends, in order, of
// two shapes; the host link's time is in the cycles; reading past the
// records supplied is an error that says so, as it is for the evaluator.
func TestInfeedOutfeed(t *testing.T) {
	m, err := hlo.Parse("t.hlo", feedLoop)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("t.hlo", m))
	args, err := eval.RandomArgs(m, 5)
	require.NoError(t, err)
	recs := feedRecords(t, m, 4)
	ev := &eval.Evaluator{File: "t.hlo", M: m, Infeed: recs}
	want, err := ev.Run(args)
	require.NoError(t, err)
	require.Len(t, ev.Outfeed, 5, "4 running sums and the count")
	require.Equal(t, []float64{4}, ev.Outfeed[4].Tuple[0].Data)
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			client, x, r := compileFed(t, chip, m, args, recs)
			require.Equal(t, want.Data, r.Outputs[0].Data)
			require.Len(t, r.Outfeed, len(ev.Outfeed))
			for i, o := range ev.Outfeed {
				got, want := eval.Leaves(r.Outfeed[i]), eval.Leaves(o)
				require.Len(t, got, len(want), "outfeed record %d", i)
				for k := range want {
					require.Equal(t, want[k].Shape.String(), got[k].Shape.String(), "outfeed record %d", i)
					require.Equal(t, want[k].Data, got[k].Data, "outfeed record %d array %d", i, k)
				}
			}

			// Three records where the loop reads four.
			_, err = client.Execute(x, args, runtime.ExecOptions{Infeed: recs[:3]})
			require.ErrorContains(t, err, "the infeed queue is empty: the program reads past the 3 records supplied")
			// A record of a shape no infeed reads.
			_, err = client.Execute(x, args, runtime.ExecOptions{Infeed: []*eval.Value{args[0]}})
			require.ErrorContains(t, err, "infeed record 0 is f32[3,5]; the program's infeeds read (f32[3,5], pred[])")
		})
	}
	_, err = (&eval.Evaluator{File: "t.hlo", M: m, Infeed: recs[:3]}).Run(args)
	require.ErrorContains(t, err, "in: infeed: the infeed queue is empty: this reads record 3, and 3 were supplied")
}

// TestInfeedTokenInLoop: a loop carrying its token in its state (as XLA's
// infeed tests do) reads an array record per iteration and outfeeds each
// running sum, on both chips.
func TestInfeedTokenInLoop(t *testing.T) {
	const src = `HloModule m
cond {
  s = (s32[], f32[4], token[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4], token[]) parameter(0)
  tok = token[] get-tuple-element(s), index=2
  in = (f32[4], token[]) infeed(tok)
  x = f32[4] get-tuple-element(in), index=0
  t2 = token[] get-tuple-element(in), index=1
  acc = f32[4] get-tuple-element(s), index=1
  sum = f32[4] add(acc, x)
  t3 = token[] outfeed(sum, t2), outfeed_shape=f32[4]
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[4], token[]) tuple(j, sum, t3)
}
ENTRY e {
  z = s32[] constant(0)
  x0 = f32[4] parameter(0)
  t = token[] after-all()
  init = (s32[], f32[4], token[]) tuple(z, x0, t)
  w = (s32[], f32[4], token[]) while(init), condition=cond, body=body
  ROOT sum = f32[4] get-tuple-element(w), index=1
}`
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("t.hlo", m))
	args, err := eval.RandomArgs(m, 5)
	require.NoError(t, err)
	recs, err := eval.RandomInfeed(m, 1, 3)
	require.NoError(t, err)
	ev := &eval.Evaluator{File: "t.hlo", M: m, Infeed: recs}
	want, err := ev.Run(args)
	require.NoError(t, err)
	require.Len(t, ev.Outfeed, 3)
	for _, chip := range chips {
		_, _, r := compileFed(t, chip, m, args, recs)
		require.Equal(t, want.Data, r.Outputs[0].Data, chip)
		require.Len(t, r.Outfeed, 3, chip)
		for i, o := range ev.Outfeed {
			require.Equal(t, o.Data, r.Outfeed[i].Data, "%s: outfeed record %d", chip, i)
		}
	}
}

// TestHostSendRecv: a recv and a send with is_host_transfer=true use the
// host queues (a recv reads the next infeed record, a send appends an
// outfeed record), on both chips as in the evaluator; a send or recv
// between devices stays an error.
func TestHostSendRecv(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  t0 = token[] after-all()
  recv = (f32[4], u32[], token[]) recv(t0), channel_id=4, is_host_transfer=true
  rd = (f32[4], token[]) recv-done(recv), channel_id=4, is_host_transfer=true
  x = f32[4] get-tuple-element(rd), index=0
  t1 = token[] get-tuple-element(rd), index=1
  y = f32[4] add(x, p)
  send = (f32[4], u32[], token[]) send(y, t1), channel_id=3, is_host_transfer=true
  sd = token[] send-done(send), channel_id=3, is_host_transfer=true
  ROOT z = f32[4] multiply(y, y)
}`
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("t.hlo", m))
	args := []*eval.Value{{Shape: &hlo.Shape{Elem: "f32", Dims: []int64{4}}, Data: []float64{1, 2, 3, 4}}}
	recs := []*eval.Value{{Shape: &hlo.Shape{Elem: "f32", Dims: []int64{4}}, Data: []float64{10, 20, 30, 40}}}
	ev := &eval.Evaluator{File: "t.hlo", M: m, Infeed: recs}
	want, err := ev.Run(args)
	require.NoError(t, err)
	require.Equal(t, []float64{121, 484, 1089, 1936}, want.Data)
	require.Len(t, ev.Outfeed, 1)
	require.Equal(t, []float64{11, 22, 33, 44}, ev.Outfeed[0].Data)
	for _, chip := range chips {
		_, _, r := compileFed(t, chip, m, args, recs)
		require.Equal(t, want.Data, r.Outputs[0].Data, chip)
		require.Len(t, r.Outfeed, 1, chip)
		require.Equal(t, ev.Outfeed[0].Data, r.Outfeed[0].Data, chip)
	}
	device := strings.ReplaceAll(src, ", is_host_transfer=true", "")
	_, err = compileErr(t, "teach16", device)
	require.ErrorContains(t, err, "recv: cannot lower: a recv between devices is not simulated")
}

// TestOutfeedQueueFull: a loop that sends more than the outfeed queue
// holds stops with an error that says so.
func TestOutfeedQueueFull(t *testing.T) {
	const src = `HloModule m
cond {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(100)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[64] get-tuple-element(s), index=1
  t = token[] after-all()
  o = token[] outfeed(x, t), outfeed_shape=f32[64]
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[64]) tuple(j, x)
}
ENTRY e {
  z = s32[] constant(0)
  x = f32[64] parameter(0)
  init = (s32[], f32[64]) tuple(z, x)
  w = (s32[], f32[64]) while(init), condition=cond, body=body
  ROOT r = f32[64] get-tuple-element(w), index=1
}`
	m, err := hlo.Parse("t.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("t.hlo", m))
	c, err := config.Load("teach16", []string{"memory.host_bytes=4096"})
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	x, err := client.Compile("t.hlo", m)
	require.NoError(t, err)
	args, err := eval.RandomArgs(m, 1)
	require.NoError(t, err)
	_, err = client.Execute(x, args, runtime.ExecOptions{})
	require.ErrorContains(t, err, "the outfeed queue is full: the program sends more than its 2048 bytes")
}
