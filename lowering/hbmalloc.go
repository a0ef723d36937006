package lowering

import (
	"maps"
	"slices"
	"sort"

	"github.com/pulse-sim/pulse/hlo"
)

// HBM allocation, as XLA's buffer assignment does it. Every array value
// gets an HBM tensor; a tensor whose values are all dead (past the last
// instruction that reads them, in the entry computation or in a loop body
// or branch) is released and its bytes reused, so a training step whose
// activations would not all fit at once still fits. A called
// computation's result is released once it has been copied out (a loop's
// carry, a branch's result). Parameters (unless donated), constants
// (their bytes are loaded with the program) and results are never
// released. Arrays are shared rather than copied where XLA shares them:
// a dynamic-update-slice whose operand dies at it updates that buffer in
// place, a loop's state takes over an initial array that dies at the loop,
// and an array the body passes through unchanged is read where it is
// (loopstate.go). hbmpeak.go reports what is live at the peak.

const hbmAlign = 4096

type hbmSpan struct{ addr, size int64 }

type hbmAllocator struct {
	top int64 // first byte never allocated
	// Bytes loaded with the program sit in their own region at the top
	// of HBM, from low up to limit, growing down.
	low, limit int64
	free       []hbmSpan // released spans, sorted by address, coalesced
	// refs counts the live entry values that hold each tensor; pinned
	// tensors are never released.
	refs   map[string]int
	pinned map[string]bool
	spans  map[string]hbmSpan
	peak   int64
	// For the peak report (hbmpeak.go): where each tensor came from,
	// and the tensors live when the HBM needed last grew.
	origin    map[string]tensorOrigin
	peakNoted int64
	peakAt    *hlo.Instruction
	peakLive  []string
	// vmem holds the arrays placed in VMEM instead (vmem.go; nil: the
	// chip has no arena).
	vmem *vmemArena
}

func (a *hbmAllocator) init(hbmBytes int64) {
	a.refs, a.pinned, a.spans = map[string]int{}, map[string]bool{}, map[string]hbmSpan{}
	a.origin = map[string]tensorOrigin{}
	a.limit = hbmBytes / hbmAlign * hbmAlign
	a.low = a.limit
}

// take finds size bytes: the released span that fits best (the smallest;
// the lowest of equals), else the top. Bytes loaded with the program
// (fresh) must not reuse a span — its earlier owner would overwrite them
// before they are read — so they come from the region at the top of HBM,
// where they cannot fence the reusable bytes below into fragments.
func (a *hbmAllocator) take(size int64, fresh bool) int64 {
	size = (size + hbmAlign - 1) / hbmAlign * hbmAlign
	if fresh {
		a.low -= size
		return a.low
	}
	if addr, free, ok := bestFit(a.free, size); ok {
		a.free = free
		return addr
	}
	addr := a.top
	a.top += size
	a.peak = max(a.peak, a.top)
	return addr
}

// needed is the HBM the program needs so far: the allocations' high-water
// mark and the program-loaded region.
func (a *hbmAllocator) needed() int64 { return a.peak + a.limit - a.low }

func (a *hbmAllocator) release(tensor string) {
	if a.vmem != nil && a.vmem.release(tensor) {
		return
	}
	s, ok := a.spans[tensor]
	if !ok || a.pinned[tensor] {
		return
	}
	delete(a.spans, tensor)
	s.size = (s.size + hbmAlign - 1) / hbmAlign * hbmAlign
	a.free = giveBack(a.free, s, &a.top)
}

// bestFit takes size bytes from the free span that fits best (the
// smallest; the lowest of equals): their address and the free list left,
// or ok false when none is large enough.
func bestFit(free []hbmSpan, size int64) (addr int64, left []hbmSpan, ok bool) {
	best := -1
	for i, s := range free {
		if s.size >= size && (best < 0 || s.size < free[best].size) {
			best = i
		}
	}
	if best < 0 {
		return 0, free, false
	}
	s := free[best]
	if s.size == size {
		free = append(free[:best], free[best+1:]...)
	} else {
		free[best] = hbmSpan{s.addr + size, s.size - size}
	}
	return s.addr, free, true
}

// giveBack returns span s to the free list (sorted by address,
// coalesced); a free span ending at *top returns to the top.
func giveBack(free []hbmSpan, s hbmSpan, top *int64) []hbmSpan {
	free = append(free, s)
	sort.Slice(free, func(i, j int) bool { return free[i].addr < free[j].addr })
	out := free[:1]
	for _, f := range free[1:] {
		last := &out[len(out)-1]
		if last.addr+last.size == f.addr {
			last.size += f.size
		} else {
			out = append(out, f)
		}
	}
	if l := out[len(out)-1]; l.addr+l.size == *top {
		*top = l.addr
		out = out[:len(out)-1]
	}
	return out
}

// snapshot copies the allocator's state, for a lowering attempt that may
// be abandoned (a fusion that falls back to smaller kernels): what the
// attempt allocated must not stay taken.
func (a *hbmAllocator) snapshot() hbmAllocator {
	b := *a
	b.free = slices.Clone(a.free)
	// origin only grows, and a name is not reused: it is shared.
	b.refs, b.pinned, b.spans = maps.Clone(a.refs), maps.Clone(a.pinned), maps.Clone(a.spans)
	b.vmem = a.vmem.clone()
	return b
}

// hold and drop count an entry value's references to its tensors.
func (a *hbmAllocator) hold(v *value) {
	for _, t := range distinctTensors(v) {
		a.refs[t]++
	}
}

func (a *hbmAllocator) drop(v *value) {
	for _, t := range distinctTensors(v) {
		if a.refs[t]--; a.refs[t] <= 0 {
			delete(a.refs, t)
			a.release(t)
		}
	}
}

// handOver gives up a computation's hold on its result without releasing
// it: the caller holds it next.
func (a *hbmAllocator) handOver(v *value) {
	for _, t := range distinctTensors(v) {
		if a.refs[t]--; a.refs[t] <= 0 {
			delete(a.refs, t)
		}
	}
}

// deathRow lists, after each instruction of a computation, the values
// whose last reader it was (sorted, so that reuse is deterministic); a
// value nobody reads dies where it is made. The root never dies here.
func deathRow(instrs []*hlo.Instruction, root *hlo.Instruction) map[int][]string {
	last := map[string]int{}
	for i, in := range instrs {
		if in.Opcode != hlo.OpParameter { // parameters belong to the caller
			last[in.Name] = i
		}
		for _, o := range in.Operands {
			last[o.Name] = i
		}
	}
	delete(last, root.Name)
	for _, in := range instrs {
		if in.Opcode == hlo.OpParameter {
			delete(last, in.Name)
		}
	}
	dying := map[int][]string{}
	for name, i := range last {
		dying[i] = append(dying[i], name)
	}
	for _, d := range dying {
		sort.Strings(d)
	}
	return dying
}

func distinctTensors(v *value) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range leaves(v) {
		if l.tensor != "" && !seen[l.tensor] {
			seen[l.tensor] = true
			out = append(out, l.tensor)
		}
	}
	return out
}
