package core_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
)

// TestSliceSearch: a timing-only run of a loop whose count is computed by
// a chain of small instructions (a DMA in, a vector add, a DMA out) takes
// one run: they compute eagerly, everything they read being computed.
// Made large, they are skipped and the search finds the chain: its first
// run keeps no dependences and names the last link; the second keeps them
// up to where the first stopped and names the rest at once; the third
// needs nothing more.
func TestSliceSearch(t *testing.T) {
	const f = "../internal/conformance/testdata/control_on_data.s"
	src, err := os.ReadFile(f)
	require.NoError(t, err)
	prog, err := asm.Assemble(f, src, asm.Options{})
	require.NoError(t, err)
	chip, err := config.Load("tpuv4core", nil)
	require.NoError(t, err)
	m := bothModes(t, chip, prog)
	require.NotNil(t, m.Slice)
	require.True(t, m.Slice.Steers)
	require.Equal(t, 1, m.Slice.Computed, "the DMA into scalar memory: %s", m.Slice.Sample)
	require.Equal(t, 3, m.Slice.Eager, "the counter's chain")
	require.Equal(t, 7, m.Slice.Units)
	require.Equal(t, 1, m.Slice.Runs)

	// The counter as 128 elements, of which the loop reads the first.
	fill := func(v string) string { return "s32[1,128] = {" + v + strings.Repeat(", 0", 127) + "}" }
	big := strings.NewReplacer("s32[1,1] = {3}", fill("3"), "s32[1,1] = {7}", fill("7"),
		"c     sram 0x40   s32[1,1]", "c     sram 0x400  s32[1,128]").Replace(string(src))
	prog, err = asm.Assemble(f, []byte(big), asm.Options{})
	require.NoError(t, err)
	m = bothModes(t, chip, prog)
	require.Equal(t, 4, m.Slice.Computed, "the counter's chain: %s", m.Slice.Sample)
	require.Equal(t, 0, m.Slice.Eager)
	require.Equal(t, 3, m.Slice.Runs)
}
