package traces

import (
	"math"

	"cmp"
	"fmt"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/energy"
	"io"
	"math/bits"
	"slices"

	"github.com/google/pprof/profile"
	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/sim"
)

// Profile records where every unit's cycles went, instruction by
// instruction, and writes them as a pprof profile: one sample type per
// state (busy and each stall reason, in cycles), a "unit" label on every
// sample, and call stacks HLO fusion -> HLO instruction -> kernel ->
// instruction, whose frames carry the HLO and assembly files and lines, so
// `go tool pprof -list` shows the assembly with its cycles.
type Profile struct {
	tracks coreTracks // every core's sequencer and units
	src    *Source
	m      *core.Model
	acc    map[pkey]*[numProfStates]sim.Time
	last   []lastKey // per track: the last key, to skip the map lookup
}

const numProfStates = 6 // stateOrder

type pkey struct {
	track int32 // unit index + 1 (0: the sequencer)
	pc    int32
}

type lastKey struct {
	pc int32
	v  *[numProfStates]sim.Time
}

// SampleTypes are the profile's sample types, in stateOrder.
var SampleTypes = []string{"busy", "semaphore_wait", "structural_stall", "memory_wait", "bank_conflict_stall", "idle"}

// NewProfile makes a profile recorder for a run of src's program.
func NewProfile(src *Source) *Profile {
	return &Profile{src: src, acc: map[pkey]*[numProfStates]sim.Time{}}
}

// Attach implements core.Observer.
func (p *Profile) Attach(m *core.Model) {
	p.m = m
	p.tracks.add(m)
	p.last = make([]lastKey, len(m.Units)+1)
	for i := range p.last {
		p.last[i].pc = -2
	}
	m.Seq.AcceptHook(p)
	for _, u := range m.Units {
		u.AcceptHook(p)
	}
}

// AttachCore implements core.CoreObserver: the core's units are the
// samples' "unit" labels as the report names them (core1.vpu), their
// cycles adding up to the report's per unit.
func (p *Profile) AttachCore(m *core.Model, k int) {
	base := p.tracks.add(m)
	for range len(m.Units) + 1 {
		p.last = append(p.last, lastKey{pc: -2})
	}
	h := &shifted{h: p, base: base, want: p.Wants}
	m.Seq.AcceptHook(h)
	for _, u := range m.Units {
		u.AcceptHook(h)
	}
}

// Func implements sim.Hook.
func (p *Profile) Func(ctx *sim.HookCtx) {
	if ctx.Pos != sim.HookState {
		return
	}
	st := stateIndex(ctx.Reason)
	if st < 0 {
		return
	}
	tr := ctx.Unit + 1
	l := &p.last[tr]
	if l.pc != int32(ctx.PC) {
		k := pkey{int32(tr), int32(ctx.PC)}
		v := p.acc[k]
		if v == nil {
			v = new([numProfStates]sim.Time)
			p.acc[k] = v
		}
		l.pc, l.v = k.pc, v
	}
	l.v[st] += ctx.Now - ctx.Start
}

func (p *Profile) trackName(tr int) string { return p.tracks.name(tr) }

// targets are the report's cycles of a unit by state, in stateOrder.
func targets(r *chip.Report, name string) [numProfStates]int64 {
	s := r.Stalls[name]
	return [numProfStates]int64{r.Units[name].BusyCycles, s.Semaphore, s.Structural, s.Memory, s.BankConflict, s.Idle}
}

