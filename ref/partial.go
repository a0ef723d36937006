package ref

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
)

// Partial execution is what an exact timing-only run needs of the
// architecture. Every unit instruction still executes, with all its checks
// (tile bounds, shapes, dtypes, MXU limits, accumulator rows never written),
// but only the instructions of a chosen set compute values: the rest are
// "skipped" and only record what they wrote. The set is the dependence slice
// of the program's control flow: the instructions whose results reach
// scalar memory, where the sequencer reads them to branch, to count a loop
// or to offset a dynamic slice. The timing model finds it by running: a
// computed instruction that reads bytes a skipped one wrote stops the run
// with a *NeedValues naming the writers, and the next run computes them too.

// NeedValues stops a partial run: an instruction whose values are computed
// read values that skipped instructions (PCs) should have produced.
type NeedValues struct {
	PC  int   // the instruction that read them
	PCs []int // the skipped writers, sorted
}

func (e *NeedValues) Error() string {
	return fmt.Sprintf("pc %d reads values of %d skipped instructions (pc %v)", e.PC, len(e.PCs), e.PCs)
}

// UnknownInput stops a partial run: an instruction whose values steer
// control flow read an input tensor whose values were not given.
type UnknownInput struct {
	Tensor string
	PC     int
	Pos    string
}

func (e *UnknownInput) Error() string {
	return fmt.Sprintf("%s: control flow depends on the values of input %s, which were not given", e.Pos, e.Tensor)
}

type partial struct {
	compute []bool                 // by pc: the instruction computes values
	eager   []bool                 // by pc: the instruction computes values when all it reads was computed
	eagerOK []bool                 // by pc: an eager instruction computed at least once
	shadows [isa.NumSpaces]*shadow // by space; nil when stale bytes are not tracked
	need    map[int]bool           // skipped writers read by the current instruction
	// deps records, for each skipped instruction, the skipped writers of
	// what it read: when it joins the slice they must too, so a stop asks
	// for the whole chain at once instead of one link per run. Nil when
	// not kept (TrackStale).
	deps map[int]map[int]bool
	// execs counts the unit instructions executed; dependences are kept
	// for the first depsUntil of them (all when negative).
	execs, depsUntil int64
}

// Tracking is how much a partial run records of what skipped instructions
// did.
type Tracking int

const (
	// TrackNone records nothing: the caller vouches that no computed
	// instruction reads what a skipped one wrote.
	TrackNone Tracking = iota
	// TrackStale records which bytes skipped instructions wrote, so that a
	// computed instruction reading them stops the run with a *NeedValues
	// naming their writers.
	TrackStale
	// TrackDeps also records, for every skipped instruction, the skipped
	// writers of what it read, so that a stop names the whole chain of
	// writers behind the values at once. Every vector instruction's reads
	// are walked byte by byte for it: about half the host time of a run
	// whose slice needs nothing more, which is why a search starts with
	// TrackStale and keeps dependences only once a run has stopped, and
	// only up to where it stopped (KeepDepsFor).
	TrackDeps
)

// KeepDepsFor limits a TrackDeps run's dependences to the first n unit
// instructions the machine executes. The writers behind a value read at
// the n-th all executed before it, so a run that stopped there finds
// their whole chain when run again with n; what executes later is
// tracked as TrackStale.
func (m *Machine) KeepDepsFor(n int64) {
	if m.part != nil {
		m.part.depsUntil = n
	}
}

// UnitExecs is the number of unit instructions m has executed, for
// KeepDepsFor.
func (m *Machine) UnitExecs() int64 {
	if m.part == nil {
		return 0
	}
	return m.part.execs
}

