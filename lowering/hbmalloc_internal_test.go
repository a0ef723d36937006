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

// The VMEM arena hands out bytes within its bounds only, reuses what an
// array gives back (best fit), and returns a freed top to the top; the
// HBM allocator releases a VMEM tensor there, and its snapshot restores
// the arena too.
func TestVMEMArena(t *testing.T) {
	a := newVMEMArena(1<<20, 4096)
	x, ok := a.take("v_x", 100) // rounds up to a 512-byte line multiple
	require.True(t, ok)
	require.Equal(t, int64(1<<20), x)
	y, ok := a.take("v_y", 2048)
	require.True(t, ok)
	require.Equal(t, int64(1<<20+512), y)
	_, ok = a.take("v_z", 2048)
	require.False(t, ok, "1536 bytes left: no room")
	require.True(t, a.release("v_x"))
	require.False(t, a.release("t_other"), "not an arena tensor")
	w, ok := a.take("v_w", 512)
	require.True(t, ok)
	require.Equal(t, x, w, "the freed span is reused")

	var h hbmAllocator
	h.init(1 << 30)
	h.vmem = a
	before := h.snapshot()
	h.release("v_y")
	require.NotContains(t, h.vmem.spans, "v_y")
	require.Equal(t, int64(1<<20+512), h.vmem.top, "the freed top returns to the top")
	h = before.snapshot()
	require.Contains(t, h.vmem.spans, "v_y", "a snapshot restores the arena")
}
