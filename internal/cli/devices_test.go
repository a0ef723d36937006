package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

// TestEvalOnDevices: hlo eval runs a module on the devices it names (or
// --replicas gives), device i's random inputs from SEED+i, and writes
// device i's outputs to DIR/deviceI: reduce-scatter(all-gather(x)) on 4
// devices is 4x on each device, checked against single-device runs of the
// same inputs. Device counts that do not fit are usage errors.
func TestEvalOnDevices(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "rs.hlo", `HloModule rs
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  g = f32[16] all-gather(x), replica_groups={}, dimensions={0}
  ROOT r = f32[4] reduce-scatter(g), replica_groups={}, dimensions={0}, to_apply=add
}
`)
	one := write(t, dir, "one.hlo", "HloModule one\nENTRY e {\n  ROOT x = f32[4] parameter(0)\n}\n")
	code, out, errs := runCLI("hlo", "eval", src, "--random-inputs", "5", "--replicas", "4", "--out-dir", filepath.Join(dir, "rs"))
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "4 devices (4 replicas x 1 partition)")
	require.Contains(t, out, "device 3 (replica 3, partition 0):")
	for i := range 4 {
		code, _, errs := runCLI("hlo", "eval", one, "--random-inputs", fmt.Sprint(5+i), "--out-dir", filepath.Join(dir, fmt.Sprint("x", i)))
		require.Equal(t, 0, code, errs)
		x, err := npy.Read(mustRead(t, filepath.Join(dir, fmt.Sprint("x", i), "out.npy")))
		require.NoError(t, err)
		r, err := npy.Read(mustRead(t, filepath.Join(dir, "rs", fmt.Sprint("device", i), "out.npy")))
		require.NoError(t, err)
		for k := range x.Values {
			require.Equal(t, float32(4*x.Values[k]), float32(r.Values[k]), "device %d element %d", i, k)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{src, "--random-inputs", "1"}, 2, "the module's collectives span 4 devices and it runs on 1 (1 replica x 1 partition): give --replicas 4 --partitions 1, say"},
		{[]string{src, "--random-inputs", "1", "--replicas", "0"}, 2, "--replicas 0: want a count from 1 to 1024"},
		{[]string{src, "--random-inputs", "1", "--replicas", "64", "--partitions", "64"}, 2, "64 replicas x 64 partitions is 4096 devices; at most 1024"},
		{[]string{src, "--random-inputs", "1", "--replicas", "3"}, 2, "span 4 devices and it runs on 3"},
		{[]string{src, "--random-inputs", "1", "--replicas", "8"}, 1, "rs.hlo:9:3: device 0 (replica 0, partition 0): g: all-gather: the devices' parts make 32 along dimension 0, the result f32[16] has 16"},
	} {
		code, _, errs := runCLI(append([]string{"hlo", "eval"}, tc.args...)...)
		require.Equal(t, tc.code, code, errs)
		require.Contains(t, errs, tc.want)
		require.NotContains(t, errs, "goroutine")
	}
	// Shards: x=file for every device, x@1=file for device 1 only.
	ag := write(t, dir, "ag.hlo", "HloModule ag, replica_count=2\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT g = f32[4] all-gather(x), replica_groups={}, dimensions={0}\n}\n")
	a := filepath.Join(dir, "a.npy")
	b := filepath.Join(dir, "b.npy")
	require.NoError(t, os.WriteFile(a, npy.Write(isa.F32, []int{2}, []float64{1, 2}), 0o644))
	require.NoError(t, os.WriteFile(b, npy.Write(isa.F32, []int{2}, []float64{3, 4}), 0o644))
	code, _, errs = runCLI("hlo", "eval", ag, "--in", "x="+a, "--in", "x@1="+b, "--out-dir", filepath.Join(dir, "ag"))
	require.Equal(t, 0, code, errs)
	for i := range 2 {
		g, err := npy.Read(mustRead(t, filepath.Join(dir, "ag", fmt.Sprint("device", i), "out.npy")))
		require.NoError(t, err)
		require.Equal(t, []float64{1, 2, 3, 4}, g.Values, "device %d", i)
	}
	for _, tc := range []struct{ in, want string }{
		{"x@2=" + a, "--in x@2=" + a + ": want name@DEVICE=file with DEVICE from 0 to 1"},
		{"x@one=" + a, "want name@DEVICE=file with DEVICE from 0 to 1"},
	} {
		code, _, errs = runCLI("hlo", "eval", ag, "--in", "x="+a, "--in", tc.in)
		require.Equal(t, 2, code, errs)
		require.Contains(t, errs, tc.want)
	}
	code, _, errs = runCLI("hlo", "eval", ag, "--in", "x@0="+a, "--in", "x@0="+b)
	require.Equal(t, 2, code, errs)
	require.Contains(t, errs, "parameter x of device 0 is bound twice")
	code, _, errs = runCLI("hlo", "eval", ag, "--in", "x@0="+a)
	require.Equal(t, 2, code, errs)
	require.Contains(t, errs, "device 1: parameter x (number 0) has no --in")

	bad := write(t, dir, "bad.hlo", "HloModule h, replica_count=0\nENTRY e {\n  ROOT x = u32[] replica-id()\n}\n")
	code, _, errs = runCLI("hlo", "eval", bad)
	require.Equal(t, 1, code)
	require.Contains(t, errs, bad+":1:1: module attribute replica_count=0: want a count from 1 to 1024")
	hdr := write(t, dir, "hdr.hlo", "HloModule h, replica_count=2\nENTRY e {\n  ROOT x = u32[] replica-id()\n}\n")
	code, _, errs = runCLI("hlo", "eval", hdr, "--replicas", "4")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "--replicas 4: the module says replica_count=2")
	code, out, errs = runCLI("hlo", "eval", hdr)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "device 1 (replica 1, partition 0):")
}

