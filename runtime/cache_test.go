package runtime_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// TestCacheBounded: the compile cache keeps within its bound, dropping the
// least recently used executables (issue 44, 14: it grew to 331 MB in one
// test session), and what it holds still hits.
func TestCacheBounded(t *testing.T) {
	c, err := config.Load("teach16", nil)
	require.NoError(t, err)
	dir := t.TempDir()
	client := &runtime.Client{Chip: c, CacheDir: dir, CacheBytes: 64 << 10}
	module := func(i int) *hlo.Module {
		m, err := hlo.Parse("m.hlo", fmt.Sprintf("HloModule m\nENTRY e {\n a = f32[%d] parameter(0)\n b = f32[%d] negate(a)\n ROOT c = f32[%d] exponential(b)\n}\n", 16*(i+1), 16*(i+1), 16*(i+1)))
		require.NoError(t, err)
		return m
	}
	size := func() (n int64, files int) {
		es, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range es {
			info, err := e.Info()
			require.NoError(t, err)
			n += info.Size()
			files++
		}
		return n, files
	}
	for i := 0; i < 60; i++ {
		_, err := client.Compile("m.hlo", module(i))
		require.NoError(t, err)
		// The first module is used again and again: it stays.
		x, err := client.Compile("m.hlo", module(0))
		require.NoError(t, err)
		require.True(t, x.CacheHit, "compile %d", i)
		n, _ := size()
		require.LessOrEqual(t, n, int64(64<<10), "after %d compiles", i)
	}
	_, files := size()
	require.Less(t, files, 60, "old entries were evicted")
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	require.Empty(t, matches)
}