// SetPartial makes the machine compute values only for the unit
// instructions whose compute[pc] is true; the others are checked and timed
// but skipped, and track says what is recorded of them.
func (m *Machine) SetPartial(compute []bool, track Tracking) {
	p := &partial{compute: compute, need: map[int]bool{}, depsUntil: -1}
	if track >= TrackStale {
		for _, s := range isa.Spaces() {
			p.shadows[s] = newShadow()
		}
	}
	if track >= TrackDeps {
		p.deps = map[int]map[int]bool{}
	}
	if track >= TrackStale {
		p.eager = eagerSet(m.Prog)
		p.eagerOK = make([]bool, len(compute))
	}
	m.part = p
}

// eagerBytes bounds the tiles of an eager instruction.
const eagerBytes = 256

// Eager instructions.
//
// The values that steer control flow are scalars: a loop counter, a
// dynamic slice's offset computed from the partition id. Found only by
// stopping and running again, each such chain costs a run up to where it
// is read, and XLA's GPT-3 layer on 8 devices has three of them (one per
// attention transpose) at a third of its 198M cycles. So the small data
// instructions of a program (DMA, vector and cross-lane instructions whose
// tiles are at most eagerBytes) compute whenever everything they read holds
// computed values, which a probe of the instruction's reads decides before
// it executes; otherwise they are skipped like the rest. Which ones
// compute does not change a cycle, only which values exist; and an eager
// instruction never stops a run, so one that reads an input never given is
// simply skipped.
func eagerSet(p *exe.Program) []bool {
	eager := make([]bool, len(p.Code))
	for pc := range p.Code {
		in := &p.Code[pc]
		switch in.Op.Info().Unit {
		case isa.UnitDMA, isa.UnitVPU, isa.UnitXLU:
		default:
			continue
		}
		small := true
		for _, t := range in.Tiles {
			if t.Layout == 0 {
				continue
			}
			if l, ok := p.Layout(t.Layout); !ok || l.Elems()*int64(l.DType.Size()) > eagerBytes {
				small = false
			}
		}
		eager[pc] = small
	}
	return eager
}

// EagerComputed is the number of eager instructions (outside the slice)
// that computed values at least once in a partial run.
func (m *Machine) EagerComputed() int {
	n := 0
	if m.part != nil {
		for pc, ok := range m.part.eagerOK {
			if ok && !m.part.compute[pc] {
				n++
			}
		}
	}
	return n
}

// cleanRead reports whether every byte of v holds a computed value.
func (m *Machine) cleanRead(v view) bool {
	p := m.part
	if p == nil || p.shadows[v.Space] == nil {
		return true
	}
	sh := p.shadows[v.Space]
	sz := int64(v.DType.Size())
	clean := true
	v.runs(func(_ int, addr int64, n int) {
		if clean && sh.dirty(addr, int64(n)*sz) {
			clean = false
		}
	})
	return clean
}

// MarkUnknown records that a tensor's values were not given (a timing-only
// run without inputs): a computed instruction that reads them stops the run
// with an *UnknownInput.
func (m *Machine) MarkUnknown(name string) error {
	s, ok := m.Prog.Symbol(name)
	if !ok {
		return fmt.Errorf("no tensor named %q (tensors: %s)", name, m.tensorNames())
	}
	if m.part == nil || m.part.shadows[s.Space] == nil {
		return nil
	}
	m.part.shadows[s.Space].unknownInput(int64(s.Addr), s.Bytes())
	return nil
}

// MarkUnknownAt records that bytes [addr, addr+n) of space hold values
// nobody computed (what a collective of a timing-only run of several
// devices would have moved there): a computed instruction that reads them
// stops the run with an *UnknownInput naming the tensor there.
func (m *Machine) MarkUnknownAt(space isa.Space, addr, n int64) {
	if m.part != nil && m.part.shadows[space] != nil {
		m.part.shadows[space].unknownInput(addr, n)
	}
}

