// Package npy reads and writes NumPy .npy files (format versions 1.0 to 3.0).
// Values travel as float64, which holds every element of the dtypes Pulse
// models exactly. bf16 and the 8-bit floats have no NumPy dtype: Pulse
// writes them as <f4 (exact) and reads any float file into them by
// rounding.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/isa"
)

var magic = []byte("\x93NUMPY")

// Array is a decoded .npy file.
type Array struct {
	Descr  string // NumPy dtype string, e.g. "<f4"
	Shape  []int
	Values []float64
	// Bits holds integer files' elements exactly (sign-extended for
	// signed types), since Values cannot hold every 64-bit integer.
	Bits []uint64
	// Complex: a complex64 or complex128 file (<c8, <c16), whose Values
	// hold each element's real and imaginary parts, interleaved (2 per
	// element, as eval.Value holds complex arrays).
	Complex bool
}

// ValuesAs returns the elements as values of dtype d: 64-bit integer
// dtypes get their exact bits (see isa.DType.IsWide).
func (a *Array) ValuesAs(d isa.DType) []float64 {
	if !d.IsWide() {
		return a.Values
	}
	out := make([]float64, len(a.Values))
	for i, v := range a.Values {
		if a.Bits != nil {
			out[i] = isa.FromBits(d, a.Bits[i])
		} else {
			out[i] = isa.FromNumber(d, v)
		}
	}
	return out
}

// MaxElems bounds what Read will allocate.
const MaxElems = 1 << 31

type elem struct {
	size  int
	order binary.ByteOrder
	kind  byte // f, i, u, b
}

func parseDescr(d string) (elem, error) {
	if len(d) < 3 {
		return elem{}, fmt.Errorf("unsupported dtype %q", d)
	}
	var e elem
	switch d[0] {
	case '<', '|', '=':
		e.order = binary.LittleEndian
	case '>':
		e.order = binary.BigEndian
	default:
		return e, fmt.Errorf("unsupported dtype %q", d)
	}
	e.kind = d[1]
	n, err := strconv.Atoi(d[2:])
	if err != nil {
		return e, fmt.Errorf("unsupported dtype %q", d)
	}
	e.size = n
	ok := false
	switch e.kind {
	case 'f':
		ok = n == 2 || n == 4 || n == 8
	case 'i', 'u':
		ok = n == 1 || n == 2 || n == 4 || n == 8
	case 'b':
		ok = n == 1
	case 'c':
		ok = n == 8 || n == 16
	}
	if !ok {
		return e, fmt.Errorf("unsupported dtype %q (supported: f2 f4 f8, c8 c16, i1..i8, u1..u8, b1)", d)
	}
	return e, nil
}

func (e elem) load(b []byte) float64 {
	u := e.raw(b)
	switch e.kind {
	case 'f':
		switch e.size {
		case 2:
			return float64(isa.F16ToF32(uint16(u)))
		case 4:
			return float64(math.Float32frombits(uint32(u)))
		}
		return math.Float64frombits(u)
	case 'i':
		return float64(int64(e.bits(b)))
	case 'b':
		if u != 0 {
			return 1
		}
		return 0
	}
	return float64(u)
}

// raw reads an element's bytes, zero-extended.
func (e elem) raw(b []byte) uint64 {
	switch e.size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(e.order.Uint16(b))
	case 4:
		return uint64(e.order.Uint32(b))
	}
	return e.order.Uint64(b)
}

