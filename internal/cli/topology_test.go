package cli

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTopologySlices: a 256-device all-reduce and all-gather simulated on a
// 2-D (16x16) and a 3-D (4x8x8) torus of tpuv4core take their closed-form
// costs (ici/topology_test.go derives them) within 5%, the rest of the run
// being a few dozen cycles of kernel; the same program without a topology
// is the ring of 256; a slice of another size is refused naming both.
func TestTopologySlices(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "c.hlo", `HloModule c, num_partitions=256
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[1048576] parameter(0)
  r = f32[1048576] all-reduce(x), channel_id=1, replica_groups=[1,256]<=[256], use_global_device_ids=true, to_apply=add
  s = f32[4096] slice(r), slice={[0:4096]}
  ROOT g = f32[1048576] all-gather(s), channel_id=2, replica_groups=[1,256]<=[256], use_global_device_ids=true, dimensions={0}
}
`)
	const lat, w, ghz = 1000.0, 50.0, 1.05 // tpuv4core's ICI and clock
	const B = 4 << 20
	ring := func(n int, b float64) float64 { return float64(n-1) * (lat + b/float64(n)/(2*w)) }
	third := float64(B) / 3
	rs3 := max(ring(4, third), ring(8, third)) + max(ring(8, third/4), ring(8, third/8), ring(4, third/8)) +
		max(ring(8, third/32), ring(4, third/64), ring(8, third/32))
	rs2 := ring(16, B/2) + ring(16, B/2/16)
	cycles := regexp.MustCompile(`([0-9]+) cycles\n`)
	for _, tc := range []struct {
		topology string
		ns       float64 // the all-reduce and the all-gather
	}{
		{"16x16", 2*rs2 + rs2},
		{"4x8x8", 2*rs3 + rs3},
		{"", 2*255*(lat+float64(B)/256/(2*w)) + 255*(lat+float64(B)/256/(2*w))},
	} {
		t.Run(tc.topology, func(t *testing.T) {
			args := []string{"simulate", src, "--chip", "tpuv4core", "--timing-only"}
			if tc.topology != "" {
				args = append(args, "--topology", tc.topology)
			}
			code, out, errs := runCLI(args...)
			require.Equal(t, 0, code, errs)
			m := cycles.FindStringSubmatch(out + errs)
			require.NotNil(t, m, out)
			got, _ := strconv.ParseFloat(m[1], 64)
			require.InEpsilon(t, tc.ns*ghz, got, 0.05, "%s: %v cycles against %.0f", tc.topology, got, tc.ns*ghz)
		})
	}
	code, _, errs := runCLI("simulate", src, "--chip", "tpuv4core", "--timing-only", "--topology", "8x8")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "ici.topology: 8x8 is a slice of 64 devices; the program runs on 256")
	code, _, errs = runCLI("simulate", src, "--chip", "tpuv4core", "--timing-only", "--topology", "16xq")
	require.Equal(t, 1, code)
	require.Contains(t, errs, `ici.topology: "16xq": dimension "q" is not a whole number`)
}

// TestRepresentativeDevice: --devices one simulates device 0 alone for an
// SPMD program and gives the cycles of simulating all of its devices when
// their timelines are symmetric (a TP-style step: dots, all-reduces along
// x and all-gathers along y of a 4x4 torus, in a loop); it says so, in the
// text and the JSON; it refuses values and a program whose control flow
// reads a collective's results.
func TestRepresentativeDevice(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "tp.hlo", `HloModule tp, num_partitions=16
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
body {
  p = (s32[], f32[256,512]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[256,512] get-tuple-element(p), index=1
  w = f32[512,512] constant({...})
  d = f32[256,512] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[256,512] all-reduce(d), channel_id=1, replica_groups=[4,4]<=[16], use_global_device_ids=true, to_apply=add
  s = f32[64,512] slice(r), slice={[0:64], [0:512]}
  g = f32[256,512] all-gather(s), channel_id=2, replica_groups=[4,4]<=[4,4]T(1,0), use_global_device_ids=true, dimensions={0}
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[256,512]) tuple(j, g)
}
cond {
  p = (s32[], f32[256,512]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[256,512] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[256,512]) tuple(z, x)
  l = (s32[], f32[256,512]) while(t), condition=cond, body=body
  ROOT o = f32[256,512] get-tuple-element(l), index=1
}
`)
	cycles := regexp.MustCompile(`([0-9]+) cycles\n`)
	run := func(devices string) (string, float64) {
		js := filepath.Join(dir, devices+".json")
		code, out, errs := runCLI("simulate", src, "--chip", "tpuv4core", "--timing-only", "--topology", "4x4", "--devices", devices, "--json", js)
		require.Equal(t, 0, code, errs)
		m := cycles.FindStringSubmatch(errs)
		require.NotNil(t, m, errs)
		c, _ := strconv.ParseFloat(m[1], 64)
		return out + errs + string(mustRead(t, js)), c
	}
	allOut, all := run("all")
	oneOut, one := run("one")
	require.Equal(t, all, one, "symmetric devices: device 0 alone gives every device's time")
	require.Contains(t, allOut, `"mode": "all"`)
	require.Contains(t, oneOut, "represented by device 0 alone")
	require.Contains(t, oneOut, `"mode": "representative"`)

	code, _, errs := runCLI("simulate", src, "--chip", "tpuv4core", "--devices", "one", "--random-inputs", "1")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "--devices one simulates device 0 alone and computes no values: it needs --timing-only")
	code, _, errs = runCLI("simulate", src, "--chip", "tpuv4core", "--timing-only", "--devices", "some")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "--devices some: want all or one")

	// Control flow that reads a collective's result: refused.
	steer := write(t, dir, "steer.hlo", `HloModule steer, num_partitions=4
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
body {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[8] get-tuple-element(p), index=1
  one = s32[] constant(1)
  r = s32[] all-reduce(one), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=add
  j = s32[] add(i, r)
  ROOT t = (s32[], f32[8]) tuple(j, x)
}
cond {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(12)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[8] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[8]) tuple(z, x)
  l = (s32[], f32[8]) while(t), condition=cond, body=body
  ROOT o = f32[8] get-tuple-element(l), index=1
}
`)
	code, _, errs = runCLI("simulate", steer, "--chip", "tpuv4core", "--timing-only", "--devices", "one")
	require.Equal(t, 1, code, errs)
	require.Contains(t, errs, "a representative run times device 0 alone and moves no values: run every device")
}