// cycles turns the recorded picoseconds into whole cycles that add up,
// per unit and state, to the report's figures exactly: each instruction
// gets its share, rounded down, and the cycles left over go to the largest
// remainders (ties to the lower pc).
func (p *Profile) cycles(r *chip.Report) map[pkey]*[numProfStates]int64 {
	out := map[pkey]*[numProfStates]int64{}
	byTrack := map[int32][]pkey{}
	for k := range p.acc {
		byTrack[k.track] = append(byTrack[k.track], k)
	}
	for tr := range p.tracks.total() {
		keys := byTrack[int32(tr)]
		slices.SortFunc(keys, func(a, b pkey) int { return cmp.Compare(a.pc, b.pc) })
		want := targets(r, p.trackName(tr))
		for st := range numProfStates {
			var total uint64
			for _, k := range keys {
				total += uint64(p.acc[k][st])
			}
			get := func(k pkey) *[numProfStates]int64 {
				v := out[k]
				if v == nil {
					v = new([numProfStates]int64)
					out[k] = v
				}
				return v
			}
			if total == 0 {
				if want[st] > 0 { // nothing observed (a report rounding): no instruction
					get(pkey{int32(tr), -1})[st] += want[st]
				}
				continue
			}
			type share struct {
				k   pkey
				rem uint64
			}
			var shares []share
			left := want[st]
			for _, k := range keys {
				ps := uint64(p.acc[k][st])
				if ps == 0 {
					continue
				}
				hi, lo := bits.Mul64(ps, uint64(want[st]))
				q, rem := bits.Div64(hi, lo, total)
				get(k)[st] += int64(q)
				left -= int64(q)
				shares = append(shares, share{k, rem})
			}
			slices.SortStableFunc(shares, func(a, b share) int { return cmp.Compare(b.rem, a.rem) })
			for i := 0; left > 0; i = (i + 1) % len(shares) {
				get(shares[i].k)[st]++
				left--
			}
		}
	}
	return out
}

// Build makes the pprof profile of the finished run summarized by r.
func (p *Profile) Build(r *chip.Report) *profile.Profile {
	pr := &profile.Profile{
		Comments:          []string{fmt.Sprintf("pulse: %s on %s, %d cycles at %.0f MHz", r.Program, r.Chip, r.Cycles, r.ClockMHz)},
		DefaultSampleType: SampleTypes[0],
		DurationNanos:     int64(r.Seconds * 1e9),
	}
	// One mapping that says the functions and lines are already known, so
	// pprof looks for no binary to symbolize.
	pr.Mapping = []*profile.Mapping{{ID: 1, File: r.Program, HasFunctions: true, HasFilenames: true, HasLineNumbers: true}}
	for _, n := range SampleTypes {
		pr.SampleType = append(pr.SampleType, &profile.ValueType{Type: n, Unit: "cycles"})
	}
	// energy_pj: each instruction's dynamic energy, on the sample of the
	// unit that ran it (the sequencer's for its own instructions), so
	// `go tool pprof -sample_index=energy_pj` shows where the joules go.
	var prices *energy.Prices
	if p.m != nil && p.m.Chip.Energy != (config.Energy{}) {
		prices = energy.PricesOf(p.m.Chip)
		pr.SampleType = append(pr.SampleType, &profile.ValueType{Type: "energy_pj", Unit: "picojoules"})
	}
	b := &stackBuilder{src: p.src, pr: pr, funcs: map[[2]string]*profile.Function{}, locs: map[locKey]*profile.Location{}}
	counts := p.cycles(r)
	placed := map[[2]int32]bool{} // core and pc whose energy is on a sample
	keys := make([]pkey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pkey) int {
		if c := cmp.Compare(a.track, b.track); c != 0 {
			return c
		}
		return cmp.Compare(a.pc, b.pc)
	})
	for _, k := range keys {
		v := counts[k]
		var pj int64
		if prices != nil && k.pc >= 0 && int(k.pc) < len(p.m.Prog.Code) && p.ownsEnergy(k) {
			c, _ := p.tracks.at(int(k.track))
			pj = int64(math.Round(prices.PJ(p.tracks.models[c].ActionsAt(int(k.pc)))))
			placed[[2]int32{int32(c), k.pc}] = true
		}
		if *v == [numProfStates]int64{} && pj == 0 {
			continue
		}
		vals := append([]int64(nil), v[:]...)
		if prices != nil {
			vals = append(vals, pj)
		}
		pr.Sample = append(pr.Sample, &profile.Sample{
			Location: b.stack(int(k.pc)),
			Value:    vals,
			Label:    map[string][]string{"unit": {p.trackName(int(k.track))}},
		})
	}
	// An instruction whose unit spent no cycles on its behalf (a wait the
	// sequencer passed within another instruction's cycle) still spent
	// energy: a sample of its own.
	for c, m := range p.tracks.models {
		for pc := range m.Prog.Code {
			if prices == nil || placed[[2]int32{int32(c), int32(pc)}] {
				continue
			}
			pj := int64(math.Round(prices.PJ(m.ActionsAt(pc))))
			if pj == 0 {
				continue
			}
			name := p.tracks.name(p.tracks.base[c])
			if u := m.UnitOf(pc); u != nil {
				name = u.Name
			}
			vals := make([]int64, len(pr.SampleType))
			vals[len(vals)-1] = pj
			pr.Sample = append(pr.Sample, &profile.Sample{Location: b.stack(pc), Value: vals, Label: map[string][]string{"unit": {name}}})
		}
	}
	return pr
}

