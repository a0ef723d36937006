package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pulse-sim/pulse/bench"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestDotWorkloads: the dots suite's workloads and suite file are what
// bench.DotForms generates (rewrite them with -update), each a module that
// parses and verifies, 20 forms or more at two or three sizes.
func TestDotWorkloads(t *testing.T) {
	require.GreaterOrEqual(t, len(bench.DotForms), 20)
	want := map[string]string{"suites/dots.yaml": bench.DotsSuite()}
	for _, f := range bench.DotForms {
		require.GreaterOrEqual(t, len(f.Sizes), 2, f.Name)
		for i := range f.Sizes {
			src := f.Module(i)
			name := fmt.Sprintf("%s_%s.hlo", f.Name, bench.SizeNames[i])
			m, err := hlo.Parse(name, src)
			require.NoError(t, err, name)
			require.NoError(t, verify.Verify(name, m), name)
			want["workloads/dots/"+name] = src
		}
	}
	generated(t, "workloads/dots", "TestDotWorkloads", want)
}

// generated writes the files want holds (a suite file and the workloads
// of dir) under -update, and otherwise checks that they are as generated
// and that dir holds no other workload.
func generated(t *testing.T, dir, test string, want map[string]string) {
	t.Helper()
	if *update {
		old, _ := filepath.Glob(dir + "/*.hlo")
		for _, f := range old {
			require.NoError(t, os.Remove(f))
		}
		for f, src := range want {
			require.NoError(t, os.WriteFile(f, []byte(src), 0o644))
		}
		return
	}
	how := "go test ./bench -run " + test + " -update"
	got, _ := filepath.Glob(dir + "/*.hlo")
	require.Len(t, got, len(want)-1, "stale workloads: "+how)
	for f, src := range want {
		b, err := os.ReadFile(f)
		require.NoError(t, err, how)
		require.Equal(t, src, string(b), "%s is stale: %s", f, how)
	}
}

// TestSiliconWorkloads: the silicon suite and its workloads are what
// bench.SiliconSuite generates (rewrite them with -update).
func TestSiliconWorkloads(t *testing.T) {
	suite, files, err := bench.SiliconSuite()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 25)
	want := map[string]string{"suites/silicon.yaml": suite}
	for name, src := range files {
		m, err := hlo.Parse(name, src)
		require.NoError(t, err, name)
		require.NoError(t, verify.Verify(name, m), name)
		want["workloads/silicon/"+name] = src
	}
	generated(t, "workloads/silicon", "TestSiliconWorkloads", want)
}
