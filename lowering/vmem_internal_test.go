package lowering

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlaceResident: a tile operand of a VMEM tensor (v_...), with or
// without a base register, moves to the sram space; nothing else changes.
func TestPlaceResident(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"dma hbm[t_1], hbm[v_2]", "dma hbm[t_1], sram[v_2]"},
		{"vadd hbm[r12+v_a]:f32[8], hbm[r3+t_b]:f32[8]", "vadd sram[r12+v_a]:f32[8], hbm[r3+t_b]:f32[8]"},
		{"hbm[r1v_] hbm[r+v_] hbm[r3", "hbm[r1v_] hbm[r+v_] hbm[r3"},        // not a register, then the text's end
		{"xhbm[v_x] _hbm[v_x] .hbm[v_x]", "xhbm[v_x] _hbm[v_x] .sram[v_x]"}, // hbm must be a word of its own
		{"hbm[v_", "sram[v_"},
	} {
		require.Equal(t, c.want, placeResident([]byte(c.in)), c.in)
	}
}
