// Package grade grades a student's kernel for a lab (labs/): it places
// fresh inputs it generates (a new seed each run, plus the lab's fixed edge
// cases), runs the kernel on the lab's chip, compares every output with a
// float64 reference within the dtype's tolerance, measures cycles against
// the lab's reference solution, and reruns the kernel under changed timing
// to catch races. It grades what the folder holds, never what it claims.
// Results print as text, JSON or Gradescope's results.json (format.go).
package grade

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/labs"
)

// Options tune a grading run.
type Options struct {
	// Seed seeds the random inputs (0: a fresh seed from the clock; the
	// result names the seed, so a failure can be replayed).
	Seed uint64
	// Progress, when set, is told after each simulation.
	Progress func(done, total int)
}

// Test is one line of the rubric.
type Test struct {
	Name     string  `json:"name"`
	Score    float64 `json:"score"`
	MaxScore float64 `json:"max_score"`
	Output   string  `json:"output"`
	// Cause is the likely cause of a failure, as the handout's sections
	// are keyed (labs.Lab.Sections): missing-wait, off-by-one, dtype, ...
	Cause string `json:"cause,omitempty"`
}

// Passed reports whether the test earned all its points.
func (t Test) Passed() bool { return t.Score >= t.MaxScore }

// Result is a graded folder.
type Result struct {
	Lab      string  `json:"lab"`
	Chip     string  `json:"chip"`
	Dir      string  `json:"dir"`
	Seed     uint64  `json:"seed"`
	Score    float64 `json:"score"`
	MaxScore float64 `json:"max_score"`
	Tests    []Test  `json:"tests"`
	// Cycles and ReferenceCycles are the kernel's and the reference
	// solution's cycles on the random inputs, per variant ("" without).
	Cycles          map[string]int64 `json:"cycles"`
	ReferenceCycles map[string]int64 `json:"reference_cycles"`
	Seconds         float64          `json:"seconds"`
}

// inputSet is one test's inputs and the reference's answer.
type inputSet struct {
	name        string
	why         string
	ins         map[string][]float64
	want, scale map[string][]float64
}

// variant is a chip configuration the lab grades on.
type variant struct {
	name string
	chip *config.Chip
	sets []string
}

// Grade grades the kernel in dir for lab l. The error is for problems of
// the grader or the lab itself (a reference solution that fails); every
// problem of the student's kernel is a failed test with its feedback.
func Grade(l *labs.Lab, dir string, opt Options) (*Result, error) {
	t0 := time.Now()
	if opt.Seed == 0 {
		opt.Seed = uint64(time.Now().UnixNano())%1_000_000_000 + 1
	}
	g := &grader{lab: l, opt: opt}
	res := &Result{Lab: l.Name, Chip: l.Chip, Dir: dir, Seed: opt.Seed,
		Cycles: map[string]int64{}, ReferenceCycles: map[string]int64{}}
	if err := g.prepare(); err != nil {
		return nil, err
	}
	res.ReferenceCycles = g.refCycles
	res.Tests = g.gradeFolder(dir, res)
	for _, t := range res.Tests {
		res.Score += t.Score
		res.MaxScore += t.MaxScore
	}
	res.Score = math.Round(res.Score*100) / 100
	res.MaxScore = math.Round(res.MaxScore*100) / 100
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

type grader struct {
	lab       *labs.Lab
	opt       Options
	variants  []variant
	robust    []variant
	sets      []*inputSet
	solution  *exe.Program
	refCycles map[string]int64
	runs      int
	total     int
	baseRaces *core.Races // the race detector of the first variant's random run
}

// prepare builds the chips, the inputs and their answers, and measures
// the reference solution (which must pass: else the lab is broken).
func (g *grader) prepare() error {
	l := g.lab
	vs := l.Variants
	if len(vs) == 0 {
		vs = []labs.Variant{{}}
	}
	for _, v := range vs {
		c, err := config.Load(l.Chip, v.Set)
		if err != nil {
			return fmt.Errorf("lab %s, variant %q: %v", l.Name, v.Name, err)
		}
		g.variants = append(g.variants, variant{v.Name, c, v.Set})
	}
	for _, v := range l.Robustness {
		c, err := config.Load(l.Chip, append(append([]string{}, vs[0].Set...), v.Set...))
		if err != nil {
			return fmt.Errorf("lab %s, robustness %q: %v", l.Name, v.Name, err)
		}
		g.robust = append(g.robust, variant{v.Name, c, v.Set})
	}
	refFn, err := lookupReference(l.Reference)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(g.opt.Seed, 0x5eed))
	cases := append([]labs.Case{{Name: fmt.Sprintf("random inputs (seed %d)", g.opt.Seed)}}, l.Cases...)
	for ci, c := range cases {
		s := &inputSet{name: c.Name, why: c.Why, ins: map[string][]float64{}}
		if ci > 0 {
			s.name = "edge case " + c.Name
		}
		for _, t := range l.Inputs {
			v, err := fill(t, c.Fill[t.Name], rng)
			if err != nil {
				return fmt.Errorf("lab %s, case %s, input %s: %v", l.Name, c.Name, t.Name, err)
			}
			s.ins[t.Name] = v
		}
		if s.want, s.scale, err = refFn(l, s.ins); err != nil {
			return fmt.Errorf("lab %s, reference: %v", l.Name, err)
		}
		g.sets = append(g.sets, s)
	}
	src, err := l.Solution()
	if err != nil {
		return err
	}
	if g.solution, err = asm.Assemble("solution/"+l.Kernel, src, asm.Options{}); err != nil {
		return fmt.Errorf("lab %s: the reference solution does not assemble: %v", l.Name, err)
	}
	g.total = len(g.variants) + len(g.variants)*len(g.sets) + len(g.robust)
	g.refCycles = map[string]int64{}
	for _, v := range g.variants {
		r := simulate(v.chip, g.solution, l, g.sets[0].ins, 0)
		g.step()
		if r.err != nil {
			return fmt.Errorf("lab %s: the reference solution fails on %s: %v", l.Name, v.label(), r.err)
		}
		for _, o := range l.Outputs {
			if m := compare(o, r.outs[o.Name], g.sets[0].want[o.Name], g.sets[0].scale[o.Name]); m != nil {
				return fmt.Errorf("lab %s: the reference solution is wrong on %s: %s", l.Name, v.label(), m.message())
			}
		}
		g.refCycles[v.name] = r.cycles
	}
	return nil
}

