package core_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/ref"
	"github.com/stretchr/testify/require"
)

// coreProgram has each core copy its own half of A into its SRAM and
// store it to C, then meet the others at the core barrier, then core 1
// reads back what core 0 stored (a value one core wrote, the other reads).
const coreProgram = `
.tensor A hbm 0x0 f32[1024,256]
.tensor C hbm 0x200000 f32[1024,256]
        ld      r1, [r0+%[1]d]
        li      r2, 512*256*4
        mul     r3, r1, r2
        dma     sram[0]:f32[512,256], hbm[r3+A]:f32[512,256] @0 signal s0
        dma     hbm[r3+C]:f32[512,256], sram[0]:f32[512,256] @1 wait s0 signal s1
        wait    s1, 1
        barrier
        li      r4, %[2]d
        st      r4, [r0+%[3]d]
        signal  s31, 1
        wait    s30, 1
        beq     r1, r0, done
        dma     sram[0]:f32[512,256], hbm[C]:f32[512,256] @0 signal s0
        wait    s0, 1
done:
        halt
`

func TestCoresShareHBM(t *testing.T) {
	src := fmt.Sprintf(coreProgram, isa.CoreWord, isa.CoreSyncID, isa.LinkWord)
	run := func(cores string) *core.Model {
		s := src
		if cores == "1" { // no one to meet
			s = strings.Replace(s, "signal  s31, 1\n        wait    s30, 1", "", 1)
		}
		prog, err := asm.Assemble("cores.s", []byte(s), asm.Options{})
		require.NoError(t, err)
		chip, err := config.Load("tpuv4core", []string{"cores=" + cores, "core_sync_ns=50"})
		require.NoError(t, err)
		m, err := core.Simulate(chip, prog, core.Options{}, func(a *ref.Machine) error {
			vals := make([]float64, 1024*256)
			for i := range vals {
				vals[i] = float64(i % 1000)
			}
			return a.WriteTensor("A", vals)
		})
		require.NoError(t, err)
		return m
	}
	two := run("2")
	require.Len(t, two.Cores, 2)
	// Both halves of C are stored, each by its own core, in the HBM the
	// cores share; core 1 read core 0's half back after the barrier.
	c, _, err := two.Arch.ReadTensor("C")
	require.NoError(t, err)
	require.Equal(t, float64(0), c[0])
	require.Equal(t, float64((512*256)%1000), c[512*256])
	require.Equal(t, float64((1024*256-1)%1000), c[1024*256-1])
	got := make([]byte, 4)
	two.Cores[1].Arch.Mem[isa.SRAM].Read(4, got)
	require.Equal(t, []byte{0, 0, 0x80, 0x3f}, got) // core 1's SRAM holds C[0][1] = 1.0f, core 0's half

	// The two cores' streams share HBM's bandwidth: each core moves 1 MiB
	// each way, so the chip takes about twice as long as one core moving
	// its own, not the same time.
	one := run("1")
	require.Nil(t, one.Cores)
	r := float64(two.Cycles()) / float64(one.Cycles())
	require.Greater(t, r, 1.6, "two cores: %d cycles, one: %d", two.Cycles(), one.Cycles())
	require.Less(t, r, 2.4, "two cores: %d cycles, one: %d", two.Cycles(), one.Cycles())
	// Units are named per core beyond core 0.
	require.Equal(t, "core1.dma0", two.Cores[1].Units[0].Name)
	require.Equal(t, "dma0", two.Units[0].Name)
}

// TestCoreSyncRefusesCollectives: a chip that is the only device has no
// interconnect for a collective to go out on.
func TestCoreSyncRefusesCollectives(t *testing.T) {
	src := fmt.Sprintf("        li r4, 3\n        st r4, [r0+%d]\n        signal s31, 1\n        wait s30, 1\n        halt\n", isa.LinkWord)
	prog, err := asm.Assemble("coll.s", []byte(src), asm.Options{})
	require.NoError(t, err)
	chip, err := config.Load("tpuv4", nil)
	require.NoError(t, err)
	_, err = core.Simulate(chip, prog, core.Options{}, nil)
	require.ErrorContains(t, err, "collective 3 on a chip that is the only device")
}
