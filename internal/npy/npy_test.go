package npy

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

func TestWriteRead(t *testing.T) {
	cases := []struct {
		d    isa.DType
		vals []float64
	}{
		{isa.F32, []float64{1.5, -2, math.Inf(1), 0}},
		{isa.BF16, []float64{1, 2.5, -3, 4}},
		{isa.F16, []float64{65504, -0.5, 1e-7, 3}},
		{isa.S32, []float64{-2147483648, 2147483647, 0, 5}},
		{isa.S8, []float64{-128, 127, 0, -1}},
		{isa.U8, []float64{0, 255, 7, 8}},
		{isa.Pred, []float64{1, 0, 1, 1}},
		{isa.F64, []float64{0.1, -1e300, math.Inf(-1), 5e-324}},
		{isa.S16, []float64{-32768, 32767, 0, -1}},
		{isa.U16, []float64{0, 65535, 7, 8}},
	}
	for _, c := range cases {
		b := Write(c.d, []int{2, 2}, c.vals)
		require.Zero(t, (10+int(binary.LittleEndian.Uint16(b[8:])))%64, "header padded to 64 bytes")
		a, err := Read(b)
		require.NoError(t, err, c.d)
		require.Equal(t, []int{2, 2}, a.Shape)
		require.Equal(t, DescrFor(c.d), a.Descr)
		for i, v := range c.vals {
			want := v
			if c.d == isa.F16 {
				want = isa.Round(isa.F16, v)
			}
			require.Equal(t, want, a.Values[i], "%s[%d]", c.d, i)
		}
	}
}

// Every ISA dtype has a .npy dtype of its size (bf16 is written widened to
// f4), so DescrFor's panic for an invalid dtype is unreachable from a
// validated program.
func TestEveryDTypeHasADescr(t *testing.T) {
	for _, d := range isa.DTypes() {
		e, err := parseDescr(DescrFor(d))
		require.NoError(t, err, d)
		if d != isa.BF16 && !d.IsMinifloat() { // written as <f4
			require.Equal(t, d.Size(), e.size, d)
		}
	}
}

// mk is a version-1 .npy file with header text hdr.
func mk(hdr string, body []byte) []byte {
	hdr += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), byte(len(hdr)>>8))
	return append(append(b, hdr...), body...)
}

func TestReadForms(t *testing.T) {
	be := []byte{0x3f, 0x80, 0, 0, 0x40, 0, 0, 0} // 1.0, 2.0 big-endian f32
	a, err := Read(mk("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", be))
	require.NoError(t, err)
	require.Equal(t, []float64{1, 2}, a.Values)
	// Fortran order [2,3]: columns stored first.
	var body []byte
	for _, v := range []int64{1, 4, 2, 5, 3, 6} {
		body = binary.LittleEndian.AppendUint64(body, uint64(v))
	}
	a, err = Read(mk("{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3), }", body))
	require.NoError(t, err)
	require.Equal(t, []float64{1, 2, 3, 4, 5, 6}, a.Values)
	a, err = Read(mk("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", binary.LittleEndian.AppendUint64(nil, math.Float64bits(2.5))))
	require.NoError(t, err)
	require.Equal(t, []float64{2.5}, a.Values)

	bad := map[string][]byte{
		"magic":      []byte("hello"),
		"dtype":      mk("{'descr': '<c4', 'fortran_order': False, 'shape': (1,), }", make([]byte, 4)),
		"structured": mk("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", make([]byte, 4)),
		"short data": mk("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", make([]byte, 8)),
		"huge shape": mk("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 100000), }", nil),
		"bad dim":    mk("{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }", nil),
	}
	for name, b := range bad {
		_, err := Read(b)
		require.Error(t, err, name)
	}
}

// TestComplex: complex64 and complex128 files round-trip as interleaved
// (real, imaginary) values, C and Fortran order.
func TestComplex(t *testing.T) {
	vals := []float64{1, -2, 3.5, 4, -5, 0.25, 6, 7, 8, 9, 10, -11}
	for _, single := range []bool{true, false} {
		a, err := Read(WriteComplex([]int{2, 3}, vals, single))
		require.NoError(t, err)
		require.True(t, a.Complex)
		require.Equal(t, []int{2, 3}, a.Shape)
		require.Equal(t, vals, a.Values)
	}
	// Fortran order: element (i, j) at j*2+i, pairs kept together.
	var body []byte
	for _, k := range []int{0, 3, 1, 4, 2, 5} { // column-major order of a 2x3 array
		body = binary.LittleEndian.AppendUint32(body, math.Float32bits(float32(vals[2*k])))
		body = binary.LittleEndian.AppendUint32(body, math.Float32bits(float32(vals[2*k+1])))
	}
	a, err := Read(mk("{'descr': '<c8', 'fortran_order': True, 'shape': (2, 3), }", body))
	require.NoError(t, err)
	require.Equal(t, vals, a.Values)
}

func FuzzRead(f *testing.F) {
	f.Add(Write(isa.F32, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}))
	f.Add(Write(isa.S8, []int{1}, []float64{-1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Read(b)
		if err != nil {
			return
		}
		n := 1
		for _, d := range a.Shape {
			n *= d
		}
		require.Len(t, a.Values, n)
	})
}

func TestWriteFloat64(t *testing.T) {
	a, err := Read(WriteFloat64([]int{3}, []float64{1.5, -2, 1e300}))
	require.NoError(t, err)
	require.Equal(t, "<f8", a.Descr)
	require.Equal(t, []float64{1.5, -2, 1e300}, a.Values)
}