func (g *grader) step() {
	g.runs++
	if g.opt.Progress != nil {
		g.opt.Progress(g.runs, g.total)
	}
}

func (v variant) label() string {
	if v.name == "" {
		return "the lab's chip"
	}
	return "variant " + v.name + " (" + strings.Join(v.sets, ", ") + ")"
}

func (v variant) tag() string {
	if v.name == "" {
		return ""
	}
	return " [" + v.name + "]"
}

// gradeFolder runs the rubric on the kernel in dir.
func (g *grader) gradeFolder(dir string, res *Result) []Test {
	l := g.lab
	path := filepath.Join(dir, l.Kernel)
	prog, problem := g.load(dir, path)
	perSet := l.Score.Correctness / float64(len(g.variants)*len(g.sets))
	perVariant := l.Score.Performance / float64(len(g.variants))
	tests := []Test{{Name: "builds: assembles and declares the lab's tensors", MaxScore: l.Score.Runs / 2}}
	if problem == "" {
		tests[0].Score = tests[0].MaxScore
		tests[0].Output = "kernel.s assembles; " + tensorList(l)
	} else {
		tests[0].Output, tests[0].Cause = problem, "load"
	}
	finished := Test{Name: "finishes: no fault, deadlock or cycle limit in any test", MaxScore: l.Score.Runs / 2}
	var stops []string
	var base map[string][]float64 // outputs of the first variant's random run
	baseOK := false
	for vi, v := range g.variants {
		var first run
		correct, allCorrect := false, true
		for si, s := range g.sets {
			t := Test{Name: "correct" + v.tag() + ": " + s.name, MaxScore: perSet}
			if problem != "" {
				t.Output, t.Cause = problem, "load"
				tests = append(tests, t)
				continue
			}
			r := simulate(v.chip, prog, l, s.ins, g.limit(v))
			g.step()
			if si == 0 {
				first = r
				res.Cycles[v.name] = r.cycles
			}
			t.Output, t.Cause = g.check(r, s)
			if r.err != nil {
				stops = append(stops, s.name+v.tag()+": "+firstLine(t.Output))
			}
			if t.Cause == "" {
				t.Score = perSet
				t.Output = fmt.Sprintf("every output within tolerance (%d cycles)", r.cycles)
				if si == 0 {
					correct = true
				}
			} else if s.why != "" {
				t.Output += "\nThis case checks " + s.why
			}
			if t.Cause != "" {
				allCorrect = false
			}
			t.Output = g.pointTo(t.Output, t.Cause)
			tests = append(tests, t)
		}
		if vi == 0 && correct {
			base, baseOK = first.outs, true
			g.baseRaces = first.races
		}
		tests = append(tests, g.performance(v, first, correct && allCorrect, perVariant, problem))
	}
	switch {
	case problem != "":
		finished.Output, finished.Cause = "not run: "+firstLine(problem), "load"
	case len(stops) > 0:
		finished.Output = strings.Join(stops, "\n")
		finished.Cause = "stopped"
	default:
		finished.Score = finished.MaxScore
		finished.Output = "every run finished"
	}
	tests = append(tests[:1], append([]Test{finished}, tests[1:]...)...)
	tests = append(tests, g.robustness(prog, base, baseOK, problem)...)
	return tests
}

