package memory

import "github.com/pulse-sim/pulse/sim"

// Banks is an on-chip memory (SRAM, accumulator memory) split into
// single-ported banks, interleaved by address: line addr / Width lives in
// bank line % N. A bank serves one line per cycle; requesters reserve bank
// time first come first served, so two units touching the same banks at once
// slow each other down, and so does a strided tile whose lines fall in few
// banks. The time beyond what a perfect spread over all banks would take is
// counted as bank-conflict stall.
type Banks struct {
	n      int
	width  int64
	period sim.Time
	free   []sim.Time
	count  []int64

	// Lines served, and ConflictCycles: cycles lost to conflicts.
	Lines          int64
	ConflictCycles int64
}

// NewBanks makes n banks of width bytes, one line per cycle of period.
func NewBanks(n, width int, period sim.Time) *Banks {
	return &Banks{n: n, width: int64(width), period: period, free: make([]sim.Time, n), count: make([]int64, n)}
}

// add counts the lines of [addr, addr+n) per bank.
func (b *Banks) add(addr, n int64) int64 {
	first, last := addr/b.width, (addr+n-1)/b.width
	lines := last - first + 1
	nb := int64(b.n)
	full, rem := lines/nb, lines%nb
	if full > 0 {
		for i := range b.count {
			b.count[i] += full
		}
	}
	start := first % nb
	for i := int64(0); i < rem; i++ {
		b.count[(start+i)%nb]++
	}
	return lines
}

// ReserveRange reserves the lines of one contiguous range at t and returns
// when the last of them has been served.
func (b *Banks) ReserveRange(t sim.Time, addr, n int64) sim.Time {
	return b.reserve(t, b.add(addr, n))
}

// ReserveTile reserves every line a tile touches at t.
func (b *Banks) ReserveTile(t sim.Time, tile Tile) sim.Time {
	r := NewRuns(tile)
	var lines int64
	for {
		a, n, ok := r.Next()
		if !ok {
			break
		}
		lines += b.add(a, n)
	}
	return b.reserve(t, lines)
}

func (b *Banks) reserve(t sim.Time, lines int64) sim.Time {
	end := t
	for i, c := range b.count {
		if c == 0 {
			continue
		}
		s := max(t, b.free[i])
		b.free[i] = s + sim.Time(c)*b.period
		end = max(end, b.free[i])
		b.count[i] = 0
	}
	ideal := t + sim.Time((lines+int64(b.n)-1)/int64(b.n))*b.period
	if end > ideal {
		b.ConflictCycles += int64((end - ideal) / b.period)
	}
	b.Lines += lines
	return end
}
