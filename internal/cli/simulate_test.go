package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

func TestSimulateAndCompile(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the executable cache
	dir := t.TempDir()
	src := write(t, dir, "m.hlo", `HloModule m
ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  b = f32[2,2]{1,0} parameter(1)
  d = f32[2,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[2,2]{1,0} add(d, b)
}
`)
	a := write(t, dir, "a.npy", string(npy.Write(isa.F32, []int{2, 2}, []float64{1, 2, 3, 4})))
	code, out, stderr := runCLI("simulate", src, "--chip", "teach16", "--in", "a="+a, "--in", "1="+a, "--out-dir", dir, "--check")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "check: every output matches the reference evaluator")
	require.Contains(t, out, "KERNEL")
	require.NotContains(t, stderr, "cache hit")
	arr, err := npy.Read(mustRead(t, filepath.Join(dir, "out.npy")))
	require.NoError(t, err)
	require.Equal(t, []float64{1 + 7, 2 + 10, 3 + 15, 4 + 22}, arr.Values) // a@a + a, on the simulated chip
	// The same module on the same chip comes from the cache.
	code, _, stderr = runCLI("simulate", src, "--chip", "teach16", "--random-inputs", "3", "--timing-only")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "(cache hit)")
	code, _, stderr = runCLI("compile", src, "--chip", "tpuv4core", "-o", filepath.Join(dir, "m.pulse"), "--emit-asm", filepath.Join(dir, "m.s"))
	require.Equal(t, 0, code, stderr)
	require.Contains(t, string(mustRead(t, filepath.Join(dir, "m.s"))), `.loc "`+src+`" 6 3 "s"`)
	code, out, stderr = runCLI("run", filepath.Join(dir, "m.pulse"), "--chip", "tpuv4core", "--timing-only")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "cycles")

	ints := write(t, dir, "i.npy", string(npy.Write(isa.S32, []int{2, 2}, []float64{1, 2, 3, 4})))
	wrong := write(t, dir, "w.npy", string(npy.Write(isa.F32, []int{4}, []float64{1, 2, 3, 4})))
	custom := write(t, dir, "custom.hlo", "ENTRY e {\n  x = f32[4] parameter(0)\n  ROOT c = f32[4] custom-call(x), custom_call_target=\"my_kernel\"\n}\n")
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"simulate", src, "--in", "a=" + wrong, "--in", "b=" + a}, 1, "--in a: " + wrong + " has shape [4], but parameter a is f32[2,2]"},
		{[]string{"simulate", src, "--in", "a=" + ints, "--in", "b=" + a}, 1, "holds <i4 (integers), but parameter a is f32[2,2]{1,0} (floats)"},
		{[]string{"simulate", src, "--in", "a=" + a}, 2, "parameter b (number 1) has no --in"},
		{[]string{"simulate", src, "--in", "a=" + a, "--in", "a=" + a, "--in", "b=" + a}, 2, "--in a=" + a + " and --in a=" + a + " both bind parameter 0 (a)"},
		{[]string{"simulate", src, "--in", "a=" + a, "--in", "0=" + a, "--in", "b=" + a}, 2, "--in a=" + a + " and --in 0=" + a + " both bind parameter 0 (a)"},
		{[]string{"simulate", src, "--random-inputs", "1", "--max-cycles", "-1"}, 2, "--max-cycles -1"},
		{[]string{"simulate", src, "--random-inputs", "1", "--set", "mxu.colz=4"}, 1, "mxu.colz"},
		{[]string{"simulate", src, "--random-inputs", "1", "--chip", "tpu9"}, 1, "tpu9"},
		{[]string{"simulate", src, "--timing-only", "--check"}, 2, "--check and --out-dir need values"},
		{[]string{"simulate", src, "--random-inputs", "1", "--max-memory", "24B"}, 1, "the parameters hold 8 elements (0 MiB as float64), more than the evaluator's budget of 3"},
		{[]string{"simulate", src, "--random-inputs", "1", "--max-memory", "lots"}, 2, "--max-memory lots"},
		{[]string{"simulate", write(t, dir, "bad.hlo", "ENTRY e {\n  a = f32[2 parameter(0)\n}\n"), "--random-inputs", "1"}, 1, "bad.hlo:2:13: expected"},
		{[]string{"simulate", custom, "--random-inputs", "1"}, 1, `custom.hlo:3:3: c: custom-call: cannot lower: custom-call target "my_kernel" has no Pulse lowering`},
		{[]string{"compile", src}, 2, "give -o FILE.pulse, --emit-asm FILE.s, --memory, or several"},
		// Issue 44, 8: --check's budget is checked before the simulation,
		// not found wanting after it.
		{[]string{"simulate", write(t, dir, "wide.hlo", "HloModule m\nENTRY e {\n  a = f32[4096] parameter(0)\n  b = f32[4096,4096] broadcast(a), dimensions={1}\n  ROOT n = f32[4096,4096] negate(b)\n}\n"),
			"--random-inputs", "1", "--check", "--max-memory", "64MiB"}, 1,
			"wide.hlo:5:3: --check: the reference evaluator would hold at least 192 MiB of float64 values at n, beyond the 64 MiB that --max-memory 64MiB gives it; raise --max-memory or drop --check (nothing was simulated)"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		require.Equal(t, c.code, code, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.msg, "%v", c.args)
		require.NotContains(t, stderr, "goroutine", "no stack traces")
	}
}

