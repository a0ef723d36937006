package ref

// A shadow records, for one memory space of a partial (timing-only) run,
// which bytes hold values that were never computed: bytes a skipped
// instruction wrote ("stale") and bytes of inputs that were never given
// ("unknown"). An instruction whose values are computed must not read
// either; when it would, the run stops and says which skipped instructions
// it needs (docs/observability.md, "Exact --timing-only").
//
// Bits are per byte, so the answer is exact; the writer is kept per
// 512-byte granule, the last skipped instruction that wrote into it. When
// two skipped writers share a granule only the last is named; the next
// run, with it computed, names the other. Every such step adds an
// instruction to the computed set, so the search ends. (A writer per
// 64-byte bitmap word took 4 KiB of every 64 KiB page: 6 of the 13 GB a
// timing-only GPT-3 layer on 8 devices held.)

import "math/bits"

const (
	chunk   = 64  // bytes per bitmap word
	granule = 512 // bytes per writer slot
	words   = pageSize / chunk
)

// A shadowPage is one page's record. A page written or given whole,
// which is most of a large program's HBM, is kept as a few words: its
// bitmaps and writer table are made only when part of it differs from
// the rest. (Bitmaps for every page took 1/7 of the simulated bytes:
// 12 GB of host memory for XLA's GPT-3 layer on 8 devices.)
type shadowPage struct {
	stale    *[words]uint64 // nil: every byte is stale when allStale, none otherwise
	allStale bool
	unknown  *[words]uint64 // the same for bytes of inputs never given
	allUnk   bool
	writers  *[pageSize / granule]int32 // nil: writer wrote every granule
	writer   int32
}

// bitmap returns *b, made if it is nil: every bit set when *all, which
// then no longer counts (the flags mean something only while their
// bitmap is nil).
func bitmap(b **[words]uint64, all *bool) *[words]uint64 {
	if *b == nil {
		*b = new([words]uint64)
		if *all {
			for i := range *b {
				(*b)[i] = ^uint64(0)
			}
		}
		*all = false
	}
	return *b
}

// setWriter records pc as the writer of granules [lo, hi) of the page.
func (p *shadowPage) setWriter(lo, hi int64, pc int32) {
	if p.writers == nil {
		if p.writer == pc {
			return
		}
		p.writers = new([pageSize / granule]int32)
		for i := range p.writers {
			p.writers[i] = p.writer
		}
	}
	for g := lo; g < hi; g++ {
		p.writers[g] = pc
	}
}

// writerOf is the last skipped writer of granule g.
func (p *shadowPage) writerOf(g int64) int32 {
	if p.writers == nil {
		return p.writer
	}
	return p.writers[g]
}

type shadow struct {
	pages map[int64]*shadowPage
	last  *shadowPage
	lastN int64
}

func newShadow() *shadow { return &shadow{pages: map[int64]*shadowPage{}, lastN: -1} }

func (s *shadow) page(n int64, alloc bool) *shadowPage {
	if n == s.lastN {
		return s.last
	}
	p := s.pages[n]
	if p == nil {
		if !alloc {
			return nil
		}
		p = &shadowPage{writer: -1}
		s.pages[n] = p
	}
	s.last, s.lastN = p, n
	return p
}

// each calls fn for every page-sized piece of [addr, addr+n).
func each(addr, n int64, fn func(pn, lo, hi int64)) {
	for end := addr + n; addr < end; {
		pn, off := addr/pageSize, addr%pageSize
		c := min(end-addr, pageSize-off)
		fn(pn, off, off+c)
		addr += c
	}
}

// setBits sets bits [lo, hi) of w; clearBits clears them.
func setBits(w []uint64, lo, hi int64) {
	if lo >= hi {
		return
	}
	if b := lo % 64; b != 0 { // the head, inside one word
		n := min(hi-lo, 64-b)
		w[lo/64] |= mask(b, n)
		lo += n
	}
	for ; lo+64 <= hi; lo += 64 { // whole words, the bulk of a large write
		w[lo/64] = ^uint64(0)
	}
	if lo < hi {
		w[lo/64] |= mask(0, hi-lo)
	}
}

// setBitsCount sets bits [lo, hi) of w and returns how many were clear.
func setBitsCount(w []uint64, lo, hi int64) int {
	n := 0
	for lo < hi {
		i, b := lo/64, lo%64
		k := min(hi-lo, 64-b)
		m := mask(b, k)
		n += bits.OnesCount64(m &^ w[i])
		w[i] |= m
		lo += k
	}
	return n
}

func clearBits(w []uint64, lo, hi int64) {
	for lo < hi {
		i, b := lo/64, lo%64
		n := min(hi-lo, 64-b)
		w[i] &^= mask(b, n)
		lo += n
	}
}

// mask has n bits set from bit b.
func mask(b, n int64) uint64 {
	if n == 64 {
		return ^uint64(0)
	}
	return ((1 << uint(n)) - 1) << uint(b)
}

// firstBit returns the first set bit of w in [lo, hi), or -1.
func firstBit(w []uint64, lo, hi int64) int64 {
	for lo < hi {
		i, b := lo/64, lo%64
		n := min(hi-lo, 64-b)
		if x := w[i] & mask(b, n); x != 0 {
			for k := b; ; k++ {
				if x&(1<<uint(k)) != 0 {
					return i*64 + k
				}
			}
		}
		lo += n
	}
	return -1
}

