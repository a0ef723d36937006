package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/stretchr/testify/require"
)

func races(t *testing.T, chipName, file string, src []byte, sets ...string) *core.Races {
	t.Helper()
	prog, err := asm.Assemble(file, src, asm.Options{})
	require.NoError(t, err)
	c, err := config.Load(chipName, sets)
	require.NoError(t, err)
	r := &core.Races{}
	_, err = core.Simulate(c, prog, core.Options{Observers: []core.Observer{r}}, nil)
	require.NoError(t, err)
	return r
}

// TestRacesInExamples: every example kernel is synchronized, so the
// detector finds nothing in any of them.
func TestRacesInExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/kernels/*.s")
	for _, f := range files {
		if filepath.Base(f) == "gemm4096.s" {
			continue // too large for a value run here
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			chip, sets := kernelChip(src)
			r := races(t, chip, f, src, sets...)
			require.Zero(t, r.Count, "%v", r.Found)
		})
	}
}

// TestRacesFound: a vector add whose add does not wait for its loads, and
// one whose store does not wait for the add.
func TestRacesFound(t *testing.T) {
	base := `.tensor x hbm 0x0000 f32[256] = random(1)
.tensor y hbm 0x1000 f32[256] = random(2)
.tensor z hbm 0x2000 f32[256]
        dma     sram[0]:f32[256], x
        dma     sram[1024]:f32[256], y                       signal s0
        vadd    sram[2048]:f32[256], sram[0]:f32[256], sram[1024]:f32[256]   WAITADD signal s1
        dma     z, sram[2048]:f32[256]                        WAITSTORE
        halt
`
	for _, tc := range []struct {
		name, add, store string
		races            int
		want             string
	}{
		{"synchronized", "wait s0", "wait s1", 0, ""},
		{"add without wait", "", "wait s1", 1, "on vpu (pc 2) reads sram[0x0] while f.s:4:9 on dma0 (pc 0), still in flight, writes it"},
		{"store without wait", "wait s0", "", 1, "on vpu (pc 2) writes sram[0x800] while f.s:7:9 on dma0 (pc 3), still in flight, reads it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.NewReplacer("WAITADD", tc.add, "WAITSTORE", tc.store).Replace(base)
			r := races(t, "teach16", "f.s", []byte(src))
			require.Len(t, r.Found, tc.races, "%v", r.Found)
			if tc.want != "" {
				require.Contains(t, r.Found[0].String(), tc.want)
			}
		})
	}
}