// Write writes the profile (gzipped protobuf, as go tool pprof reads it).
func (p *Profile) Write(w io.Writer, r *chip.Report) error {
	return p.Build(r).Write(w)
}

type locKey struct {
	fn   *profile.Function
	line int64
}

// stackBuilder makes the functions and locations of the profile, once each.
type stackBuilder struct {
	src   *Source
	pr    *profile.Profile
	funcs map[[2]string]*profile.Function
	locs  map[locKey]*profile.Location
}

func (b *stackBuilder) frame(name, file string, start, line int) *profile.Location {
	f := b.funcs[[2]string{name, file}]
	if f == nil {
		f = &profile.Function{ID: uint64(len(b.pr.Function) + 1), Name: name, SystemName: name, Filename: file, StartLine: int64(start)}
		b.funcs[[2]string{name, file}] = f
		b.pr.Function = append(b.pr.Function, f)
	}
	k := locKey{f, int64(line)}
	l := b.locs[k]
	if l == nil {
		l = &profile.Location{ID: uint64(len(b.pr.Location) + 1), Mapping: b.pr.Mapping[0], Line: []profile.Line{{Function: f, Line: int64(line)}}}
		b.locs[k] = l
		b.pr.Location = append(b.pr.Location, l)
	}
	return l
}

// stack is instruction pc's call stack, leaf first.
func (b *stackBuilder) stack(pc int) []*profile.Location {
	s := b.src
	if pc < 0 || pc >= len(s.Prog.Code) {
		return []*profile.Location{b.frame("(no instruction: idle)", "", 0, 0)}
	}
	line := s.AsmLine(pc)
	st := []*profile.Location{b.frame(fmt.Sprintf("%s@%d", s.Mnemonic(pc), pc), s.AsmFile, line, line)}
	k := s.KernelOf(pc)
	if k < 0 {
		return st
	}
	kn := s.Kernels[k]
	name := "kernel " + kn.Name
	if kn.Label != "" {
		name = fmt.Sprintf("kernel %s %s", kn.Label, kn.Name)
	}
	st = append(st, b.frame(name, s.AsmFile, s.AsmLine(kn.FirstPC), line))
	if !s.HLO {
		return st
	}
	d := s.Prog.DebugAt(pc)
	if op := s.HLOOp(pc); op != "" && op != kn.Name {
		st = append(st, b.frame(op, d.File, int(d.Line), int(d.Line)))
	}
	st = append(st, b.frame(kn.Name, kn.File, kn.Line, kn.Line))
	// The model's line the instruction's HLO op came from (the kernel's,
	// when the op's own metadata names none), as the outermost frame: a
	// function named file:line in that file, so that pprof -top groups
	// the cycles by line of the model and -list shows them on its source.
	o, ok := s.Origins[[2]int32{d.Line, d.Col}]
	if !ok {
		o = kn.Origin
	}
	if o.File != "" {
		st = append(st, b.frame(o.String(), o.File, o.Line, o.Line))
	}
	return st
}

// Wants implements sim.HookFilter: only state stretches.
func (p *Profile) Wants(pos sim.HookPos) bool { return pos == sim.HookState }

// ownsEnergy says whether sample k carries its pc's energy: the track of
// the unit that runs the instruction, or the sequencer's for its own.
func (p *Profile) ownsEnergy(k pkey) bool {
	c, on := p.tracks.at(int(k.track))
	return p.tracks.models[c].UnitOf(int(k.pc)) == on
}
