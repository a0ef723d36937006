package ref

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/pulse-sim/pulse/isa"
)

// view is a resolved tile: a layout at a byte address.
type view struct {
	*isa.Layout
	base int64
}

func (v view) String() string {
	return fmt.Sprintf("%s[0x%x]:%s", v.Space, v.base, v.Layout.String())
}

// resolve checks a tile operand against the machine: layout, alignment, and
// that every byte it touches lies inside its memory space.
func (m *Machine) resolve(t isa.Tile, base int64) (view, error) {
	l, ok := m.Prog.Layout(t.Layout)
	if !ok {
		return view{}, errf("tile layout %d not in the layout table", t.Layout)
	}
	v := view{l, base}
	size := int64(l.DType.Size())
	if base%size != 0 {
		return v, addrErr(base, "tile %s is misaligned: base 0x%x is not a multiple of the %s element size %d", v, base, l.DType, size)
	}
	lo, hi := l.Extent()
	memSize := m.Mem[l.Space].Size
	if hi-lo > memSize {
		return v, addrErr(base, "tile %s spans %d bytes, more than all of %s (%d bytes)", v, hi-lo, l.Space, memSize)
	}
	if base+lo < 0 || base+hi > memSize {
		bad := base + lo
		if bad >= 0 {
			bad = base + hi - 1
		}
		return v, addrErr(bad, "tile %s reaches outside %s (valid addresses 0x0..0x%x)", v, l.Space, memSize-1)
	}
	return v, nil
}

// runs calls fn for every run of elements that lie one after another in
// memory, in row-major index order: the index of the run's first element,
// its byte address and its length in elements. Dimensions whose elements
// continue where the inner ones end are merged, so a contiguous tile is a
// single run and a row-strided one a run per row; a tile whose innermost
// stride is not one element (a transposed or broadcast read) is a run per
// element.
func (v view) runs(fn func(i int, addr int64, n int)) {
	var sh, st [isa.MaxRank]int64
	r := int(v.Rank)
	// Left-pad to 4 dimensions.
	for i := 0; i < isa.MaxRank; i++ {
		sh[i], st[i] = 1, 0
	}
	sz := int64(v.DType.Size())
	for i := 0; i < r; i++ {
		sh[isa.MaxRank-r+i] = int64(v.Shape[i])
		st[isa.MaxRank-r+i] = int64(v.Strides[i]) * sz
	}
	for _, n := range sh {
		if n == 0 {
			return
		}
	}
	// Fold dimensions into the run from the innermost out while each
	// continues the run (or has one index).
	run := int64(1)
	k := isa.MaxRank - 1
	for ; k >= 0 && (sh[k] == 1 || st[k] == run*sz); k-- {
		run *= sh[k]
		sh[k] = 1
	}
	i := 0
	for a := int64(0); a < sh[0]; a++ {
		for b := int64(0); b < sh[1]; b++ {
			for c := int64(0); c < sh[2]; c++ {
				base := v.base + a*st[0] + b*st[1] + c*st[2]
				for d := int64(0); d < sh[3]; d++ {
					fn(i, base+d*st[3], int(run))
					i += int(run)
				}
			}
		}
	}
}

