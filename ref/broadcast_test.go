package ref

import (
	"testing"

	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

// A broadcast read's distinct elements, read once and repeated (compact,
// expand), are the bytes a read run by run gives, for zero strides in any
// dimensions.
func TestBroadcastReadMatchesRuns(t *testing.T) {
	mem := NewMemory(1<<16, false)
	src := make([]byte, 1<<16)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	mem.Write(0, src)
	for _, c := range []struct {
		dt      isa.DType
		shape   []uint32
		strides []int32
	}{
		{isa.F32, []uint32{8, 128}, []int32{0, 1}},       // a row repeated
		{isa.F32, []uint32{8, 128}, []int32{1, 0}},       // a column repeated
		{isa.BF16, []uint32{4, 3, 5}, []int32{15, 0, 1}}, // a middle dimension
		{isa.F32, []uint32{2, 3, 4, 5}, []int32{0, 5, 0, 1}},
		{isa.S8, []uint32{3, 7}, []int32{0, 0}}, // one element everywhere
		{isa.F32, []uint32{1, 6}, []int32{0, 2}},
	} {
		l := &isa.Layout{Space: isa.SRAM, DType: c.dt, Rank: uint8(len(c.shape))}
		copy(l.Shape[:], c.shape)
		copy(l.Strides[:], c.strides)
		v := view{l, 256}
		sz := c.dt.Size()
		want := make([]byte, int(v.Elems())*sz)
		v.runs(func(i int, addr int64, n int) { mem.Read(addr, want[i*sz:(i+n)*sz]) })
		cv, ok := v.compact()
		if !ok {
			require.Equal(t, []int32{0, 2}, c.strides, "only the last case has no broadcast dimension")
			continue
		}
		in := make([]byte, int(cv.Elems())*sz)
		cv.runs(func(i int, addr int64, n int) { mem.Read(addr, in[i*sz:(i+n)*sz]) })
		got := make([]byte, len(want))
		v.expand(cv, in, got)
		require.Equal(t, want, got, "%v %v", c.shape, c.strides)
	}
}
