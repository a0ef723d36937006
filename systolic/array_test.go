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
	// OS: a full 8x8 fold of K=8 takes SCALE-Sim's K + R + C - 2; with
	// overlapping folds the next starts when the first PE is done.
	os := New(Config{Rows: 8, Cols: 8, Dataflow: "os", FoldOverlap: true})
	_, e := os.Load(5, 8)
	require.Equal(t, int64(5), e, "ldw costs nothing")
	s, f, done := os.Stream(0, 8, 8, 8, 1)
	require.Equal(t, []int64{0, 8, 22}, []int64{s, f, done})
	s, _, done = os.Stream(0, 8, 8, 8, 1)
	require.Equal(t, []int64{8, 30}, []int64{s, done})
	serial := New(Config{Rows: 8, Cols: 8, Dataflow: "os"})
	serial.Stream(0, 8, 8, 8, 1)
	s, _, _ = serial.Stream(0, 8, 8, 8, 1)
	require.Equal(t, int64(22), s, "without overlap a fold waits for the previous one's results")
	// IS: the X block shifts in (8 rows), then 4 columns of W stream: the
	// IS law 2R + C + N - 2 with the block full.
	is := New(Config{Rows: 8, Cols: 8, Dataflow: "is", LdwCyclesPerRow: 1})
	ls, next, done := is.Stream(0, 8, 8, 4, 1)
	require.Equal(t, []int64{0, 8, 26}, []int64{ls, next, done})
	// The next block shifts in under this stream.
	ls, next, _ = is.Stream(next, 8, 8, 4, 1)
	require.Equal(t, int64(8+8+8-1), ls, "the next block's load waits for the swap to pass its rows")
	require.Greater(t, next, ls)
}
