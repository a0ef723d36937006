package lowering

import (
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/pass"
	"github.com/pulse-sim/pulse/hlo/rewrite"
	"github.com/pulse-sim/pulse/lowering/legalize"
)

// Options are the compiler's checks and views of its own work.
type Options struct {
	// VerifyPasses verifies the module after every pass of the pipeline.
	// It is always on under go test (testing.Testing), so every test that
	// compiles a module, the differential fuzzer among them, checks every
	// pass.
	VerifyPasses bool
	// DumpAfter selects passes by a regular expression matched against
	// their whole names; Dump receives the module after each (pulse compile
	// --dump-after).
	DumpAfter *regexp.Regexp
	Dump      func(index int, pass string, m *hlo.Module) error
}

// Pipeline is the passes Compile runs, in order, on a copy of the module
// before fusion and code generation, for chip (as Target gives it) on the
// devices d. Expansions from hlo/expand define ops; legalize's passes
// choose how Pulse's chips compute them.
func Pipeline(chip *config.Chip, d hlo.Devices) *pass.Pipeline {
	raggedAllToAll := expand.ExpandRaggedAllToAll // on one device: updates to itself
	if d.N() > 1 {
		raggedAllToAll = func(*hlo.Module) error { return nil } // the interconnect's
	}
	p := func(name string, run func(*hlo.Module) error) pass.Pass { return pass.Pass{Name: name, Run: run} }
	return &pass.Pipeline{Name: "lowering", Passes: []pass.Pass{
		p("expand-complex", expand.ExpandComplex),
		p("expand-short-async", expand.ExpandShortAsync),
		p("inline-calls", func(m *hlo.Module) error { legalize.InlineCalls(m); return nil }),
		p("remove-dead-code", legalize.RemoveDeadCode),
		p("split-tuple-constants", legalize.SplitTupleConstants),
		p("narrow-promoted-combiners", legalize.NarrowPromotedCombiners),
		p("expand-gemm-calls", expand.ExpandGemmCalls),
		p("expand-cudnn-convs", expand.ExpandCudnnConvs),
		p("expand-te-fused-attention", expand.ExpandTEFusedAttns),
		p("expand-cub-sorts", expand.ExpandCubSorts),
		p("expand-ragged-all-to-all", raggedAllToAll),
		p("top-k-calls-as-top-k", expand.TopKCallsAsTopK),
		p("expand-block-scaled-dots", expand.ExpandBlockScaledDots),
		p("expand-stochastic-converts", expand.ExpandStochasticConverts),
		p("expand-dynamic-gte", expand.ExpandDynamicGte),
		p("broadcast-clamp-bounds", legalize.BroadcastClampBounds),
		p("expand-rngs", expand.ExpandRngs),
		p("expand-rng-bit-generators", expand.ExpandRngBitGenerators),
		p("expand-maps", legalize.ExpandMaps),
		p("expand-top-ks", legalize.ExpandTopKsExcept(TopKFits(chip.Memory.SRAMBytes))),
		p("typed-bitcasts", expand.TypedBitcasts),
		p("expand-width-bitcasts", expand.ExpandWidthBitcasts),
		p("trivial-gathers-scatters", legalize.TrivialGathersScatters),
		p("widen-narrow-indices", legalize.WidenNarrowIndices),
		p("index-vectors-last", legalize.IndexVectorsLast),
		p("normalize-gathers", legalize.NormalizeGathers),
		p("split-variadic-scatters", legalize.SplitVariadicScatters),
		p("normalize-scatters", legalize.NormalizeScatters),
		p("expand-select-and-scatters", legalize.ExpandSelectAndScatters),
		p("expand-ragged-dots", expand.ExpandRaggedDots),
		p("expand-scaled-dots", expand.ExpandScaledDots),
		p("sort-dims-last", legalize.SortDimsLast(SortFits(chip.Memory.SRAMBytes))),
		p("expand-sorts", legalize.ExpandSortsExcept(SortFits(chip.Memory.SRAMBytes))),
		p("expand-total-order-compares", legalize.ExpandTotalOrderCompares),
		p("fold-concat-slices", legalize.FoldConcatSlices),
		p("simplify-identity-views", legalize.SimplifyIdentityViews),
		p("split-negative-pads", legalize.SplitNegativePads),
		p("expand-erf-and-activations", expand.ExpandErfAndActivations),
		p("expand-next-afters", expand.ExpandNextAfters),
		p("expand-erf-invs", expand.ExpandErfInvs),
		p("expand-erfcs", expand.ExpandErfcs),
		p("expand-bessel-i1es", expand.ExpandBesselI1es),
		p("expand-float-remainders", expand.ExpandFloatRemainders),
		p("static-dimension-sizes", legalize.StaticDimensionSizes),
		p("squeeze-transposes", legalize.SqueezeTransposes),
		p("expand-convolutions", legalize.ExpandConvolutionsFor(planeCorrelationFits(chip.Memory.SRAMBytes))),
		p("expand-reduce-windows", legalize.ExpandReduceWindows),
		p("expand-batch-norms", expand.ExpandBatchNorms),
		p("expand-choleskys", expand.ExpandCholeskys),
		p("expand-triangular-solves", expand.ExpandTriangularSolves),
		p("upcast-dots", func(m *hlo.Module) error {
			return legalize.UpcastDots(m, func(elem string) bool {
				return !slices.Contains(chip.MXU.DTypes, elem) && slices.Contains(chip.MXU.DTypes, "f32")
			}, func(elem string) bool { return slices.Contains(chip.MXU.DTypes, elem) })
		}),
		p("expand-vector-dots", func(m *hlo.Module) error {
			return legalize.ExpandVectorDots(m, func(elem string) bool {
				dt, ok := dtypeOf(elem)
				return ok && chip.MXUSupports(dt)
			}, maxVectorDotProducts)
		}),
		p("fold-broadcast-batches", legalize.FoldBroadcastBatches),
		p("swap-skinny-dots", func(m *hlo.Module) error {
			return legalize.SwapSkinnyDots(m, int64(chip.MXU.Rows), 4*int64(chip.MXU.Cols))
		}),
		p("fold-dot-transposes", func(m *hlo.Module) error { return legalize.FoldDotTransposes(m, awkwardDot) }),
		p("canonicalize-dots", func(m *hlo.Module) error { return legalize.CanonicalizeDots(m, awkwardDot) }),
		p("expand-general-reduces", legalize.ExpandGeneralReduces),
		p("split-reduction-runs", func(m *hlo.Module) error { return legalize.SplitReductionRuns(m, maxReduceRun(chip)) }),
		p("unroll-narrow-reductions", legalize.UnrollNarrowReductions),
	}}
}

// runPipeline runs p on m, mapping a pass's refusal to the compiler's
// positioned Error once, here.
func runPipeline(file string, m *hlo.Module, p *pass.Pipeline, opts Options) error {
	err := p.Run(file, m, pass.Options{Verify: opts.VerifyPasses || testing.Testing(), DumpAfter: opts.DumpAfter, Dump: opts.Dump})
	e, ok := pass.Failed(err)
	if !ok || e.Verify {
		return err
	}
	var x *rewrite.ExpandError
	if errors.As(e.Err, &x) {
		return &Error{File: file, Pos: x.Pos, Op: x.Name, Opcode: x.Opcode, Reason: x.Reason}
	}
	return e.Err
}
