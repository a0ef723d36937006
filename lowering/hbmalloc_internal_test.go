package lowering

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A lowering attempt that is abandoned gives back everything it took: the
// restored allocator is the one before the attempt, untouched by it.
func TestHBMSnapshotRestores(t *testing.T) {
	var a hbmAllocator
	a.init(1 << 30)
	a.spans["x"] = hbmSpan{a.take(8192, false), 8192}
	a.refs["x"] = 1
	before := a.snapshot()

	// The attempt: a big output, a program-loaded constant, x released.
	a.spans["big"] = hbmSpan{a.take(1<<28, false), 1 << 28}
	a.spans["k"] = hbmSpan{a.take(4096, true), 4096}
	a.pinned["k"] = true
	a.drop(&value{tensor: "x"})
	require.Equal(t, int64(1<<28+8192+4096), a.needed())

	a = before.snapshot()
	require.Equal(t, int64(8192), a.needed())
	require.Equal(t, map[string]hbmSpan{"x": {0, 8192}}, a.spans)
	require.Equal(t, map[string]int{"x": 1}, a.refs)
	require.Empty(t, a.pinned)
	require.Empty(t, a.free)
	// The next allocation lands where the abandoned one did.
	require.Equal(t, int64(8192), a.take(4096, false))
}