// Read decodes a .npy file.
func Read(data []byte) (*Array, error) {
	if len(data) < 10 || !bytes.Equal(data[:6], magic) {
		return nil, errors.New("not a .npy file (bad magic)")
	}
	major := data[6]
	var hlen, off int
	switch major {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(data[8:])), 10
	case 2, 3:
		if len(data) < 12 {
			return nil, errors.New("truncated .npy header")
		}
		h := binary.LittleEndian.Uint32(data[8:])
		if h > 1<<24 {
			return nil, errors.New(".npy header too large")
		}
		hlen, off = int(h), 12
	default:
		return nil, fmt.Errorf("unsupported .npy version %d", major)
	}
	if off+hlen > len(data) {
		return nil, errors.New("truncated .npy header")
	}
	descr, fortran, shape, err := parseHeader(string(data[off : off+hlen]))
	if err != nil {
		return nil, err
	}
	e, err := parseDescr(descr)
	if err != nil {
		return nil, err
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("negative dimension in shape %v", shape)
		}
		n *= int64(d)
		if n > MaxElems {
			return nil, fmt.Errorf("array of shape %v is too large", shape)
		}
	}
	body := data[off+hlen:]
	if int64(len(body)) != n*int64(e.size) {
		return nil, fmt.Errorf("data is %d bytes, shape %v of %s needs %d", len(body), shape, descr, n*int64(e.size))
	}
	if e.kind == 'c' {
		// Two floats of half the size per element.
		part := elem{size: e.size / 2, order: e.order, kind: 'f'}
		pairs := make([][2]float64, n)
		for i := range pairs {
			pairs[i] = [2]float64{part.load(body[i*e.size:]), part.load(body[i*e.size+part.size:])}
		}
		if fortran && len(shape) > 1 {
			pairs = fromFortran(pairs, shape)
		}
		vals := make([]float64, 0, 2*n)
		for _, p := range pairs {
			vals = append(vals, p[0], p[1])
		}
		return &Array{Descr: descr, Shape: shape, Values: vals, Complex: true}, nil
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = e.load(body[i*e.size:])
	}
	var bits []uint64
	if e.kind == 'i' || e.kind == 'u' {
		bits = make([]uint64, n)
		for i := range bits {
			bits[i] = e.bits(body[i*e.size:])
		}
	}
	if fortran && len(shape) > 1 {
		vals = fromFortran(vals, shape)
		if bits != nil {
			bits = fromFortran(bits, shape)
		}
	}
	return &Array{Descr: descr, Shape: shape, Values: vals, Bits: bits}, nil
}

// bits reads an integer element, sign-extended for signed kinds.
func (e elem) bits(b []byte) uint64 {
	u := e.raw(b)
	if e.kind == 'i' {
		shift := 64 - 8*e.size
		u = uint64(int64(u<<shift) >> shift)
	}
	return u
}

