package check

import (
	"fmt"
	"math"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
)

// NoiseFactor is how many times an output's measured rounding noise a
// result may differ from the reference by, beyond the dtype tolerance
// (docs/RATIONALE.md, "Checking what rounding decides").
const NoiseFactor = 16

// NoiseSamples is how many perturbed reference runs (seeds 1, 2, ...) may
// measure an output's rounding noise; the noise is the largest move any
// of them found. One sample of the largest move over a few hundred
// elements scatters by a factor of several between seeds (MobileNet-v2's
// output 302: 0.018 to 0.11), so a single one would fail an output on
// the luck of the draw. Check stops sampling once every output passes, so
// the common case costs one run.
const NoiseSamples = 3

// OutputCheck is one output's verdict.
type OutputCheck struct {
	Diff Diff // against the dtype tolerance alone
	// Noise is the most that Monte Carlo arithmetic moved an element of
	// the reference's output (absolute), over the perturbed runs taken;
	// -1 when it was not measured (the output matched without it).
	Noise float64
	// Within is the comparison with NoiseFactor*Noise added to every
	// element's tolerance, when Noise was measured.
	Within Diff
}

// Pass tells whether the output matches: within the dtype tolerance, or
// within it plus its measured rounding noise.
func (o OutputCheck) Pass() bool {
	return o.Diff.Mismatches == 0 || (o.Noise >= 0 && o.Within.Mismatches == 0)
}

// CheckReport is what Check found.
type CheckReport struct {
	Outputs []OutputCheck
	Failed  int // outputs that do not pass
	// Perturbed tells whether perturbed reference runs measured rounding
	// noise (only when some output was beyond the dtype tolerance), and
	// PerturbedRuns how many (at most NoiseSamples).
	Perturbed     bool
	PerturbedRuns int
	// PeakLiveElements is the most float64 values either reference run
	// held at once.
	PeakLiveElements int64
}

// Check compares got, a module's outputs computed elsewhere (the
// simulated chip), followed by its outfeed records' arrays
// (OutfeedLeaves), with the reference evaluator's on the same args and
// infeed records. ev gives the module, the infeed and the evaluator's
// limits; it runs the reference.
// When some output differs beyond its dtype tolerance, Check evaluates the
// module again with Monte Carlo arithmetic (Evaluator.Perturb, seeds 1 to
// NoiseSamples: deterministic) and measures how far rounding alone moves
// each of those outputs; an output within NoiseFactor times the largest
// move passes, and the report says so. A well-conditioned output moves by
// an ulp or two, so a wrong result still fails; an output that rounding
// decides (a gradient that cancels to noise) is not held to a precision
// the reference itself does not have. Sampling stops as soon as every
// output passes: a further sample can only raise the noise, so the
// verdict is the one all NoiseSamples runs would give.
func Check(ev *eval.Evaluator, args, got []*eval.Value) (*CheckReport, error) {
	want, err := Reference(ev, args)
	if err != nil {
		return nil, err
	}
	return CheckAgainst(ev, args, want, got)
}

// CheckAgainst is Check with the reference's outputs already computed
// (Reference, on the same ev and args): a module checked on several chips
// is evaluated once, not once a chip. ev is run again only for the noise
// samples, when some output differs.
func CheckAgainst(ev *eval.Evaluator, args, want, got []*eval.Value) (*CheckReport, error) {
	if len(want) != len(got) {
		return nil, fmt.Errorf("the module gave %d outputs, the reference %d (outfeed records' arrays included: the reference sent %d records)", len(got), len(want), len(ev.Outfeed))
	}
	rep := &CheckReport{Outputs: make([]OutputCheck, len(want)), PeakLiveElements: ev.PeakLiveElements()}
	var off []int
	for i := range want {
		rep.Outputs[i] = OutputCheck{Diff: Compare(got[i], want[i]), Noise: -1}
		if rep.Outputs[i].Diff.Mismatches > 0 {
			off = append(off, i)
		}
	}
	for seed := uint64(1); len(off) > 0 && seed <= NoiseSamples; seed++ {
		mc := &eval.Evaluator{File: ev.File, M: ev.M, MaxWhileIterations: ev.MaxWhileIterations, MaxHeapBytes: ev.MaxHeapBytes,
			MaxLiveElements: ev.MaxLiveElements, Seed: ev.Seed, Perturb: seed, Infeed: ev.Infeed}
		perturbed, err := Reference(mc, args)
		if err != nil {
			return nil, err
		}
		rep.Perturbed = true
		rep.PerturbedRuns++
		rep.PeakLiveElements = max(rep.PeakLiveElements, mc.PeakLiveElements())
		var still []int
		for _, i := range off {
			o := &rep.Outputs[i]
			o.Noise = max(o.Noise, Noise(perturbed[i], want[i]))
			o.Within = CompareWithin(got[i], want[i], NoiseFactor*o.Noise)
			if !o.Pass() {
				still = append(still, i)
			}
		}
		off = still
	}
	for _, o := range rep.Outputs {
		if !o.Pass() {
			rep.Failed++
		}
	}
	return rep, nil
}

// Noise is the largest absolute difference between a perturbed
// evaluation of an output and the reference's, over the elements both
// have finite.
func Noise(perturbed, want *eval.Value) float64 {
	var n float64
	if len(perturbed.Data) != len(want.Data) || hlo.IsWide(want.Shape.Elem) {
		return 0 // integers are not perturbed (and s64/u64 are bits)
	}
	for i, w := range want.Data {
		p := perturbed.Data[i]
		if math.IsNaN(p) || math.IsNaN(w) || math.IsInf(p, 0) || math.IsInf(w, 0) {
			continue
		}
		n = math.Max(n, math.Abs(p-w))
	}
	return n
}

// Reference runs the reference evaluator on args and returns what Check
// compares with: the module's outputs, a tuple's arrays one by one (depth
// first, as the chips number them), then its outfeed records' arrays.
func Reference(ev *eval.Evaluator, args []*eval.Value) ([]*eval.Value, error) {
	v, err := ev.Run(args)
	if err != nil {
		return nil, err
	}
	return append(eval.Leaves(v), eval.OutfeedLeaves(ev.Outfeed)...), nil
}
