package systolic

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// SCALE-Sim's WS law for one fold, from hardware.md section 4.4:
// cycles = 2R + C + M - 2 (128^3 -> 509 counting cycles 0..508).
func TestSingleFoldMatchesScaleSim(t *testing.T) {
	for _, c := range []struct{ r, m int }{{128, 128}, {128, 512}, {16, 16}, {256, 8}} {
		a := New(Config{Rows: c.r, Cols: c.r, Dataflow: "ws", LdwCyclesPerRow: 1})
		_, end := a.Load(0, c.r)
		require.Equal(t, int64(c.r), end)
		_, _, done := a.Stream(0, c.m, c.r, c.r, 1)
		require.Equal(t, int64(2*c.r+c.r+c.m-2), done, "R=%d M=%d", c.r, c.m)
	}
}

// Back-to-back streams with double-buffered weights keep the array full:
// the second load hides under the first stream.
func TestDoubleBuffering(t *testing.T) {
	a := New(Config{Rows: 128, Cols: 128, Dataflow: "ws", LdwCyclesPerRow: 1})
	a.Load(0, 128)
	s1, f1, _ := a.Stream(0, 1024, 128, 128, 1)
	require.Equal(t, int64(128), s1)
	require.Equal(t, int64(128+1024), f1)
	ls, le := a.Load(0, 128) // issued right after the stream
	require.Equal(t, s1+128+128-1, ls, "the next load starts when the swap has passed its rows")
	require.Equal(t, ls+128, le)
	s2, f2, d2 := a.Stream(0, 1024, 128, 128, 1)
	require.Equal(t, f1, s2, "no bubble between streams")
	require.Equal(t, s2+1024, f2)
	require.Equal(t, s2+1023+255, d2)
	require.Less(t, le, s2+1)
	require.Equal(t, int64(2048), a.BusyCycles)
}

func TestRatesAndMinimum(t *testing.T) {
	a := New(Config{Rows: 128, Cols: 128, Dataflow: "ws", LdwCyclesPerRow: 1, MinStreamCycles: 64})
	a.Load(0, 128)
	s, f, _ := a.Stream(0, 16, 128, 128, 1)
	require.Equal(t, int64(64), f-s, "short streams occupy the minimum initiation interval")
	s, f, _ = a.Stream(0, 100, 128, 128, 4)
	require.Equal(t, int64(400), f-s, "f32 rows at a quarter rate")
}

func TestOSAndIS(t *testing.T) {
	os := New(Config{Rows: 8, Cols: 8, Dataflow: "os"})
	_, e := os.Load(5, 8)
	require.Equal(t, int64(5), e)
	_, _, done := os.Stream(0, 16, 8, 8, 1) // 2 folds of 2*8 + 8 + 8 - 2
	require.Equal(t, int64(2*30), done)
	is := New(Config{Rows: 8, Cols: 8, Dataflow: "is"})
	_, _, done = is.Stream(0, 16, 8, 4, 1) // ceil(8/8)*ceil(16/8) = 2 folds of 2*8+8+4-2
	require.Equal(t, int64(2*26), done)
}
