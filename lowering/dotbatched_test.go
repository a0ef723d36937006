package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPackedBatchedDots: batches of dots small enough that several
// weight tiles fit the array's diagonal run in packs (one weight load and
// one stream a pack, dotbatched.go): the values are the evaluator's, with
// the race detector watching (runChecked), for the rhs in its own layout
// and transposed, rows unlike the contracting size, several chunks,
// counted loops of chunks, and bf16 results (converted by the epilogue);
// and the streams are as wide as the plan says.
func TestPackedBatchedDots(t *testing.T) {
	for _, tc := range []struct {
		chip            string
		dt, odt         string
		B, M, K, N      int
		rhsT            bool
		packMM, packCol int // the packed stream's rows and columns: mxu.mm acc[...]:f32[M, G*N]
	}{
		{"tpuv4core", "f32", "f32", 64, 16, 16, 16, false, 16, 128},
		{"tpuv4core", "f32", "f32", 4096, 16, 16, 16, false, 16, 128}, // loops of chunks
		{"tpuv4core", "bf16", "bf16", 8, 64, 64, 64, false, 64, 128},
		{"tpuv4core", "bf16", "f32", 32, 24, 16, 32, true, 24, 128},
		{"trn1nc", "f32", "f32", 512, 16, 16, 16, false, 16, 128},
		{"trn1nc", "bf16", "bf16", 16, 64, 64, 64, false, 64, 64}, // two a pack: not on trn1nc's engines
		// Chunks loaded in several pieces, landing out of order: a
		// batch's weight load waiting for one token took a later
		// piece's (a race, before the first waited for them all).
		{"trn1nc", "bf16", "bf16", 512, 64, 64, 64, false, 64, 64},
		{"trn1nc", "f32", "f32", 4096, 16, 16, 16, false, 16, 128},
	} {
		name := fmt.Sprintf("%s/%s_%dx%dx%dx%d_T%v", tc.chip, tc.dt, tc.B, tc.M, tc.K, tc.N, tc.rhsT)
		t.Run(name, func(t *testing.T) {
			rhs, rc := fmt.Sprintf("%s[%d,%d,%d]", tc.dt, tc.B, tc.K, tc.N), 1
			if tc.rhsT {
				rhs, rc = fmt.Sprintf("%s[%d,%d,%d]", tc.dt, tc.B, tc.N, tc.K), 2
			}
			src := fmt.Sprintf(`HloModule m
ENTRY e {
  a = %s[%d,%d,%d] parameter(0)
  b = %s parameter(1)
  ROOT d = %s[%d,%d,%d] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={%d}
}`, tc.dt, tc.B, tc.M, tc.K, rhs, tc.odt, tc.B, tc.M, tc.N, rc)
			x, _ := compileRunChecked(t, tc.chip, nil, src)
			asm := x.Compiled.Asm
			require.True(t, strings.Contains(asm, fmt.Sprintf(":f32[%d,%d], sram[", tc.packMM, tc.packCol)), "streams of %d x %d", tc.packMM, tc.packCol)
			require.Equal(t, tc.packCol > tc.N, strings.Contains(asm, "vfill"), "the block diagonals' zeros where packed")
		})
	}
}

// TestTransposedLhsSmallDots: dots whose lhs is transposed in HBM (X^T .
// dY: the contracting dim is the lhs's major one) with a small result.
// Batches of single-tile dots run in chunks, each batch staged and
// transposed on a cross-lane unit, also where the batch steps are fixed
// only within runs (heads interleaved with positions, [b, s, h, d]); a
// long contraction is split over the MXUs rather than its 32 rows. The
// values are the evaluator's, races watched, and on tpuv4core each is
// within a bound (before: 2,486 and 3,426 cycles, roofs 448 and 455).
func TestTransposedLhsSmallDots(t *testing.T) {
	batched := `HloModule m
ENTRY e {
  a = f32[2,64,4,32]{3,1,2,0} parameter(0)
  b = f32[2,4,64,64] parameter(1)
  ROOT d = f32[2,4,32,64] dot(a, b), lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
}`
	affine := `HloModule m
ENTRY e {
  a = f32[8,64,32] parameter(0)
  b = f32[8,64,64] parameter(1)
  ROOT d = f32[8,32,64] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}`
	longK := `HloModule m
ENTRY e {
  a = f32[1024,32] parameter(0)
  b = f32[1024,32] parameter(1)
  ROOT d = f32[32,32] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}`
	for _, tc := range []struct {
		name, chip, src string
		chunked         bool
		maxCycles       int64
	}{
		{"batched in runs", "tpuv4core", batched, true, 1300},
		{"batched", "tpuv4core", affine, true, 1300},
		{"batched on capped engines", "trn1nc", affine, false, 0},
		{"long K", "tpuv4core", longK, false, 1500},
		{"long K", "teach16", longK, false, 0},
		{"long K", "trn1nc", longK, false, 0},
	} {
		t.Run(tc.name+"/"+tc.chip, func(t *testing.T) {
			x, r := compileRunChecked(t, tc.chip, nil, tc.src)
			require.Equal(t, tc.chunked, strings.Contains(x.Compiled.Asm, "in chunks of"), "chunked")
			if tc.maxCycles > 0 {
				require.Less(t, r.Report.Cycles, tc.maxCycles)
			}
		})
	}
}