// ComputedAt reports whether every byte of [addr, addr+n) of space holds
// a computed value in a partial run that tracks them (false when nothing
// is tracked: then no byte is known to be computed).
func (m *Machine) ComputedAt(space isa.Space, addr, n int64) bool {
	if m.part == nil || m.part.shadows[space] == nil {
		return false
	}
	return !m.part.shadows[space].dirty(addr, n)
}

// MarkComputedAt records that bytes [addr, addr+n) of space now hold
// computed values (what a collective of a partial run moved there).
func (m *Machine) MarkComputedAt(space isa.Space, addr, n int64) {
	if m.part != nil && m.part.shadows[space] != nil {
		m.part.shadows[space].computed(addr, n)
	}
}

// MarkDerivedAt records that bytes [addr, addr+n) of space were made,
// without their values, from bytes [from, from+fromN) of the same space (a
// collective of a partial run whose operands were not all computed): a
// computed instruction reading them stops the run naming the skipped
// writer of the source bytes, so that the next run computes it and the
// collective moves values; when the source is an input never given, they
// are unknown, as the source is.
func (m *Machine) MarkDerivedAt(space isa.Space, addr, n, from, fromN int64) {
	if m.part == nil || m.part.shadows[space] == nil {
		return
	}
	sh := m.part.shadows[space]
	need := map[int]bool{}
	var seen writerCache
	unknown := sh.check(from, fromN, need, &seen)
	if len(need) == 0 || unknown >= 0 {
		sh.unknownInput(addr, n)
		return
	}
	pcs := make([]int, 0, len(need))
	for pc := range need {
		pcs = append(pcs, pc)
	}
	slices.Sort(pcs)
	sh.skipped(addr, n, pcs[0]) // one writer: the next run names the others
}

// checkComputedRead is called before a computed instruction reads the runs
// of v: it fails if any byte holds a value that was never computed.
func (m *Machine) checkComputedRead(v view) error {
	p := m.part
	if p == nil || p.shadows[v.Space] == nil {
		return nil
	}
	sh := p.shadows[v.Space]
	sz := int64(v.DType.Size())
	unknownAt := int64(-1)
	var seen writerCache
	v.runs(func(_ int, addr int64, n int) {
		if a := sh.check(addr, int64(n)*sz, p.need, &seen); a >= 0 && unknownAt < 0 {
			unknownAt = a
		}
	})
	return m.partialStop(v.Space, unknownAt)
}

// depsReadBytes bounds the skipped reads whose writers are recorded as
// dependences (recordSkippedRead): the values control flow reads are
// scalars and small vectors; a tile is 16 KiB and more.
const depsReadBytes = 4 << 10

// recordSkippedRead notes, for the skipped instruction being executed,
// the skipped writers of what it reads from v (see partial.deps).
func (m *Machine) recordSkippedRead(v view) {
	p := m.part
	if p == nil || p.shadows[v.Space] == nil || p.deps == nil || (p.depsUntil >= 0 && p.execs > p.depsUntil) {
		return
	}
	sh := p.shadows[v.Space]
	// Dependences are kept exactly, for reads of at most depsReadBytes:
	// the values control flow needs are scalars and small tiles, and a
	// byte-exact walk of every large skipped read was most of a timing-only
	// GPT-3 layer's host time. Leaving a large read's writers out is safe
	// (a missed writer is found by the next run); taking in writers the
	// read did not touch is not: an instruction that reads an input never
	// given would join the slice and stop the run.
	lo, hi := v.Extent()
	if hi-lo > depsReadBytes {
		return
	}
	sz := int64(v.DType.Size())
	var seen writerCache
	v.runs(func(_ int, addr int64, n int) { sh.check(addr, int64(n)*sz, p.need, &seen) })
	m.noteDeps()
}

// noteDeps moves the writers collected in need into the deps of the
// skipped instruction being executed.
func (m *Machine) noteDeps() {
	p := m.part
	if len(p.need) == 0 {
		return
	}
	if p.deps == nil { // TrackStale: dependences are not kept
		clear(p.need)
		return
	}
	d := p.deps[m.execPC]
	if d == nil {
		d = map[int]bool{}
		p.deps[m.execPC] = d
	}
	for pc := range p.need {
		d[pc] = true
	}
	clear(p.need)
}