// readBytes returns the tile's elements, packed, checking accumulator rows
// were written. An instruction that computes no values (a partial run)
// gets nil after the checks.
func (m *Machine) readBytes(v view) ([]byte, error) {
	mem := m.Mem[v.Space]
	sz := v.DType.Size()
	var err error
	if mem.Track {
		v.runs(func(i int, addr int64, n int) {
			if err != nil {
				return
			}
			if a := mem.FirstUnwritten(addr, int64(n*sz)); a >= 0 {
				err = addrErr(a, "read of %s that was never written (tile %s, element %d)", v.Space, v, i+int(a-addr)/sz)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	if m.probe {
		m.dirty = m.dirty || !m.cleanRead(v)
		return nil, nil
	}
	m.report(v, false)
	if m.dry {
		m.recordSkippedRead(v)
		return nil, nil
	}
	if err := m.checkComputedRead(v); err != nil {
		return nil, err
	}
	out := make([]byte, int(v.Elems())*sz)
	if c, ok := v.compact(); ok {
		// A broadcast read (a zero stride) is a run per element, each a
		// page lookup: its distinct elements are read once and repeated.
		in := make([]byte, int(c.Elems())*sz)
		c.runs(func(i int, addr int64, n int) {
			mem.Read(addr, in[i*sz:(i+n)*sz])
		})
		v.expand(c, in, out)
		return out, nil
	}
	v.runs(func(i int, addr int64, n int) {
		mem.Read(addr, out[i*sz:(i+n)*sz])
	})
	return out, nil
}

// compact is v without its broadcast dimensions (those of stride 0 and
// more than one index), each made one index long: the tile of v's
// distinct elements. False when v has none.
func (v view) compact() (view, bool) {
	l := *v.Layout
	found := false
	for i := 0; i < int(l.Rank); i++ {
		if l.Strides[i] == 0 && l.Shape[i] > 1 {
			l.Shape[i], found = 1, true
		}
	}
	return view{&l, v.base}, found
}

// expand writes v's packed elements into out from c's (v's compact view,
// whose packed elements are in): the element at each index of v is c's at
// the same index with the broadcast dimensions' indices 0.
func (v view) expand(c view, in, out []byte) {
	sz := v.DType.Size()
	r := int(v.Rank)
	// Strides of c's packed elements, in elements, per dimension of v
	// (0 for a broadcast dimension).
	var cst [isa.MaxRank]int
	step := 1
	for i := r - 1; i >= 0; i-- {
		if c.Shape[i] == v.Shape[i] {
			cst[i] = step
		}
		step *= int(c.Shape[i])
	}
	var idx [isa.MaxRank]int
	for o := 0; o < len(out); o += sz {
		at := 0
		for i := 0; i < r; i++ {
			at += idx[i] * cst[i]
		}
		copy(out[o:o+sz], in[at*sz:(at+1)*sz])
		for i := r - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < int(v.Shape[i]) {
				break
			}
			idx[i] = 0
		}
	}
}

// writeBytes stores packed elements into the tile. An instruction that
// computes no values only marks the bytes written.
func (m *Machine) writeBytes(v view, src []byte) {
	if m.probe {
		return
	}
	mem := m.Mem[v.Space]
	sz := v.DType.Size()
	m.recordWrite(v)
	m.report(v, true)
	if m.dry {
		if mem.Track {
			v.runs(func(_ int, addr int64, n int) { mem.MarkWritten(addr, int64(n*sz)) })
		}
		return
	}
	v.runs(func(i int, addr int64, n int) {
		mem.Write(addr, src[i*sz:(i+n)*sz])
	})
}

// report tells Access the runs of v an executing instruction touches.
func (m *Machine) report(v view, write bool) {
	if m.Access == nil || !m.inExec {
		return
	}
	sz := int64(v.DType.Size())
	v.runs(func(_ int, addr int64, n int) { m.Access(m.execPC, v.Space, addr, int64(n)*sz, write) })
}

// read returns the tile's element values.
func (m *Machine) read(v view) ([]float64, error) {
	b, err := m.readBytes(v)
	if err != nil || m.dry {
		return nil, err
	}
	sz := v.DType.Size()
	out := make([]float64, v.Elems())
	if v.DType == isa.F32 { // most of what a model moves: decoded without the dtype switch
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
		return out, nil
	}
	for i := range out {
		out[i] = isa.LoadElem(v.DType, b[i*sz:])
	}
	return out, nil
}

// write rounds values to the tile's dtype (the cast rules) and stores them.
func (m *Machine) write(v view, vals []float64) {
	if m.dry {
		m.writeBytes(v, nil)
		return
	}
	sz := v.DType.Size()
	b := make([]byte, len(vals)*sz)
	if v.DType == isa.F32 { // isa.Round and isa.StoreElem for f32, without the dtype switch
		for i, x := range vals {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		}
	} else {
		for i, x := range vals {
			isa.StoreElem(v.DType, b[i*sz:], isa.Round(v.DType, x))
		}
	}
	m.writeBytes(v, b)
}

func sameShape(a, b view) bool {
	if a.Rank != b.Rank {
		return false
	}
	for i := 0; i < int(a.Rank); i++ {
		if a.Shape[i] != b.Shape[i] {
			return false
		}
	}
	return true
}
