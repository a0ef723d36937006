package lowering

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
)

// Arrays in VMEM, as XLA's memory-space assignment places them on a TPU.
//
// XLA gives the small arrays that pass between kernels (a loop's carried
// state, the statistics of a norm, a softmax's row maxima) buffers in the
// core's VMEM, the "alternate memory", instead of HBM: the kernel that
// writes one and the kernels that read it then move it on chip, without
// an HBM round trip's latency each time. Without it a kernel of a few
// hundred bytes costs two HBM latencies (about 280 cycles on tpuv4core)
// and a decode loop of 14 such kernels per step runs at 3% of its roof.
//
// Pulse keeps the top of SRAM (vmemArena) for such arrays: the kernels
// plan their tiles in the SRAM below it (the compiler's chip has that
// much), and an array no larger than vmemMaxArray that is not a
// parameter, a constant or one of the program's results goes there while
// the arena has room (best fit, reused once the array dies, as HBM is).
// Its tensor is named v_... rather than t_...: the kernels address
// arrays by tensor name, and the final text addresses a v_ tensor in the
// sram space (placeResident). A while loop's state may be an output of
// the program: it stays in VMEM through the loop, and a last copy kernel
// ("evict") moves it to HBM before the program ends.
//
// Only a single-core chip on one device with at least minVMEMArenaSRAM of
// SRAM has an arena: on several cores or devices the kernels of another
// core or the interconnect would have to reach the array, and a small
// scratchpad (teach16's 256 KiB) has no room to spare beside its tiles.

// minVMEMArenaSRAM is the least SRAM a chip needs for an arena.
const minVMEMArenaSRAM = 8 << 20

// vmemArenaBytes is the arena a chip gets: a quarter of its SRAM (4 MiB of
// tpuv4core's 16 MiB VMEM). A stream kernel's tiles take at most 4 MiB;
// a dot's panels are planned in the rest. Over the JAX corpus on
// tpuv4core an eighth gave 351,663 cycles, a quarter 350,075, a quarter
// with arrays up to half of it the same; GPT-2 (torchxla_gpt2_tp1)
// 435,986 cycles with either.
func vmemArenaBytes(chip *config.Chip, d hlo.Devices) int64 {
	if chip.NumCores() != 1 || d.N() != 1 || chip.Memory.SRAMBytes < minVMEMArenaSRAM {
		return 0
	}
	return chip.Memory.SRAMBytes / 4 / vmemAlign * vmemAlign
}

// vmemMaxArray is the largest array placed in VMEM: a quarter of the
// arena, so that a few such arrays live at once.
func vmemMaxArray(arena int64) int64 { return arena / 4 }

// vmemAlign aligns VMEM arrays to a bank line's multiple.
const vmemAlign = 512

// vmemArena allocates the arena's bytes, [base, limit).
type vmemArena struct {
	base, limit, top int64
	free             []hbmSpan // released spans, sorted by address, coalesced
	spans            map[string]hbmSpan
}

func newVMEMArena(base, size int64) *vmemArena {
	return &vmemArena{base: base, limit: base + size, top: base, spans: map[string]hbmSpan{}}
}

// take finds size bytes for tensor (best fit among the released spans,
// else the top), or reports that the arena has no room.
func (a *vmemArena) take(tensor string, size int64) (int64, bool) {
	size = (size + vmemAlign - 1) / vmemAlign * vmemAlign
	addr, free, ok := bestFit(a.free, size)
	switch {
	case ok:
		a.free = free
	case a.top+size <= a.limit:
		addr = a.top
		a.top += size
	default:
		return 0, false
	}
	a.spans[tensor] = hbmSpan{addr, size}
	return addr, true
}

// release returns tensor's bytes, if it has any here.
func (a *vmemArena) release(tensor string) bool {
	s, ok := a.spans[tensor]
	if !ok {
		return false
	}
	delete(a.spans, tensor)
	a.free = giveBack(a.free, s, &a.top)
	return true
}

func (a *vmemArena) clone() *vmemArena {
	if a == nil {
		return nil
	}
	b := *a
	b.free = slices.Clone(a.free)
	b.spans = maps.Clone(a.spans)
	return &b
}

// residentPrefix starts the name of a tensor in VMEM.
const residentPrefix = "v_"

// isResident reports whether tensor lives in VMEM.
func isResident(tensor string) bool { return strings.HasPrefix(tensor, residentPrefix) }

// placeResident moves the tile operands of VMEM tensors into the sram
// space: the kernel generators write every array operand as hbm[...],
// and only the tensor's name says where the array is. An operand
// "hbm[v_..." or "hbm[rN+v_..." (hbm a word of its own) becomes
// "sram[...". It reads the emitted text in place and builds the result
// once: a generated program's text can be gigabytes, and a regexp
// replacement over a copy of it held the text three times.
func placeResident(src []byte) string {
	const from, to = "hbm[", "sram["
	var b strings.Builder
	b.Grow(len(src) + len(src)/64)
	for {
		i := bytes.Index(src, []byte(from))
		if i < 0 {
			b.Write(src)
			return b.String()
		}
		resident := (i == 0 || !isWordByte(src[i-1])) && residentOperand(src[i+len(from):])
		b.Write(src[:i])
		if resident {
			b.WriteString(to)
		} else {
			b.WriteString(from)
		}
		src = src[i+len(from):]
	}
}

