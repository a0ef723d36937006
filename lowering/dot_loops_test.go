package lowering_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/stretchr/testify/require"
)

// TestRowBlockLoopSegments: a dot whose output is beyond what a register
// offset reaches runs its row blocks as several loops, each as long as the
// offsets reach (a [262144x16x6144] dot, 6 GiB of output, was 104,459
// instructions unrolled, now 1,661): with the reach lowered to a few row
// blocks, the segments compute the evaluator's numbers on both chips.
func TestRowBlockLoopSegments(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  a = bf16[65536,16] parameter(0)
  b = bf16[16,64] parameter(1)
  ROOT d = f32[65536,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	for chip, reach := range map[string]int64{"teach16": 1 << 20, "tpuv4core": 4 << 20} {
		defer lowering.SetRegisterReach(reach)()
		r := runChecked(t, chip, src)
		require.NotNil(t, r)
		m, err := hlo.Parse("t.hlo", src)
		require.NoError(t, err)
		c, err := config.Load(chip, nil)
		require.NoError(t, err)
		x, err := lowering.Compile("t.hlo", m, c)
		require.NoError(t, err)
		require.GreaterOrEqual(t, strings.Count(x.Asm, "_mloop:"), 2, "%s: several row-block loops", chip)
	}
}

// TestColumnLoopStoreWaits: the epilogue a column-group loop's first group
// emits is, in the first iteration, that of the group before the loop (the
// second of its row block, or one after a partial group) and in later ones
// that of a full group: its wait for the stores out of its buffers must
// count a full group's in every iteration. Counting the first iteration's
// let the second row block's epilogues overwrite buffers still being
// stored (BERT's LM head, [2048x16]x[16x30522], 5% off); the race
// detector runChecked runs with sees it for 12,000 columns.
func TestColumnLoopStoreWaits(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  a = f32[2048,16] parameter(0)
  b = f32[16,12000] parameter(1)
  ROOT d = f32[2048,12000] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	x, _ := compileRunChecked(t, "tpuv4core", nil, src)
	require.Contains(t, x.Compiled.Asm, "_nloop:", "the column groups run as a loop")
}

// TestRowSplitSharesRhsTiles: MXUs that split a column tile's rows stream
// the same weights from one load (its DMA signals a token for each):
// [256 x 2048 x 256] on tpuv4core's four MXUs, two to a column tile, reads
// its rhs once, and the values are the evaluator's with the race detector
// watching.
func TestRowSplitSharesRhsTiles(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  a = bf16[512,2048] parameter(0)
  b = bf16[2048,256] parameter(1)
  ROOT d = f32[512,256] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	x, r := compileRunChecked(t, "tpuv4core", nil, src)
	require.Contains(t, x.Compiled.Asm, "row blocks in 2 parts")
	require.Contains(t, x.Compiled.Asm, ":2\n", "a shared load's two tokens")
	// Operands once, plus the output: 2 MiB + 1 MiB + 512 KiB.
	require.Equal(t, int64(3<<20), r.Report.HBM.BytesRead, "HBM read")
	require.Equal(t, int64(512<<10), r.Report.HBM.BytesWritten, "HBM written")
}

// TestSplitKAcrossColumnTiles: two column tiles of 256 rows on four MXUs
// split K two ways (each MXU streams all 256 rows through its weight
// tiles, the splits' sums added) where split by rows each MXU loaded
// every weight tile for 128 rows, the load waiting for the previous
// tile's to leave the array: 7,326 -> 5,525 cycles, operands still read
// once.
func TestSplitKAcrossColumnTiles(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  a = bf16[256,2048] parameter(0)
  b = bf16[2048,256] parameter(1)
  ROOT d = f32[256,256] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	x, r := compileRunChecked(t, "tpuv4core", nil, src)
	require.Contains(t, x.Compiled.Asm, "K split 2 ways")
	require.Equal(t, int64(2<<20), r.Report.HBM.BytesRead, "HBM read")
	require.Equal(t, int64(256<<10), r.Report.HBM.BytesWritten, "HBM written")
	require.Less(t, r.Report.Cycles, int64(6000))
}

// TestSplitKSetsAcrossGroups: with K split over the MXUs, each MXU takes
// its own buffer sets in turn from one group to the next. Counted from the
// tile's index within its group, an MXU whose share of a group's K tiles
// was odd (7 of 25 here) loaded the next group's first tile into the set
// its last stream still read: a race the detector reports (a batched
// weight gradient of MobileNet's 1x1 convolutions found it).
func TestSplitKSetsAcrossGroups(t *testing.T) {
	src := `ENTRY e {
  x = f32[3,16,3136] parameter(0)
  y = f32[3,96,3136] parameter(1)
  ROOT d = f32[3,16,96] dot(x, y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
}`
	x, _ := compileRunChecked(t, "tpuv4core", nil, src)
	require.Contains(t, x.Compiled.Asm, "K split 4 ways")
}

// TestLastGroupInHalves: the kernel's last column group, its block's lhs
// panel resident, runs as two groups of half the rows, so that the first
// half's results store while the second half computes (1024^3 bf16 on
// tpuv4core: 22,028 -> 20,334 cycles). Only its rhs tiles are read twice.
func TestLastGroupInHalves(t *testing.T) {
	const src = `HloModule m
ENTRY e {
  a = bf16[1024,256] parameter(0)
  b = bf16[256,1024] parameter(1)
  ROOT d = f32[1024,1024] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`
	x, r := compileRunChecked(t, "tpuv4core", nil, src)
	require.Contains(t, x.Compiled.Asm, "lhs panel kept in sram")
	halves := 0
	for _, l := range strings.Split(x.Compiled.Asm, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "mxu.m") && strings.Contains(l, ":f32[512,128], sram[") {
			halves++
		}
	}
	require.Equal(t, 2*2*4, halves, "the last group: two halves of 512 rows, two K tiles, four MXUs")
	require.Equal(t, int64(512<<10+512<<10+256<<10), r.Report.HBM.BytesRead, "HBM read: a, b, and b's last column group again")
}