// partialStop turns what checkComputedRead (or a stale MXU weight) found
// into the error that stops the run.
func (m *Machine) partialStop(space isa.Space, unknownAt int64) error {
	p := m.part
	if unknownAt >= 0 {
		clear(p.need)
		name := fmt.Sprintf("%s 0x%x", space, unknownAt)
		if s := symbolAt(m.Prog, space, unknownAt); s != nil {
			name = s.Name
		}
		return &UnknownInput{Tensor: name, PC: m.execPC, Pos: m.Prog.DebugAt(m.execPC).Pos()}
	}
	if len(p.need) == 0 {
		return nil
	}
	e := &NeedValues{PC: m.execPC}
	work := make([]int, 0, len(p.need))
	for pc := range p.need {
		work = append(work, pc)
	}
	seen := map[int]bool{}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[pc] || p.compute[pc] {
			continue
		}
		seen[pc] = true
		e.PCs = append(e.PCs, pc)
		for d := range p.deps[pc] {
			work = append(work, d)
		}
	}
	slices.Sort(e.PCs)
	clear(p.need)
	return e
}

func symbolAt(p *exe.Program, space isa.Space, addr int64) *exe.Symbol {
	for i := range p.Symbols {
		s := &p.Symbols[i]
		if s.Space == space && addr >= int64(s.Addr) && addr < int64(s.Addr)+s.Bytes() {
			return s
		}
	}
	return nil
}

// recordWrite updates the shadow after the instruction being executed
// wrote the runs of v.
func (m *Machine) recordWrite(v view) {
	p := m.part
	if p == nil || p.shadows[v.Space] == nil {
		return
	}
	sh := p.shadows[v.Space]
	sz := int64(v.DType.Size())
	v.runs(func(_ int, addr int64, n int) {
		if m.dry {
			sh.skipped(addr, int64(n)*sz, m.execPC)
		} else {
			sh.computed(addr, int64(n)*sz)
		}
	})
}

// IsPartialStop reports whether err stopped a partial run to ask for more
// values (a *NeedValues or *UnknownInput), rather than a fault.
func IsPartialStop(err error) bool {
	switch err.(type) {
	case *NeedValues, *UnknownInput:
		return true
	}
	return false
}

// TouchesSMEM reports whether a unit instruction has a tile in scalar
// memory: such an instruction always computes its values in a partial run,
// because the sequencer may read them.
func TouchesSMEM(p *exe.Program, in *isa.Inst) bool {
	for _, t := range in.Tiles {
		if t.Layout == 0 {
			continue
		}
		if l, ok := p.Layout(t.Layout); ok && l.Space == isa.SMEM {
			return true
		}
	}
	return false
}

// DescribeSlice names the instructions of a computed set, for reports: at
// most limit of them, as "pc N (text)".
func DescribeSlice(p *exe.Program, compute []bool, limit int) string {
	var parts []string
	for pc, c := range compute {
		if !c || p.Code[pc].Op.Info().Unit == isa.UnitScalar {
			continue
		}
		if len(parts) == limit {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("pc %d (%s)", pc, p.Code[pc].Format(p)))
	}
	return strings.Join(parts, ", ")
}

// ShareHBM makes m use from's HBM, as the cores of one chip do: the same
// bytes, and, in a partial run, the same record of what skipped
// instructions wrote there. Both must be set up for the same kind of run
// (SetPartial before sharing).
func (m *Machine) ShareHBM(from *Machine) {
	m.Mem[isa.HBM] = from.Mem[isa.HBM]
	if m.part != nil && from.part != nil {
		m.part.shadows[isa.HBM] = from.part.shadows[isa.HBM]
	}
}
