package lowering_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStreamTiles: a stream kernel's tile is sized by the bytes its rows
// hold, not one 64-byte line a row (a 1-D array walked element by element
// took 64 bytes an element, 32x smaller tiles), and its buffer sets rotate
// three deep so that loads, vector work and stores overlap; values as the
// evaluator's.
func TestStreamTiles(t *testing.T) {
	const oneD = `HloModule m
ENTRY e {
  a = f32[1048576] parameter(0)
  b = f32[1048576] exponential(a)
  ROOT r = f32[1048576] add(b, a)
}`
	comp := compileFor(t, "tpuv3core", oneD)
	tile := firstTileRows(t, comp.Asm)
	// 4 MiB a set over four f32 buffers (a, b, r and the add's) is 256K
	// elements; one line a row gave 16K.
	require.Greater(t, tile, 100_000)
	require.Contains(t, comp.Asm, "semset  s2, 3")
	require.Regexp(t, `seqi    r29, r30, \d+`, comp.Asm)
	runChecked(t, "tpuv3core", oneD)
	runChecked(t, "teach16", oneD)
}

// firstTileRows reads the rows of the first stream kernel's tiles from its
// header comment.
func firstTileRows(t *testing.T, asm string) int {
	t.Helper()
	m := regexp.MustCompile(`in tiles of (\d+)`).FindStringSubmatch(asm)
	require.NotNil(t, m, asm)
	return atoi(t, m[1])
}
