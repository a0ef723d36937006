package ref

import "sort"

// pageSize is the allocation unit of the sparse memories: a 16 GiB HBM costs
// only the pages a program touches.
const pageSize = 1 << 16

type page struct {
	// data is allocated by the first write: a timing-only run marks
	// accumulator bytes written without storing values, and a page of
	// written bits alone costs 8 KiB, not 72.
	data    *[pageSize]byte
	written []uint64 // one bit per byte; nil when the memory does not track writes
	nset    int      // bits set in written: at pageSize every byte was written
}

// markWritten sets the written bits of [lo, hi) in the page. Once every
// byte was written it does nothing: an accumulator row is written over and
// over by a matmul's K steps, and checking bits no longer pays.
func (p *page) markWritten(lo, hi int64) {
	if p.written != nil && p.nset < pageSize {
		p.nset += setBitsCount(p.written, lo, hi)
	}
}

// Memory is a sparse, byte-addressed memory space. Bytes never written read
// as zero. When Track is set it remembers which bytes were ever written, so
// that reading an accumulator row nobody wrote is a fault, not a silent zero.
type Memory struct {
	Size  int64
	Track bool
	pages map[int64]*page
	last  *page // one-entry page cache for the element-by-element paths
	lastN int64
}

// NewMemory makes an empty memory of size bytes.
func NewMemory(size int64, track bool) *Memory {
	return &Memory{Size: size, Track: track, pages: map[int64]*page{}, lastN: -1}
}

func (m *Memory) page(n int64, alloc bool) *page {
	if n == m.lastN {
		return m.last
	}
	p := m.pages[n]
	if p == nil {
		if !alloc {
			return nil
		}
		p = &page{}
		if m.Track {
			p.written = make([]uint64, pageSize/64)
		}
		m.pages[n] = p
	}
	m.last, m.lastN = p, n
	return p
}

// Read copies len(dst) bytes from addr. The caller has bounds-checked.
func (m *Memory) Read(addr int64, dst []byte) {
	for len(dst) > 0 {
		n, off := addr/pageSize, addr%pageSize
		c := min(int64(len(dst)), pageSize-off)
		if p := m.page(n, false); p != nil && p.data != nil {
			copy(dst[:c], p.data[off:off+c])
		} else {
			clear(dst[:c])
		}
		dst, addr = dst[c:], addr+c
	}
}

// Write copies src to addr and marks the bytes written.
func (m *Memory) Write(addr int64, src []byte) {
	for len(src) > 0 {
		n, off := addr/pageSize, addr%pageSize
		c := min(int64(len(src)), pageSize-off)
		p := m.page(n, true)
		if p.data == nil {
			p.data = new([pageSize]byte)
		}
		copy(p.data[off:off+c], src[:c])
		p.markWritten(off, off+c)
		src, addr = src[c:], addr+c
	}
}

// MarkWritten marks n bytes from addr written without storing anything: a
// partial run's skipped instruction wrote them (their values are not kept).
func (m *Memory) MarkWritten(addr, n int64) {
	if !m.Track {
		return
	}
	each(addr, n, func(pn, lo, hi int64) {
		m.page(pn, true).markWritten(lo, hi)
	})
}

// FirstUnwritten returns the first address in [addr, addr+n) never written,
// or -1. Memories that do not track writes return -1.
func (m *Memory) FirstUnwritten(addr, n int64) int64 {
	if !m.Track {
		return -1
	}
	first := int64(-1)
	each(addr, n, func(pn, lo, hi int64) {
		if first >= 0 {
			return
		}
		p := m.page(pn, false)
		if p == nil {
			first = pn*pageSize + lo
		} else if p.nset == pageSize {
			return
		} else if b := firstZero(p.written, lo, hi); b >= 0 {
			first = pn*pageSize + b
		}
	})
	return first
}

// Pages returns the page numbers holding data, sorted.
func (m *Memory) Pages() []int64 {
	ns := make([]int64, 0, len(m.pages))
	for n, p := range m.pages {
		if p.data != nil {
			ns = append(ns, n)
		}
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i] < ns[j] })
	return ns
}

// PageData returns page n's bytes (nil if never written).
func (m *Memory) PageData(n int64) []byte {
	if p := m.pages[n]; p != nil && p.data != nil {
		return p.data[:]
	}
	return nil
}

// PageSize is the granularity of Pages and PageData.
const PageSize = pageSize