// load reads and assembles the student's kernel and checks that it
// declares the lab's tensors; problem says what is wrong ("" when fine).
// The submission is untrusted: the kernel and everything it includes or
// loads must be regular files inside its folder dir.
func (g *grader) load(dir, path string) (*exe.Program, string) {
	src, err := inputs.ReadIn(dir, path, filepath.Base(path), inputs.Sources)
	if err != nil {
		return nil, fmt.Sprintf("cannot read the kernel: %v (the lab grades %s in the folder)", err, g.lab.Kernel)
	}
	prog, err := asm.Assemble(path, src, asm.Options{Root: dir})
	if err != nil {
		return nil, "the kernel does not assemble:\n" + err.Error()
	}
	var bad []string
	for _, t := range append(append([]labs.Tensor{}, g.lab.Inputs...), g.lab.Outputs...) {
		s, ok := prog.Symbol(t.Name)
		want := t.ShapeString()
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("the kernel declares no tensor %s (the lab needs .tensor %s hbm ADDR %s)", t.Name, t.Name, want))
		case s.Space != isa.HBM:
			bad = append(bad, fmt.Sprintf("tensor %s is in %s; the lab places it in hbm", t.Name, s.Space))
		case s.DType.String()+"["+shapeText(s.Shape)+"]" != want:
			bad = append(bad, fmt.Sprintf("tensor %s is %s; the lab's is %s (a dtype or shape mismatch)", t.Name, s.ShapeString(), want))
		}
	}
	if len(bad) > 0 {
		return nil, strings.Join(bad, "\n")
	}
	return prog, ""
}

func tensorList(l *labs.Lab) string {
	var p []string
	for _, t := range l.Inputs {
		p = append(p, "in "+t.Name+" "+t.ShapeString())
	}
	for _, t := range l.Outputs {
		p = append(p, "out "+t.Name+" "+t.ShapeString())
	}
	return strings.Join(p, ", ")
}

func shapeText(s []uint32) string {
	p := make([]string, len(s))
	for i, d := range s {
		p[i] = fmt.Sprint(d)
	}
	return strings.Join(p, ",")
}

// limit is a run's cycle cap: the lab's factor times the reference's cycles.
func (g *grader) limit(v variant) int64 {
	return int64(math.Ceil(g.lab.MaxCyclesFactor * float64(g.refCycles[v.name])))
}

// check compares a run's outputs with the answer; cause is "" when they agree.
func (g *grader) check(r run, s *inputSet) (out, cause string) {
	if r.err != nil {
		cause, msg := failure(r.err)
		return msg, cause
	}
	var msgs []string
	for _, o := range g.lab.Outputs {
		if m := compare(o, r.outs[o.Name], s.want[o.Name], s.scale[o.Name]); m != nil {
			msgs = append(msgs, m.message())
			if cause == "" {
				cause = m.cause
			}
		}
	}
	if cause != "" && len(r.races.Found) > 0 {
		// Wrong numbers and a race: the race is the likely cause,
		// whatever pattern the numbers make.
		cause = "missing-wait"
		msgs = append(msgs, "The race detector saw the cause: "+r.races.Found[0].String()+".")
	}
	return strings.Join(msgs, "\n"), cause
}

// pointTo adds the handout section for cause to a message.
func (g *grader) pointTo(msg, cause string) string {
	if h, ok := g.lab.Hints[cause]; ok && h != "" {
		msg += "\n" + h
	}
	if sec, ok := g.lab.Sections[cause]; ok && sec != "" {
		return msg + fmt.Sprintf("\nSee README.md, section \"%s\".", sec)
	}
	return msg
}