// TestSimulateOnDevices: simulate runs a module on its devices, one chip
// each, and --check compares every device with the evaluator: shards
// bound per device (x@1=file) come back gathered on both devices; the
// devices table and the JSON report name every device; what several
// devices cannot do is refused before any work.
func TestSimulateOnDevices(t *testing.T) {
	dir := t.TempDir()
	ag := write(t, dir, "ag.hlo", "HloModule ag, replica_count=2\nENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2] exponential(x)\n  ROOT g = f32[4] all-gather(y), replica_groups={}, dimensions={0}\n}\n")
	a := filepath.Join(dir, "a.npy")
	b := filepath.Join(dir, "b.npy")
	require.NoError(t, os.WriteFile(a, npy.Write(isa.F32, []int{2}, []float64{0, 1}), 0o644))
	require.NoError(t, os.WriteFile(b, npy.Write(isa.F32, []int{2}, []float64{2, 3}), 0o644))
	js := filepath.Join(dir, "r.json")
	code, out, errs := runCLI("simulate", ag, "--chip", "tpuv4core", "--in", "x="+a, "--in", "x@1="+b, "--out-dir", filepath.Join(dir, "o"), "--check", "--json", js)
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "2 devices (2 replicas x 1 partition) on tpuv4core, joined by its interconnect")
	require.Contains(t, out, "WAITED FOR GROUP")
	require.Contains(t, out, "check: every output of every device matches the reference evaluator")
	for i := range 2 {
		g, err := npy.Read(mustRead(t, filepath.Join(dir, "o", fmt.Sprint("device", i), "out.npy")))
		require.NoError(t, err)
		require.InDeltaSlice(t, []float64{1, 2.718281828, 7.389056, 20.085537}, g.Values, 1e-5, "device %d", i)
	}
	rep := string(mustRead(t, js))
	require.Contains(t, rep, `"devices": [`)
	require.Contains(t, rep, `"interconnect": {`)
	require.Contains(t, rep, `"bound": "interconnect"`)
	// The same run writes the same bytes.
	js2 := filepath.Join(dir, "r2.json")
	code, _, errs = runCLI("simulate", ag, "--chip", "tpuv4core", "--in", "x="+a, "--in", "x@1="+b, "--json", js2)
	require.Equal(t, 0, code, errs)
	require.Equal(t, rep, string(mustRead(t, js2)))

	rs := write(t, dir, "rs.hlo", "HloModule rs\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT r = f32[1] reduce-scatter(x), replica_groups={}, dimensions={0}, to_apply=add\n}\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{rs, "--random-inputs", "1"}, 2, "the module's collectives span 4 devices and it runs on 1"},
		{[]string{rs, "--random-inputs", "1", "--replicas", "4", "--random-infeed", "2"}, 2, "not available on several devices"},
		{[]string{rs, "--random-inputs", "1", "--replicas", "4", "--chip", "tpuv1"}, 1, "chip tpuv1 has no interconnect (ici.links 0)"},
	} {
		code, _, errs := runCLI(append([]string{"simulate"}, tc.args...)...)
		require.Equal(t, tc.code, code, errs)
		require.Contains(t, errs, tc.want)
		require.NotContains(t, errs, "goroutine")
	}
	code, out, errs = runCLI("simulate", rs, "--random-inputs", "1", "--replicas", "4", "--check")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "device 3 (replica 3, partition 0):")
}

