package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/isa"
)

// A keyed sort of s32 keys that moves nothing but its positions and the
// key itself (an argsort, once the total-order pass has made a float's
// key an integer) sorts one s64 array: each element's key in the high
// half and its position in the low (n-1 minus it for a descending sort),
// so that the s64 order is the key's with ties broken by position, the
// stable order. A compare-exchange is then a vmin and a vmax of the pair's
// two sides, into a second array (the two alternate step by step), where
// the general network (sortkeyed.go) spent three compares, three logic
// ops, a direction mask and three ops per moved array. The positions and
// the key are the halves of the last array.

// planComposite decides whether the sort runs as one s64 array and where
// its two arrays lie: the vector registers when both fit them, else the
// SRAM after the plan's regions when they fit there (sramBytes).
func (p *keyedSortPlan) planComposite(vregBytes, sramBytes int64) bool {
	p.comp = false
	if p.keyDT != isa.S32 {
		return false
	}
	for i, a := range p.arrays {
		if !a.still && i != p.keyArray && a.operand != -2 {
			return false // a payload the s64 array does not carry
		}
	}
	size := align64(p.rows * p.np * 8)
	switch {
	case 2*size <= vregBytes:
		p.compSpace, p.compAt = "vreg", [2]int64{0, size}
	case p.end+2*size <= sramBytes:
		p.compSpace, p.compAt = "sram", [2]int64{p.end, p.end + size}
	default:
		return false
	}
	p.comp = true
	return true
}

// compositeNetwork builds the s64 array from the key and positions regions
// (filled and padded), runs the network and writes the positions (and the
// key, when it is a result) back to their regions for the stores.
func (c *compiler) compositeNetwork(p *keyedSortPlan, emit func(format string, a ...any)) {
	N := p.rows * p.np
	sp := p.compSpace
	half := func(at int64, hi bool) string {
		if hi {
			at += 4
		}
		return fmt.Sprintf("%s[%d]:s32[%d]{2}", sp, at, N)
	}
	flat := func(at int64) string { return fmt.Sprintf("sram[%d]:s32[%d]", at, N) }
	key, pos := p.arrays[p.keyArray], p.arrays[len(p.arrays)-1]
	x, y := p.compAt[0], p.compAt[1]
	emit("vcopy   %s, %s", half(x, true), flat(key.normal))
	if p.greater {
		// Descending: n-1 minus the position, so that ties still go in
		// position order.
		emit("vfill   %s, %d", half(y, false), p.np-1)
		emit("vsub    %s, %s, %s", half(x, false), half(y, false), flat(pos.normal))
	} else {
		emit("vcopy   %s, %s", half(x, false), flat(pos.normal))
	}
	first, second := "vmin", "vmax" // what the low and high sides get, ascending
	if p.greater {
		first, second = second, first
	}
	rows, np := p.rows, p.np
	for k := int64(2); k <= np; k *= 2 {
		for j := k / 2; j >= 1; j /= 2 {
			// Blocks of k, ascending and (below the last merge)
			// descending in turn; in each, pairs j apart.
			period := 2 * k
			if k == np {
				period = k
			}
			view := func(buf, at int64) string {
				return fmt.Sprintf("%s[%d]:s64[%d,%d,%d]{%d,%d,1}", sp, buf+8*at, rows*np/period, k/(2*j), j, period, 2*j)
			}
			emit("%-7s %s, %s, %s", first, view(y, 0), view(x, 0), view(x, j))
			emit("%-7s %s, %s, %s", second, view(y, j), view(x, 0), view(x, j))
			if k < np {
				emit("%-7s %s, %s, %s", second, view(y, k), view(x, k), view(x, k+j))
				emit("%-7s %s, %s, %s", first, view(y, k+j), view(x, k), view(x, k+j))
			}
			x, y = y, x
		}
	}
	if p.greater {
		emit("vfill   %s, %d", half(y, false), p.np-1)
		emit("vsub    %s, %s, %s", flat(pos.normal), half(y, false), half(x, false))
	} else {
		emit("vcopy   %s, %s", flat(pos.normal), half(x, false))
	}
	if key.operand >= 0 && !key.still {
		emit("vcopy   %s, %s", flat(key.normal), half(x, true))
	}
}
