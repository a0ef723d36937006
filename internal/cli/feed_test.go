package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

// feedModule reads (x, flag) records until a flag is false and outfeeds
// each running sum.
const feedModule = `HloModule m
cond {
  s = (f32[2], pred[]) parameter(0)
  ROOT go = pred[] get-tuple-element(s), index=1
}
body {
  s = (f32[2], pred[]) parameter(0)
  tok = token[] after-all()
  in = ((f32[2], pred[]), token[]) infeed(tok)
  rec = (f32[2], pred[]) get-tuple-element(in), index=0
  x = f32[2] get-tuple-element(rec), index=0
  go = pred[] get-tuple-element(rec), index=1
  acc = f32[2] get-tuple-element(s), index=0
  sum = f32[2] add(acc, x)
  t2 = token[] get-tuple-element(in), index=1
  o = token[] outfeed(sum, t2), outfeed_shape=f32[2]
  ROOT r = (f32[2], pred[]) tuple(sum, go)
}
ENTRY e {
  z = f32[2] constant({0, 0})
  t = pred[] constant(true)
  init = (f32[2], pred[]) tuple(z, t)
  w = (f32[2], pred[]) while(init), condition=cond, body=body
  ROOT s = f32[2] get-tuple-element(w), index=0
}
`

// TestInfeedFlags: records from a directory feed the module on the host
// and on a chip, outfeed records are written beside the outputs and
// checked, and wrong records are clear errors.
func TestInfeedFlags(t *testing.T) {
	dir := t.TempDir()
	mod := write(t, dir, "feed.hlo", feedModule)
	rec := filepath.Join(dir, "rec")
	require.NoError(t, os.Mkdir(rec, 0o755))
	put := func(name string, d isa.DType, shape []int, vals ...float64) {
		require.NoError(t, os.WriteFile(filepath.Join(rec, name), npy.Write(d, shape, vals), 0o644))
	}
	put("0.0.npy", isa.F32, []int{2}, 1, 2)
	put("0.1.npy", isa.Pred, nil, 1)
	put("1.0.npy", isa.F32, []int{2}, 10, 20)
	put("1.1.npy", isa.Pred, nil, 0)

	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("hlo", "eval", mod, "--infeed", rec, "--out-dir", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "outfeed: 2 records")
	arr, err := npy.Read(mustRead(t, filepath.Join(out, "outfeed.1.npy")))
	require.NoError(t, err)
	require.Equal(t, []float64{11, 22}, arr.Values)

	code, stdout, stderr = runCLI("simulate", mod, "--chip", "teach16", "--infeed", rec, "--check", "--no-cache")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "outfeed 1")
	require.Contains(t, stdout, "every output matches")

	// One record where the loop reads two.
	require.NoError(t, os.Remove(filepath.Join(rec, "1.0.npy")))
	require.NoError(t, os.Remove(filepath.Join(rec, "1.1.npy")))
	code, _, stderr = runCLI("simulate", mod, "--chip", "teach16", "--infeed", rec, "--no-cache")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "the infeed queue is empty: the program reads past the 1 records supplied")
	code, _, stderr = runCLI("hlo", "eval", mod, "--infeed", rec)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "the infeed queue is empty: this reads record 1, and 1 were supplied")

	// A record of the wrong shape, flags that contradict.
	put("1.0.npy", isa.F32, []int{3}, 1, 2, 3)
	put("1.1.npy", isa.Pred, nil, 0)
	code, _, stderr = runCLI("hlo", "eval", mod, "--infeed", rec)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "record 1 (")
	require.Contains(t, stderr, "is not what the module's infeeds read ((f32[2], pred[]))")
	code, _, stderr = runCLI("hlo", "eval", mod, "--infeed", rec, "--random-infeed", "3")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--infeed and --random-infeed both give the infeed records")
	code, _, stderr = runCLI("hlo", "eval", mod, "--infeed", filepath.Join(dir, "missing"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "not a directory of .npy records")
	code, _, stderr = runCLI("hlo", "eval", mod, "--random-infeed", "-1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--random-infeed -1: give 1 to")

	// More random records than the memory budget holds.
	code, _, stderr = runCLI("hlo", "eval", mod, "--random-infeed", "1000000", "--max-memory", "1MiB")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "take more than --max-memory allows")

	// Random records: the loop stops at the first false flag.
	code, stdout, stderr = runCLI("simulate", mod, "--chip", "tpuv4core", "--random-infeed", "64", "--check", "--no-cache")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "every output matches")
}
