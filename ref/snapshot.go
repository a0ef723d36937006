package ref

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/pulse-sim/pulse/isa"
)

// Snapshot serializes the architectural state (registers, semaphores, every
// page of every memory that holds data) canonically: two machines are in the
// same state exactly when their snapshots are equal. The differential tests
// between the functional and timing models compare these.
func (m *Machine) Snapshot() []byte {
	var b []byte
	for _, r := range m.Regs {
		b = binary.LittleEndian.AppendUint32(b, r)
	}
	for _, s := range m.Sems {
		b = binary.LittleEndian.AppendUint32(b, s)
	}
	for _, sp := range isa.Spaces() {
		mem := m.Mem[sp]
		for _, n := range mem.Pages() {
			data := mem.PageData(n)
			if allZero(data) {
				continue // a written page of zeros equals an untouched one
			}
			b = append(b, byte(sp))
			b = binary.LittleEndian.AppendUint64(b, uint64(n))
			b = append(b, data...)
		}
	}
	return b
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Diff describes the first difference between two machines' states, or "".
func Diff(a, b *Machine) string {
	for i := range a.Regs {
		if a.Regs[i] != b.Regs[i] {
			return fmt.Sprintf("r%d: %d vs %d", i, int32(a.Regs[i]), int32(b.Regs[i]))
		}
	}
	for i := range a.Sems {
		if a.Sems[i] != b.Sems[i] {
			return fmt.Sprintf("s%d: %d vs %d", i, a.Sems[i], b.Sems[i])
		}
	}
	for _, sp := range isa.Spaces() {
		pages := map[int64]bool{}
		for _, n := range a.Mem[sp].Pages() {
			pages[n] = true
		}
		for _, n := range b.Mem[sp].Pages() {
			pages[n] = true
		}
		order := make([]int64, 0, len(pages))
		for n := range pages {
			order = append(order, n)
		}
		sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
		for _, n := range order {
			pa, pb := a.Mem[sp].PageData(n), b.Mem[sp].PageData(n)
			for i := 0; i < PageSize; i++ {
				var x, y byte
				if pa != nil {
					x = pa[i]
				}
				if pb != nil {
					y = pb[i]
				}
				if x != y {
					return fmt.Sprintf("%s byte 0x%x: %#02x vs %#02x", sp, n*PageSize+int64(i), x, y)
				}
			}
		}
	}
	return ""
}
