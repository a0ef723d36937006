package cli

import (
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