// firstZero returns the first clear bit of w in [lo, hi), or -1.
func firstZero(w []uint64, lo, hi int64) int64 {
	for lo < hi {
		i, b := lo/64, lo%64
		n := min(hi-lo, 64-b)
		if x := ^w[i] & mask(b, n); x != 0 {
			for k := b; ; k++ {
				if x&(1<<uint(k)) != 0 {
					return i*64 + k
				}
			}
		}
		lo += n
	}
	return -1
}

// skipped marks bytes written by the skipped instruction at pc.
func (s *shadow) skipped(addr, n int64, pc int) {
	each(addr, n, func(pn, lo, hi int64) {
		p := s.page(pn, true)
		if lo == 0 && hi == pageSize {
			*p = shadowPage{allStale: true, writer: int32(pc)}
			return
		}
		if p.stale != nil || !p.allStale {
			setBits(bitmap(&p.stale, &p.allStale)[:], lo, hi)
		}
		if p.unknown != nil || p.allUnk {
			clearBits(bitmap(&p.unknown, &p.allUnk)[:], lo, hi)
		}
		p.setWriter(lo/granule, (hi-1)/granule+1, int32(pc))
	})
}

// computed marks bytes written with their real values.
func (s *shadow) computed(addr, n int64) {
	each(addr, n, func(pn, lo, hi int64) {
		p := s.page(pn, false)
		if p == nil {
			return
		}
		if lo == 0 && hi == pageSize {
			*p = shadowPage{writer: -1}
			return
		}
		if p.stale != nil || p.allStale {
			clearBits(bitmap(&p.stale, &p.allStale)[:], lo, hi)
		}
		if p.unknown != nil || p.allUnk {
			clearBits(bitmap(&p.unknown, &p.allUnk)[:], lo, hi)
		}
	})
}

// unknownInput marks bytes whose values were not given.
func (s *shadow) unknownInput(addr, n int64) {
	each(addr, n, func(pn, lo, hi int64) {
		p := s.page(pn, true)
		if lo == 0 && hi == pageSize {
			*p = shadowPage{allUnk: true, writer: -1}
			return
		}
		if p.stale != nil || p.allStale {
			clearBits(bitmap(&p.stale, &p.allStale)[:], lo, hi)
		}
		if p.unknown != nil || !p.allUnk {
			setBits(bitmap(&p.unknown, &p.allUnk)[:], lo, hi)
		}
	})
}

// dirty reports whether any byte of [addr, addr+n) is stale or unknown.
func (s *shadow) dirty(addr, n int64) bool {
	found := false
	each(addr, n, func(pn, lo, hi int64) {
		p := s.page(pn, false)
		if found || p == nil {
			return
		}
		found = p.allStale || p.allUnk ||
			(p.stale != nil && firstBit(p.stale[:], lo, hi) >= 0) ||
			(p.unknown != nil && firstBit(p.unknown[:], lo, hi) >= 0)
		// (allStale and allUnk are false while their bitmaps exist.)
	})
	return found
}

// writerCache remembers the last writers one instruction's reads added
// to need: a large read meets the same few writers chunk after chunk, and
// a map assignment per 64-byte chunk was 80% of a timing-only GPT-3
// layer's host time.
type writerCache struct {
	w    [8]int32
	n    int
	next int
}

// has reports whether w was added, remembering it if not.
func (c *writerCache) has(w int32) bool {
	for i := 0; i < c.n; i++ {
		if c.w[i] == w {
			return true
		}
	}
	c.w[c.next] = w
	c.next = (c.next + 1) % len(c.w)
	c.n = min(c.n+1, len(c.w))
	return false
}

// check looks at bytes about to be read by an instruction whose values are
// computed. It adds to need the skipped writers of any stale bytes, and
// returns the address of the first unknown byte (or -1).
func (s *shadow) check(addr, n int64, need map[int]bool, seen *writerCache) (unknownAt int64) {
	unknownAt = -1
	each(addr, n, func(pn, lo, hi int64) {
		p := s.page(pn, false)
		if p == nil {
			return
		}
		if unknownAt < 0 {
			switch {
			case p.unknown != nil:
				if b := firstBit(p.unknown[:], lo, hi); b >= 0 {
					unknownAt = pn*pageSize + b
				}
			case p.allUnk:
				unknownAt = pn*pageSize + lo
			}
		}
		add := func(w int32) {
			if !seen.has(w) {
				need[int(w)] = true
			}
		}
		if p.stale == nil {
			if !p.allStale {
				return
			}
			// Every byte read is stale: the writers of its granules.
			prev := int32(-1)
			for g := lo / granule; g <= (hi-1)/granule; g++ {
				if w := p.writerOf(g); w != prev {
					prev = w
					add(w)
				}
			}
			return
		}
		first, last := lo/chunk, (hi-1)/chunk
		prev := int32(-1)
		for c := first; c <= last; c++ {
			st := p.stale[c]
			if st == 0 {
				continue
			}
			if c == first || c == last { // a chunk the read covers in part
				clo, chi := max(lo, c*chunk), min(hi, (c+1)*chunk)
				if st&mask(clo%64, chi-clo) == 0 {
					continue
				}
			}
			if w := p.writerOf(c * chunk / granule); w != prev {
				prev = w
				add(w)
			}
		}
	})
	return unknownAt
}