func fromFortran[T any](v []T, shape []int) []T {
	out := make([]T, len(v))
	idx := make([]int, len(shape))
	for c := range out {
		// c is the C-order index; compute the Fortran-order index of the same element.
		f, stride := 0, 1
		for d := 0; d < len(shape); d++ {
			f += idx[d] * stride
			stride *= shape[d]
		}
		out[c] = v[f]
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// parseHeader reads the Python dict literal of a .npy header.
func parseHeader(h string) (descr string, fortran bool, shape []int, err error) {
	h = strings.TrimSpace(h)
	if !strings.HasPrefix(h, "{") || !strings.HasSuffix(h, "}") {
		return "", false, nil, errors.New("malformed .npy header")
	}
	body := h[1 : len(h)-1]
	get := func(key string) (string, bool) {
		i := strings.Index(body, "'"+key+"'")
		if i < 0 {
			return "", false
		}
		rest := strings.TrimSpace(body[i+len(key)+2:])
		if !strings.HasPrefix(rest, ":") {
			return "", false
		}
		return strings.TrimSpace(rest[1:]), true
	}
	d, ok := get("descr")
	if !ok || !strings.HasPrefix(d, "'") {
		return "", false, nil, errors.New(".npy header has no simple 'descr' (structured dtypes are not supported)")
	}
	end := strings.Index(d[1:], "'")
	if end < 0 {
		return "", false, nil, errors.New("malformed 'descr' in .npy header")
	}
	descr = d[1 : end+1]
	f, ok := get("fortran_order")
	if !ok {
		return "", false, nil, errors.New(".npy header has no 'fortran_order'")
	}
	fortran = strings.HasPrefix(f, "True")
	s, ok := get("shape")
	if !ok || !strings.HasPrefix(s, "(") {
		return "", false, nil, errors.New(".npy header has no 'shape'")
	}
	close := strings.Index(s, ")")
	if close < 0 {
		return "", false, nil, errors.New("malformed 'shape' in .npy header")
	}
	shape = []int{}
	for _, part := range strings.Split(s[1:close], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		v, perr := strconv.Atoi(strings.TrimSuffix(part, "L"))
		if perr != nil {
			return "", false, nil, fmt.Errorf("bad dimension %q in .npy shape", part)
		}
		shape = append(shape, v)
	}
	return descr, fortran, shape, nil
}

// DescrFor is the .npy dtype a Pulse dtype is written as.
func DescrFor(d isa.DType) string {
	switch d {
	case isa.F32, isa.BF16:
		return "<f4"
	case isa.F16:
		return "<f2"
	case isa.S32:
		return "<i4"
	case isa.S16:
		return "<i2"
	case isa.U16:
		return "<u2"
	case isa.S8, isa.S4:
		return "|i1" // a 4-bit integer one per byte, as the chip holds it
	case isa.U8, isa.U4:
		return "|u1"
	case isa.U32:
		return "<u4"
	case isa.S64:
		return "<i8"
	case isa.U64:
		return "<u8"
	case isa.Pred:
		return "|b1"
	case isa.F64:
		return "<f8"
	}
	if d.IsMinifloat() {
		return "<f4" // exact, as bf16: NumPy has no 8-bit floats (ml_dtypes' are not in the format)
	}
	// Unreachable for the dtypes of a validated program (every one is
	// listed above: TestEveryDTypeHasADescr); writing some other type's
	// bytes instead would be a silent corruption.
	panic("npy: no .npy dtype for " + d.String())
}

// header returns the .npy prelude for descr and shape (version 1.0, padded
// so that the data starts at a multiple of 64 bytes).
func header(descr string, shape []int) *bytes.Buffer { return headerFor(descr, shape, 0) }

// headerFor is header with room for payload bytes of data after it: a
// 67M-element array written element by element into a growing buffer took
// twice its size in transient memory.
func headerFor(descr string, shape []int, payload int) *bytes.Buffer {
	var dims []string
	for _, s := range shape {
		dims = append(dims, strconv.Itoa(s))
	}
	tuple := strings.Join(dims, ", ")
	if len(dims) == 1 {
		tuple += ","
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	total := 10 + len(hdr) + 1
	hdr += strings.Repeat(" ", (64-total%64)%64) + "\n"
	var b bytes.Buffer
	b.Grow(10 + len(hdr) + payload)
	b.Write(magic)
	b.Write([]byte{1, 0})
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	return &b
}

// Write encodes values of Pulse dtype d with the given shape as a .npy file.
func Write(d isa.DType, shape []int, vals []float64) []byte {
	descr := DescrFor(d)
	e, _ := parseDescr(descr)
	b := headerFor(descr, shape, len(vals)*e.size)
	buf := make([]byte, e.size)
	for _, v := range vals {
		switch descr {
		case "<f4":
			binary.LittleEndian.PutUint32(buf, math.Float32bits(float32(v)))
		case "<f2":
			binary.LittleEndian.PutUint16(buf, isa.F32ToF16(float32(v)))
		case "<i4":
			binary.LittleEndian.PutUint32(buf, uint32(int32(v)))
		case "|i1":
			buf[0] = byte(int8(v))
		case "<i2":
			binary.LittleEndian.PutUint16(buf, uint16(int16(v)))
		case "<u2":
			binary.LittleEndian.PutUint16(buf, uint16(v))
		case "<u4":
			binary.LittleEndian.PutUint32(buf, uint32(v))
		case "<i8", "<u8":
			binary.LittleEndian.PutUint64(buf, math.Float64bits(v)) // bits: see isa.DType.IsWide
		case "<f8":
			binary.LittleEndian.PutUint64(buf, math.Float64bits(v))
		default:
			buf[0] = byte(uint8(v))
		}
		b.Write(buf)
	}
	return b.Bytes()
}

// WriteComplex encodes a complex array, vals its real and imaginary parts
// interleaved: complex64 (<c8) when single, else complex128 (<c16).
func WriteComplex(shape []int, vals []float64, single bool) []byte {
	if !single {
		return writeFloat64s("<c16", shape, vals)
	}
	b := headerFor("<c8", shape, 4*len(vals))
	var buf [4]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(float32(v)))
		b.Write(buf[:])
	}
	return b.Bytes()
}

// WriteFloat64 encodes values as a <f8 .npy file (for element types Pulse's
// ISA does not have, such as f64 and s64).
func WriteFloat64(shape []int, vals []float64) []byte { return writeFloat64s("<f8", shape, vals) }

// writeFloat64s writes vals as 8-byte floats under descr.
func writeFloat64s(descr string, shape []int, vals []float64) []byte {
	b := headerFor(descr, shape, 8*len(vals))
	var buf [8]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		b.Write(buf[:])
	}
	return b.Bytes()
}
