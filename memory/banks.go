package memory

import (
	"cmp"
	"slices"

	"github.com/pulse-sim/pulse/sim"
)

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

	// Lines served, and ConflictCycles: the cycles during which at least
	// one request was waiting on a conflict (the union over requests of
	// the time each took beyond a perfect spread, so never more than the
	// run's cycles).
	Lines          int64
	ConflictCycles int64

	// Now, when set, gives the simulation's current time: no request is
	// reserved before it, so conflict intervals ending by then are final.
	Now func() sim.Time

	conflictTime sim.Time
	open         []span // conflict intervals that a later request may still overlap: disjoint, sorted
	spare        []span
}

type span struct{ from, until sim.Time }

// NewBanks makes n banks of width bytes, one line per cycle of period.
func NewBanks(n, width int, period sim.Time) *Banks {
	return &Banks{n: n, width: int64(width), period: period, free: make([]sim.Time, n), count: make([]int64, n)}
}

// add counts the lines of [addr, addr+n) per bank. It is the bank model's
// innermost loop (a tile's rows, one call each): no division per line.
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
	k := first % nb
	for range rem {
		b.count[k]++
		if k++; k == nb {
			k = 0
		}
	}
	return lines
}

// ReserveRange reserves the lines of one contiguous range at t and returns
// when the last of them has been served.
func (b *Banks) ReserveRange(t sim.Time, addr, n int64) sim.Time {
	first, last := addr/b.width, (addr+n-1)/b.width
	lines, nb := last-first+1, int64(b.n)
	if lines >= nb {
		end, _ := b.reserve(t, b.add(addr, n))
		return end
	}
	// Fewer lines than banks (a DMA burst, the common case): each touches
	// one bank once, so only those banks are visited; the same times as
	// add and reserve give.
	end, k := t, first%nb
	for range lines {
		s := max(t, b.free[k]) + b.period
		b.free[k] = s
		end = max(end, s)
		if k++; k == nb {
			k = 0
		}
	}
	if ideal := t + b.period; end > ideal {
		b.conflict(ideal, end)
	}
	b.Lines += lines
	return end
}

// LineBytes is the width of a bank's line.
func (b *Banks) LineBytes() int64 { return b.width }

// ReserveTile reserves every line a tile touches at t. It returns when the
// last line has been served, and when it would have been with the lines
// spread perfectly over the banks (the difference is the conflict stall).
func (b *Banks) ReserveTile(t sim.Time, tile Tile) (end, ideal sim.Time) {
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

func (b *Banks) reserve(t sim.Time, lines int64) (sim.Time, sim.Time) {
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
		b.conflict(ideal, end)
	}
	b.Lines += lines
	return end, ideal
}

// conflict adds [from, until) to the union of conflict time.
func (b *Banks) conflict(from, until sim.Time) {
	if b.Now != nil { // what ends by now cannot meet a later request
		now, k := b.Now(), 0
		for k < len(b.open) && b.open[k].until <= now {
			k++
		}
		b.open = b.open[k:]
	}
	// Count the part of [from, until) no open interval covers, then merge.
	added := until - from
	merged := b.spare[:0]
	for _, o := range b.open {
		if o.until < from || o.from > until {
			merged = append(merged, o)
			continue
		}
		added -= min(o.until, until) - max(o.from, from)
		from, until = min(from, o.from), max(until, o.until)
	}
	merged = append(merged, span{from, until})
	slices.SortFunc(merged, func(x, y span) int { return cmp.Compare(x.from, y.from) })
	b.open, b.spare = merged, b.open[:0]
	b.conflictTime += added
	b.ConflictCycles = int64(b.conflictTime / b.period)
}
