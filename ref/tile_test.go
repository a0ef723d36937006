package ref

import (
	"testing"

	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

// TestViewRuns: the runs of a view, expanded element by element, are every
// element's address in row-major index order, and contiguous dimensions
// merge into one run.
func TestViewRuns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shape   []uint32
		strides []int32
		runs    int // how many runs the view is
	}{
		{"contiguous 2d", []uint32{4, 8}, []int32{8, 1}, 1},
		{"contiguous 4d", []uint32{2, 3, 4, 5}, []int32{60, 20, 5, 1}, 1},
		{"row strided", []uint32{4, 8}, []int32{16, 1}, 4},
		{"merge inner two", []uint32{3, 2, 8}, []int32{64, 8, 1}, 3},
		{"transposed", []uint32{4, 8}, []int32{1, 4}, 32},
		{"broadcast rows", []uint32{4, 8}, []int32{0, 1}, 4},
		{"broadcast elements", []uint32{4, 8}, []int32{1, 0}, 32},
		{"unit dims", []uint32{1, 4, 1, 8}, []int32{999, 8, 7, 1}, 1},
		{"inner unit dim", []uint32{4, 1}, []int32{1, 5}, 1},
		{"empty", []uint32{0, 8}, []int32{8, 1}, 0},
		{"one element", []uint32{1}, []int32{3}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &isa.Layout{Space: isa.HBM, DType: isa.F32, Rank: uint8(len(tc.shape))}
			copy(l.Shape[:], tc.shape)
			copy(l.Strides[:], tc.strides)
			v := view{l, 4096}
			// Every element's address, the plain way.
			var want []int64
			var walk func(d int, addr int64)
			walk = func(d int, addr int64) {
				if d == len(tc.shape) {
					want = append(want, addr)
					return
				}
				for k := int64(0); k < int64(tc.shape[d]); k++ {
					walk(d+1, addr+k*int64(tc.strides[d])*4)
				}
			}
			walk(0, 4096)
			var got []int64
			n := 0
			v.runs(func(i int, addr int64, run int) {
				require.Equal(t, len(got), i, "a run starts at the next element")
				for k := 0; k < run; k++ {
					got = append(got, addr+int64(k)*4)
				}
				n++
			})
			require.Equal(t, want, got)
			require.Equal(t, tc.runs, n)
		})
	}
}
