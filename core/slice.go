package core

import (
	"fmt"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/ref"
)

// An exact timing-only run.
//
// Timing never depends on values except through control flow: the
// sequencer branches, counts loops and offsets tiles by registers, and
// registers get data only from scalar memory. So a timing-only run computes
// the values of exactly the unit instructions whose results can reach
// scalar memory (the dependence slice of control flow), and only checks and
// times the rest. The slice is found by running (ref/partial.go): the
// instructions that touch scalar memory compute from the start; when a
// computed instruction reads bytes a skipped one wrote, the run stops, the
// writers join the slice and the run starts again. The slice only grows,
// so this ends; the last run computes every value control flow reads, and
// so takes the value run's path, cycle for cycle.

// SliceInfo says what a timing-only run computed.
type SliceInfo struct {
	// Computed is the number of unit instructions (in the program text)
	// whose values were computed, of Units.
	Computed, Units int
	// Runs is the number of runs it took to find the slice: 1 when no
	// control flow depends on data.
	Runs int
	// Steers is true when some control flow depends on data (the program
	// reads back into scalar memory what its units computed).
	Steers bool
	// Sample names a few computed instructions.
	Sample string
	// Eager is the number of small unit instructions outside the slice
	// that computed values because everything they read had been
	// computed (ref's eager instructions): they cut the runs the search
	// takes, not its result.
	Eager int
}

// Simulate builds the model of chip running prog, lets load put the
// inputs in (it may be nil), and runs it to completion. A timing-only run
// takes the value run's exact path: see SliceInfo. The model is returned
// with the run's error, if any (nil only when it could not be built).
func Simulate(chip *config.Chip, prog *exe.Program, opt Options, load func(*ref.Machine) error) (*Model, error) {
	if !opt.TimingOnly {
		return runOnce(chip, prog, opt, load, nil)
	}
	compute := make([]bool, len(prog.Code))
	info := &SliceInfo{}
	for pc := range prog.Code {
		in := &prog.Code[pc]
		if in.Op.Info().Unit == isa.UnitScalar {
			continue
		}
		info.Units++
		if ref.TouchesSMEM(prog, in) {
			compute[pc] = true
			info.Steers = true
		}
	}
	if !info.Steers {
		// Nothing computed reads anything: one run, nothing tracked.
		info.Runs = 1
		return runOnce(chip, prog, opt, load, &slice{compute, ref.TrackNone, 0, info})
	}
	unseeded, seeded := compute, false
	if s := Seed(compute, opt.Seed, prog); s != nil {
		compute, seeded = s, true
	}
	search := opt
	restartable := Restartable(opt.Observers)
	if !restartable {
		search.Observers = nil
	}
	// The first run records only which bytes skipped instructions wrote;
	// once a run has stopped, the next ones also keep every skipped
	// instruction's dependences, so that a stop names a whole chain of
	// writers (ref.Tracking). Most programs never stop, and keeping them
	// costs half the host time.
	track, depsFor := ref.TrackStale, int64(0)
	for {
		info.Runs++
		m, err := runOnce(chip, prog, search, load, &slice{compute, track, depsFor, info})
		if _, ok := err.(*ref.UnknownInput); ok && seeded {
			// The seed reached an input the run was not given, which
			// what control flow reads may not: search from scratch.
			compute, seeded = unseeded, false
			continue
		}
		if nv, ok := err.(*NeedValues); ok {
			track, depsFor = ref.TrackDeps, max(depsFor, UnitExecs(m))
			for _, pc := range nv.PCs {
				if compute[pc] {
					return m, fmt.Errorf("internal error: timing-only slice search asked again for pc %d", pc)
				}
				compute[pc] = true
			}
			continue
		}
		if m == nil || len(opt.Observers) == 0 || restartable {
			return m, err
		}
		// The slice is known: run once more for the observers, who must
		// see one whole run.
		return runOnce(chip, prog, opt, load, &slice{compute, ref.TrackStale, 0, info})
	}
}

// Seed is compute with the unit instructions of guess (Options.Seed)
// added, or nil when guess adds none.
func Seed(compute, guess []bool, prog *exe.Program) []bool {
	if len(guess) != len(compute) {
		return nil
	}
	var out []bool
	for pc, g := range guess {
		if !g || compute[pc] || prog.Code[pc].Op.Info().Unit == isa.UnitScalar {
			continue
		}
		if out == nil {
			out = append([]bool(nil), compute...)
		}
		out[pc] = true
	}
	return out
}

// NeedValues is ref.NeedValues as Model.Run returns it.
type NeedValues = ref.NeedValues

type slice struct {
	compute []bool
	track   ref.Tracking
	depsFor int64 // with TrackDeps: the unit instructions whose dependences are kept
	info    *SliceInfo
}

// set makes arch's run partial as s says.
func (s *slice) set(arch *ref.Machine) {
	arch.SetPartial(s.compute, s.track)
	if s.track == ref.TrackDeps {
		arch.KeepDepsFor(s.depsFor)
	}
}

// UnitExecs is the most unit instructions any core of m's chip (or any
// of the devices given) executed in a partial run: how far a slice
// search's next run keeps dependences (ref.Machine.KeepDepsFor).
func UnitExecs(models ...*Model) int64 {
	n := int64(0)
	for _, m := range models {
		if m == nil {
			continue
		}
		n = max(n, m.Arch.UnitExecs())
		for _, c := range m.Cores {
			n = max(n, c.Arch.UnitExecs())
		}
	}
	return n
}

func runOnce(chip *config.Chip, prog *exe.Program, opt Options, load func(*ref.Machine) error, s *slice) (*Model, error) {
	if chip.NumCores() > 1 {
		m, err := runCores(chip, prog, opt, load, s)
		if m != nil && s != nil {
			s.note(prog, m)
		}
		return m, err
	}
	m, err := New(chip, prog, opt)
	if err != nil {
		return nil, err
	}
	if s != nil {
		s.set(m.Arch)
		m.slice = s
	}
	if load != nil {
		if err := load(m.Arch); err != nil {
			return nil, err
		}
	}
	err = m.Run()
	if s != nil {
		s.note(prog, m)
	}
	return m, err
}

// note records in m what the slice computed.
func (s *slice) note(prog *exe.Program, m *Model) {
	n := 0
	for pc, c := range s.compute {
		if c && prog.Code[pc].Op.Info().Unit != isa.UnitScalar {
			n++
		}
	}
	s.info.Computed = n
	s.info.Sample = ref.DescribeSlice(prog, s.compute, 3)
	s.info.Eager = m.Arch.EagerComputed()
	m.Slice = s.info
}