// performance scores a variant's cycles against the reference solution's.
func (g *grader) performance(v variant, r run, correct bool, points float64, problem string) Test {
	p := g.lab.Performance
	ref := g.refCycles[v.name]
	t := Test{Name: "performance" + v.tag(), MaxScore: points}
	full := int64(math.Floor(p.Full * float64(ref)))
	switch {
	case problem != "":
		t.Output, t.Cause = "not measured: "+firstLine(problem), "load"
		return t
	case !correct:
		t.Output, t.Cause = "not measured: performance counts only for a kernel that passes every correctness test", "skipped"
		return t
	}
	ratio := float64(r.cycles) / float64(ref)
	frac := 0.0
	if r.cycles <= full {
		frac = 1
	} else {
		for _, tr := range p.Tiers {
			if ratio <= tr.Ratio && tr.Fraction > frac {
				frac = tr.Fraction
			}
		}
	}
	t.Score = math.Round(points*frac*100) / 100
	rep := chip.NewReport(g.lab.Kernel, r.model, false)
	t.Output = fmt.Sprintf("%d cycles, %.2fx the reference solution's %d; full marks at or under %.2fx (%d cycles): %.0f%% of the points.\n%s",
		r.cycles, ratio, ref, p.Full, full, frac*100, utilization(rep))
	if frac < 1 {
		t.Cause = "performance"
		t.Output = g.pointTo(t.Output, "performance")
	}
	return t
}

// utilization names each unit's busy share, busiest first.
func utilization(rep *chip.Report) string {
	type u struct {
		name string
		util float64
	}
	var us []u
	for name, r := range rep.Units {
		if r.Instructions > 0 || r.BusyCycles > 0 {
			us = append(us, u{name, r.Utilization})
		}
	}
	// Busiest first, then by name, so the line is deterministic.
	for i := 1; i < len(us); i++ {
		for j := i; j > 0 && (us[j].util > us[j-1].util || us[j].util == us[j-1].util && us[j].name < us[j-1].name); j-- {
			us[j], us[j-1] = us[j-1], us[j]
		}
	}
	parts := make([]string, len(us))
	for i, x := range us {
		parts[i] = fmt.Sprintf("%s %.0f%%", x.name, 100*x.util)
	}
	s := "busy: " + strings.Join(parts, ", ")
	if rep.FLOPs > 0 && rep.MXUMacUtilization > 0 {
		s += fmt.Sprintf("; MXU MAC utilization %.1f%%", 100*rep.MXUMacUtilization)
	}
	return s
}

// robustness reruns the random inputs with each robustness variant and
// requires bit-identical outputs: a correctly synchronized kernel's result
// does not depend on timing, a racy one's does.
func (g *grader) robustness(prog *exe.Program, base map[string][]float64, baseOK bool, problem string) []Test {
	if g.lab.Score.Robustness == 0 {
		return nil
	}
	per := g.lab.Score.Robustness / float64(1+len(g.robust))
	det := Test{Name: "no race: the race detector", MaxScore: per}
	switch {
	case problem != "":
		det.Output, det.Cause = "not run: "+firstLine(problem), "load"
	case !baseOK:
		det.Output, det.Cause = "not run: the kernel must first be correct on the random inputs", "skipped"
	case g.baseRaces.Count > 0:
		det.Output, det.Cause = fmt.Sprintf("%d unordered accesses; the first: %s.", g.baseRaces.Count, g.baseRaces.Found[0]), "race"
	default:
		det.Score = per
		det.Output = "no two units touched the same bytes at once without a semaphore between them"
	}
	det.Output = g.pointTo(det.Output, det.Cause)
	tests := []Test{det}
	for _, v := range g.robust {
		t := Test{Name: "no race: same result with " + v.name, MaxScore: per}
		switch {
		case problem != "":
			t.Output, t.Cause = "not run: "+firstLine(problem), "load"
		case !baseOK:
			t.Output, t.Cause = "not run: the kernel must first be correct on the random inputs", "skipped"
		default:
			r := simulate(v.chip, prog, g.lab, g.sets[0].ins, 4*g.limit(g.variants[0]))
			g.step()
			if r.err != nil {
				cause, msg := failure(r.err)
				t.Output, t.Cause = "with "+strings.Join(v.sets, ", ")+": "+msg, cause
				break
			}
			if diff := firstDiff(g.lab, base, r.outs); diff != "" {
				t.Output = fmt.Sprintf("with %s the result changes: %s. The kernel's result depends on timing: a race, where two units touch the same buffer without a semaphore between them (a missing wait or signal).",
					strings.Join(v.sets, ", "), diff)
				t.Cause = "race"
				break
			}
			t.Score = per
			t.Output = fmt.Sprintf("identical outputs with %s (%d cycles)", strings.Join(v.sets, ", "), r.cycles)
		}
		t.Output = g.pointTo(t.Output, t.Cause)
		tests = append(tests, t)
	}
	return tests
}

// firstDiff names the first output element whose bits differ.
func firstDiff(l *labs.Lab, a, b map[string][]float64) string {
	for _, o := range l.Outputs {
		x, y := a[o.Name], b[o.Name]
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) && !(math.IsNaN(x[i]) && math.IsNaN(y[i])) {
				return fmt.Sprintf("%s is %s, was %s", index(o, i), num(y[i]), num(x[i]))
			}
		}
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