// An output that rounding decides: s1 - s2 is 0 in the reference, and
// whatever the chip's summation order leaves on the chip. --check measures
// the rounding noise and passes it, saying so (hlo.Check's own tests show
// an output off by more than the noise failing).
func TestSimulateCheckWithinRoundingNoise(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	src := write(t, dir, "cancel.hlo", `HloModule cancel
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4096] parameter(0)
  k = f32[] constant(10000)
  kb = f32[4096] broadcast(k), dimensions={}
  big = f32[4096] multiply(x, kb)
  zero = f32[] constant(0)
  s1 = f32[] reduce(big, zero), dimensions={0}, to_apply=add
  r = f32[4096] reverse(big), dimensions={0}
  s2 = f32[] reduce(r, zero), dimensions={0}, to_apply=add
  ROOT d = f32[] subtract(s1, s2)
}
`)
	for _, chip := range []string{"teach16", "tpuv4core"} {
		code, out, stderr := runCLI("simulate", src, "--chip", chip, "--random-inputs", "1", "--check")
		require.Equal(t, 0, code, stderr)
		// If a lowering change makes the chip's sums agree exactly, pick
		// inputs that still leave a difference: the path is what is tested.
		require.Contains(t, out, "ROUNDING NOISE", chip)
		require.Contains(t, out, "ok, within noise", chip)
		require.Contains(t, out, "1 of them are within 16 times the largest rounding noise")
	}
}

// TestSimulateSaysWhatIsNotModelled: moves to and from host memory are
// copies through the host link, in the cycles; on a chip without a host
// link the report says their transfers are not in the cycles, in the text
// and in --json, and says nothing for placements that move nothing.
func TestSimulateSaysWhatIsNotModelled(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	src := write(t, dir, "off.hlo", `HloModule m
ENTRY e {
  x = f32[64,16] parameter(0)
  h = f32[64,16] custom-call(x), custom_call_target="MoveToHost"
  p = f32[64,16] custom-call(h), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  d = f32[64,16] custom-call(p), custom_call_target="MoveToDevice"
  k = f32[64,16] custom-call(d), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  ROOT y = f32[64,16] add(k, k)
}
`)
	js := filepath.Join(dir, "r.json")
	code, out, stderr := runCLI("simulate", src, "--chip", "teach16", "--random-inputs", "1", "--check", "--json", js)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, "not modelled")
	require.Regexp(t, `host link in / out +│ 4\.1 KB / 4\.1 KB`, out, "one copy each way (p is already on the host)")
	require.Contains(t, out, "check: every output matches")

	code, out, stderr = runCLI("simulate", src, "--chip", "teach16", "--set", "host.link_gbps=0", "--random-inputs", "1", "--check", "--json", js)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "not modelled: 3 instructions' work (12 KiB per execution) is not in the cycles:")
	require.Contains(t, out, src+":4:3: h: moves the array to host memory, and the chip has no host link (host.link_gbps 0): Pulse keeps it in HBM, so its host-link transfer is not in the cycles (4 KiB)")
	require.Contains(t, out, src+":5:3: p: moves the array to host memory")
	require.Contains(t, out, src+":6:3: d: moves the array to device memory")
	require.NotContains(t, out, ": k: ")
	require.Contains(t, out, "check: every output matches")
	var r struct {
		NotModelled []struct {
			Op, At, What string
			Bytes        int64
		} `json:"not_modelled"`
	}
	require.NoError(t, json.Unmarshal(mustRead(t, js), &r))
	require.Len(t, r.NotModelled, 3)
	require.Equal(t, "h", r.NotModelled[0].Op)
	require.Equal(t, int64(4096), r.NotModelled[0].Bytes)

	// Without offloading, no such line and no such key.
	plain := write(t, dir, "plain.hlo", "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] add(x, x)\n}\n")
	code, out, stderr = runCLI("simulate", plain, "--chip", "teach16", "--random-inputs", "1", "--json", js)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, "not modelled")
	require.NotContains(t, string(mustRead(t, js)), "not_modelled")
}

// TestTimingOnlyWithSomeInputs: a timing-only run given only the inputs
// its control flow reads (the token ids of an embedding lookup) leaves the
// others unbuilt, and takes the cycles of a value run with the same ids;
// on one device and on several.
func TestTimingOnlyWithSomeInputs(t *testing.T) {
	dir := t.TempDir()
	const body = `
ENTRY e {
  w = f32[64,256] parameter(0)
  tok = s32[8] parameter(1)
  i = s32[8,1] reshape(tok)
  g = f32[8,256] gather(w, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,256}
  ROOT n = f32[8,256] negate(g)
}
`
	one := write(t, dir, "emb.hlo", "HloModule emb\n"+body)
	four := write(t, dir, "emb4.hlo", "HloModule emb4, replica_count=4\n"+body)
	cycles := regexp.MustCompile(`, (\d+) cycles\n`)
	for _, f := range []string{one, four} {
		code, _, errs := runCLI("simulate", f, "--chip", "tpuv4core", "--timing-only", "--in", "tok=5")
		require.Equal(t, 0, code, errs)
		code, _, want := runCLI("simulate", f, "--chip", "tpuv4core", "--random-inputs", "1", "--in", "tok=5")
		require.Equal(t, 0, code, want)
		require.Equal(t, cycles.FindStringSubmatch(want), cycles.FindStringSubmatch(errs), f)
		// Without the ids it refuses, naming them.
		code, _, errs = runCLI("simulate", f, "--chip", "tpuv4core", "--timing-only")
		require.Equal(t, 1, code, errs)
		require.Contains(t, errs, "(tok)")
	}
}