// residentOperand reports whether an address (after "hbm[") starts with a
// VMEM tensor's name, after a base register if any.
func residentOperand(addr []byte) bool {
	if len(addr) > 1 && addr[0] == 'r' && addr[1] >= '0' && addr[1] <= '9' {
		j := 1
		for j < len(addr) && addr[j] >= '0' && addr[j] <= '9' {
			j++
		}
		if j == len(addr) || addr[j] != '+' {
			return false
		}
		addr = addr[j+1:]
	}
	return bytes.HasPrefix(addr, []byte(residentPrefix))
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// vmemCandidate reports whether the array in makes, of size bytes, may
// live in VMEM: the chip has an arena, the array is small, and neither it
// nor the entry instruction being lowered is one of the program's results
// (a while's state excepted, which an evict copy moves out after the
// loop).
func (c *compiler) vmemCandidate(in *hlo.Instruction, size int64) bool {
	if c.heap.vmem == nil || c.forceHBM || size > vmemMaxArray(c.heap.vmem.limit-c.heap.vmem.base) {
		return false
	}
	if in.Opcode == hlo.OpParameter || in.Opcode == hlo.OpConstant {
		return false
	}
	// What a result's kernels allocate may be the result itself: a
	// fusion split into pieces writes it from the piece its root views
	// (a dot under a reshape), which stays in HBM with the root; the
	// other pieces' arrays may go to VMEM. A result that is no fusion
	// keeps all it allocates in HBM. A while is the exception: its state
	// is evicted.
	if e := c.lowering; e != nil && e.Opcode != hlo.OpWhile && c.resultNames[e.Name] {
		// A piece's instruction is named in the fusion's scope
		// (fusion.2/c.dot.4, y/s/e): its own name is the last part.
		own := in.Name[strings.LastIndex(in.Name, "/")+1:]
		if e.Opcode != hlo.OpFusion || in == e || c.fusionResultNames(e)[own] {
			return false
		}
	}
	return in.Opcode == hlo.OpWhile || !c.resultNames[in.Name]
}

// fusionResultNames names the instructions of fusion f's computation
// whose arrays may be its result (resultClosure), found once per fusion.
func (c *compiler) fusionResultNames(f *hlo.Instruction) map[string]bool {
	if names, ok := c.fusionResults[f]; ok {
		return names
	}
	name, _ := f.Attr("calls")
	names := resultClosure(c.m.Computation(strings.TrimPrefix(name, "%")))
	if c.fusionResults == nil {
		c.fusionResults = map[*hlo.Instruction]map[string]bool{}
	}
	c.fusionResults[f] = names
	return names
}

// resultClosure names the entry instructions whose buffers may be the
// program's results: the root and what it passes through as it is.
func resultClosure(e *hlo.Computation) map[string]bool {
	out := map[string]bool{}
	if e == nil {
		return out
	}
	byName := map[string]*hlo.Instruction{}
	for _, in := range e.Instructions {
		byName[in.Name] = in
	}
	var walk func(in *hlo.Instruction)
	walk = func(in *hlo.Instruction) {
		if in == nil || out[in.Name] {
			return
		}
		out[in.Name] = true
		switch in.Opcode {
		case hlo.OpTuple, hlo.OpGetTupleElement, hlo.OpBitcast, hlo.OpReshape, hlo.OpCopy, hlo.OpOptBarrier,
			hlo.OpAddDependency, hlo.OpCopyStart, hlo.OpCopyDone:
			for _, o := range in.Operands {
				walk(byName[o.Name])
			}
		}
	}
	walk(e.Root)
	return out
}

// evictResults copies the program's results that are in VMEM to HBM
// arrays of their own (one DMA kernel), the results the host reads.
func (c *compiler) evictResults(root *hlo.Instruction, v *value) (*value, error) {
	if v == nil {
		return nil, nil // no value: the caller says so
	}
	ls := leaves(v)
	if !slices.ContainsFunc(ls, func(l *value) bool { return isResident(l.tensor) }) {
		return v, nil
	}
	c.forceHBM = true
	defer func() { c.forceHBM = false }()
	var evict func(v *value) (*value, error)
	evict = func(v *value) (*value, error) {
		if v.tuple != nil {
			out := &value{shape: v.shape}
			for _, e := range v.tuple {
				w, err := evict(e)
				if err != nil {
					return nil, err
				}
				out.tuple = append(out.tuple, w)
			}
			return out, nil
		}
		if !isResident(v.tensor) {
			return v, nil
		}
		return c.alloc(root, v.shape, "")
	}
	dst, err := evict(v)
	if err != nil {
		return nil, err
	}
	return dst, c.copyInto(root, dst, v, "evict")
}

// hoistsToVMEM reports whether a loop's read-only array v, in HBM, gets a
// VMEM copy for the loop's iterations to read: it is small and the arena
// has room for it now.
func (c *compiler) hoistsToVMEM(v *value) bool {
	a := c.heap.vmem
	if a == nil || c.forceHBM || v == nil || v.tensor == "" || isResident(v.tensor) {
		return false
	}
	size := v.shape.Elems() * int64(v.dt.Size())
	return size <= vmemMaxArray(a.limit-a.base) && a.fits(size)
}

// fits reports whether the arena has size bytes free in one span.
func (a *vmemArena) fits(size int64) bool {
	size = (size + vmemAlign - 1) / vmemAlign * vmemAlign
	if a.top+size <= a.limit {
		return true
	}
	for _, s := range a.free {
		if s.size >= size {
			return true
		}
	}
	return false
}