// TestTimingOnlyOnDevices: a timing-only run of several devices takes the
// cycles of the run with values (no inputs needed), and refuses, saying
// why, when control flow depends on what a collective moves.
func TestTimingOnlyOnDevices(t *testing.T) {
	dir := t.TempDir()
	cycles := func(errs string) string {
		m := regexp.MustCompile(`, (\d+) cycles\n`).FindStringSubmatch(errs)
		require.NotNil(t, m, errs)
		return m[1]
	}
	for _, f := range []string{"../../examples/hlo/allreduce_4dev.hlo", write(t, dir, "rs.hlo", "HloModule rs, replica_count=4\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[4096] parameter(0)\n  y = f32[4096] exponential(x)\n  ROOT r = f32[1024] reduce-scatter(y), replica_groups={}, dimensions={0}, to_apply=add\n}\n")} {
		code, out, errs := runCLI("simulate", f, "--chip", "tpuv4core", "--timing-only")
		require.Equal(t, 0, code, errs)
		require.Contains(t, out, "4 devices")
		require.NotContains(t, out, "device 3 (replica 3")
		code, _, errs2 := runCLI("simulate", f, "--chip", "tpuv4core", "--random-inputs", "1")
		require.Equal(t, 0, code, errs2)
		require.Equal(t, cycles(errs2), cycles(errs), f)
	}
	// Devices branch on their replica id (a value every device knows):
	// device 0 computes exp, device 1 nothing, then both all-reduce.
	branch := write(t, dir, "branch.hlo", `HloModule branch, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
heavy {
  p = f32[65536] parameter(0)
  ROOT e = f32[65536] exponential(p)
}
light {
  ROOT p = f32[65536] parameter(0)
}
ENTRY e {
  x = f32[65536] parameter(0)
  id = u32[] replica-id()
  z = u32[] constant(0)
  first = pred[] compare(id, z), direction=EQ
  y = f32[65536] conditional(first, x, x), true_computation=heavy, false_computation=light
  ROOT r = f32[65536] all-reduce(y), replica_groups={}, to_apply=add
}
`)
	code, _, errs := runCLI("simulate", branch, "--chip", "tpuv4core", "--timing-only")
	require.Equal(t, 0, code, errs)
	code, _, errs2 := runCLI("simulate", branch, "--chip", "tpuv4core", "--random-inputs", "1")
	require.Equal(t, 0, code, errs2)
	require.Equal(t, cycles(errs2), cycles(errs))
	// The loop runs until the all-reduced value reaches 10.
	loop := write(t, dir, "loop.hlo", `HloModule loop, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (f32[], s32[]) parameter(0)
  x = f32[] get-tuple-element(p), index=0
  c = f32[] constant(10)
  ROOT lt = pred[] compare(x, c), direction=LT
}
body {
  p = (f32[], s32[]) parameter(0)
  x = f32[] get-tuple-element(p), index=0
  i = s32[] get-tuple-element(p), index=1
  r = f32[] all-reduce(x), replica_groups={}, to_apply=add
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (f32[], s32[]) tuple(r, j)
}
ENTRY e {
  x = f32[] constant(1)
  z = s32[] constant(0)
  t = (f32[], s32[]) tuple(x, z)
  w = (f32[], s32[]) while(t), condition=cond, body=body
  ROOT o = f32[] get-tuple-element(w), index=0
}
`)
	code, out, errs := runCLI("simulate", loop, "--chip", "tpuv4core")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "16")
	// Timing-only, the all-reduce moves its values (its operands were
	// computed: the search computes the loop's chain), and the loop takes
	// the value run's path.
	code, _, errs2 = runCLI("simulate", loop, "--chip", "tpuv4core", "--random-inputs", "1")
	require.Equal(t, 0, code, errs2)
	code, _, errs = runCLI("simulate", loop, "--chip", "tpuv4core", "--timing-only")
	require.Equal(t, 0, code, errs)
	require.Equal(t, cycles(errs2), cycles(errs))
	// From an input never given, it refuses, naming it.
	unknown := write(t, dir, "loopin.hlo", strings.Replace(strings.Replace(string(mustRead(t, loop)), "x = f32[] constant(1)\n  z", "x = f32[] parameter(0)\n  z", 1), "HloModule loop", "HloModule loopin", 1))
	code, _, errs = runCLI("simulate", unknown, "--chip", "tpuv4core", "--timing-only")
	require.Equal(t, 1, code, errs)
	require.Contains(t, errs, "control flow depends on the values of parameter 0")
	require.NotContains(t, errs, "goroutine")
}
