package ref

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The word-wise bit helpers agree with a bit-by-bit model on random ranges.
func TestBitRanges(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	w := make([]uint64, 8)
	model := make([]bool, 8*64)
	for i := 0; i < 5000; i++ {
		lo := r.Int64N(512)
		hi := lo + r.Int64N(512-lo+1)
		switch r.IntN(3) {
		case 0:
			want := 0
			for b := lo; b < hi; b++ {
				if !model[b] {
					want++
				}
				model[b] = true
			}
			require.Equal(t, want, setBitsCount(w, lo, hi))
		case 1:
			setBits(w, lo, hi)
			for b := lo; b < hi; b++ {
				model[b] = true
			}
		case 2:
			clearBits(w, lo, hi)
			for b := lo; b < hi; b++ {
				model[b] = false
			}
		}
		lo = r.Int64N(512)
		hi = lo + r.Int64N(512-lo+1)
		first, firstClear := int64(-1), int64(-1)
		for b := lo; b < hi; b++ {
			if model[b] && first < 0 {
				first = b
			}
			if !model[b] && firstClear < 0 {
				firstClear = b
			}
		}
		require.Equal(t, first, firstBit(w, lo, hi), "firstBit [%d,%d)", lo, hi)
		require.Equal(t, firstClear, firstZero(w, lo, hi), "firstZero [%d,%d)", lo, hi)
	}
}

func TestShadow(t *testing.T) {
	cases := []struct {
		name       string
		do         func(s *shadow)
		addr, n    int64
		wantNeed   []int
		wantUnknow int64
	}{
		{"nothing written", func(s *shadow) {}, 0, 100, nil, -1},
		{"read what a skipped instruction wrote", func(s *shadow) { s.skipped(100, 8, 7) }, 96, 8, []int{7}, -1},
		{"read beside it", func(s *shadow) { s.skipped(100, 8, 7) }, 108, 8, nil, -1},
		{"overwritten with values", func(s *shadow) { s.skipped(100, 8, 7); s.computed(96, 16) }, 96, 16, nil, -1},
		{"partly overwritten", func(s *shadow) { s.skipped(100, 8, 7); s.computed(100, 4) }, 96, 16, []int{7}, -1},
		{"two granules, two writers", func(s *shadow) { s.skipped(0, granule, 1); s.skipped(granule, granule, 2) }, granule - 4, 8, []int{1, 2}, -1},
		// Two writers of one granule: the last is named (the next run,
		// with it computed, names the other).
		{"one granule, two writers", func(s *shadow) { s.skipped(0, 64, 1); s.skipped(64, 64, 2) }, 60, 8, []int{2}, -1},
		{"across a page", func(s *shadow) { s.skipped(pageSize-4, 8, 3) }, pageSize, 1, []int{3}, -1},
		{"an input never given", func(s *shadow) { s.unknownInput(200, 16) }, 190, 20, nil, 200},
		{"an input a skipped instruction overwrote", func(s *shadow) { s.unknownInput(200, 16); s.skipped(200, 16, 9) }, 200, 16, []int{9}, -1},
		{"an input overwritten with values", func(s *shadow) { s.unknownInput(200, 16); s.computed(200, 16) }, 200, 16, nil, -1},
		// Whole pages are kept without bitmaps until part of one differs.
		{"a whole page skipped", func(s *shadow) { s.skipped(0, pageSize, 5) }, 100, 8, []int{5}, -1},
		{"a whole page, one granule rewritten", func(s *shadow) { s.skipped(0, pageSize, 5); s.skipped(granule, 8, 6) }, granule - 8, 24, []int{5, 6}, -1},
		{"a whole page, part computed", func(s *shadow) { s.skipped(0, pageSize, 5); s.computed(0, 64) }, 0, 64, nil, -1},
		{"a whole page, beside the part computed", func(s *shadow) { s.skipped(0, pageSize, 5); s.computed(0, 64) }, 60, 8, []int{5}, -1},
		{"a whole page computed", func(s *shadow) { s.skipped(0, 2*pageSize, 5); s.computed(0, pageSize) }, 0, pageSize + 1, []int{5}, -1},
		{"whole input pages, part skipped", func(s *shadow) { s.unknownInput(0, 2*pageSize); s.skipped(pageSize, 16, 4) }, pageSize + 8, 16, []int{4}, pageSize + 16},
		{"whole input pages, one computed", func(s *shadow) { s.unknownInput(0, 2*pageSize); s.computed(0, pageSize) }, 0, pageSize + 4, nil, pageSize},
		{"an input page skipped whole", func(s *shadow) { s.unknownInput(0, pageSize); s.skipped(0, pageSize, 3) }, 0, pageSize, []int{3}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newShadow()
			c.do(s)
			need := map[int]bool{}
			require.Equal(t, c.wantUnknow, s.check(c.addr, c.n, need, &writerCache{}))
			var got []int
			for pc := 0; pc < 16; pc++ {
				if need[pc] {
					got = append(got, pc)
				}
			}
			require.Equal(t, c.wantNeed, got)
		})
	}
}

// TestShadowDirty: what an eager instruction's probe asks of a shadow.
func TestShadowDirty(t *testing.T) {
	cases := []struct {
		name    string
		do      func(s *shadow)
		addr, n int64
		want    bool
	}{
		{"nothing written", func(s *shadow) {}, 0, 8, false},
		{"skipped", func(s *shadow) { s.skipped(0, 8, 1) }, 4, 8, true},
		{"a whole page skipped, part computed", func(s *shadow) { s.skipped(0, pageSize, 1); s.computed(0, 4) }, 0, 4, false},
		{"beside the part computed", func(s *shadow) { s.skipped(0, pageSize, 1); s.computed(0, 4) }, 0, 5, true},
		{"a whole input page, part computed", func(s *shadow) { s.unknownInput(0, pageSize); s.computed(64, 4) }, 64, 4, false},
		{"a whole input page", func(s *shadow) { s.unknownInput(0, pageSize) }, 64, 4, true},
		{"computed whole", func(s *shadow) { s.skipped(0, pageSize, 1); s.computed(0, pageSize) }, 64, 4, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newShadow()
			c.do(s)
			require.Equal(t, c.want, s.dirty(c.addr, c.n))
		})
	}
}
