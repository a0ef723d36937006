package lowering_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// timingOf is a run's report and kernel table without what says which
// mode made it: what a timing-only run must reproduce exactly.
func timingOf(t *testing.T, r *runtime.Result) string {
	rep := *r.Report
	rep.TimingOnly, rep.Slice = false, nil
	b, err := json.MarshalIndent(struct {
		Report  any
		Kernels []runtime.KernelStats
	}{&rep, r.Kernels}, "", " ")
	require.NoError(t, err)
	return string(b)
}

// bothModes runs x with values and timing-only on the same arguments and
// requires the same outcome: the same error, or the same report and
// kernel table to the last figure. It returns the timing-only result.
func bothModes(t *testing.T, client *runtime.Client, x *runtime.Executable, args []*eval.Value, maxCycles int64, infeed ...*eval.Value) (*runtime.Result, error) {
	t.Helper()
	v, verr := client.Execute(x, args, runtime.ExecOptions{MaxCycles: maxCycles, Infeed: infeed})
	tm, terr := client.Execute(x, args, runtime.ExecOptions{MaxCycles: maxCycles, TimingOnly: true, Infeed: infeed})
	if verr != nil {
		require.Error(t, terr, "the value run failed: %v", verr)
		require.Equal(t, verr.Error(), terr.Error())
		return nil, verr
	}
	require.NoError(t, terr)
	require.Equal(t, timingOf(t, v), timingOf(t, tm))
	return tm, nil
}

func compileText(t *testing.T, chipName, text string) (*runtime.Client, *runtime.Executable, *hlo.Module) {
	t.Helper()
	m, err := hlo.Parse("m.hlo", text)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("m.hlo", m))
	c, err := config.Load(chipName, nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	x, err := client.Compile("m.hlo", m)
	require.NoError(t, err)
	return client, x, m
}

// A while loop whose counter starts from a parameter.
const whileFromParam = `HloModule w
cond {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(20)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x = f32[64] get-tuple-element(p), index=1
  x1 = f32[64] multiply(x, x)
  ROOT t = (s32[], f32[64]) tuple(i1, x1)
}
ENTRY e {
  start = s32[] parameter(0)
  x = f32[64] parameter(1)
  t = (s32[], f32[64]) tuple(start, x)
  w = (s32[], f32[64]) while(t), condition=cond, body=body
  ROOT r = f32[64] get-tuple-element(w), index=1
}
`

// A loop that runs until a reduced value crosses a threshold.
const untilSumCrosses = `HloModule u
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (f32[128], s32[]) parameter(0)
  x = f32[128] get-tuple-element(p), index=0
  zero = f32[] constant(0)
  s = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  lim = f32[] constant(5000)
  ROOT lt = pred[] compare(s, lim), direction=LT
}
body {
  p = (f32[128], s32[]) parameter(0)
  x = f32[128] get-tuple-element(p), index=0
  k = f32[] constant(1.5)
  kb = f32[128] broadcast(k), dimensions={}
  one = f32[] constant(1)
  ob = f32[128] broadcast(one), dimensions={}
  x1 = f32[128] multiply(x, kb)
  x2 = f32[128] add(x1, ob)
  c = s32[] get-tuple-element(p), index=1
  ci = s32[] constant(1)
  c1 = s32[] add(c, ci)
  ROOT t = (f32[128], s32[]) tuple(x2, c1)
}
ENTRY e {
  x = f32[128] parameter(0)
  c0 = s32[] constant(0)
  t = (f32[128], s32[]) tuple(x, c0)
  w = (f32[128], s32[]) while(t), condition=cond, body=body
  ROOT n = s32[] get-tuple-element(w), index=1
}
`

// TestTimingOnlyDataDependentLoops: loops whose trip count comes from data
// take the same cycles timing-only as with values, on both chips; without
// the parameter that steers them a timing-only run refuses.
func TestTimingOnlyDataDependentLoops(t *testing.T) {
	for _, chipName := range []string{"teach16", "tpuv4core"} {
		t.Run("while from a parameter/"+chipName, func(t *testing.T) {
			client, x, m := compileText(t, chipName, whileFromParam)
			cycles := map[float64]int64{}
			for _, start := range []float64{5, 15} {
				args, err := eval.RandomArgs(m, 1)
				require.NoError(t, err)
				args[0], err = eval.Filled(args[0].Shape, start)
				require.NoError(t, err)
				r, err := bothModes(t, client, x, args, 1e8)
				require.NoError(t, err)
				cycles[start] = r.Report.Cycles
				require.True(t, r.Report.Slice.ControlDependsOnData)
			}
			require.Greater(t, cycles[5], cycles[15], "15 iterations take longer than 5")
			_, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true})
			var ne *runtime.NeedsInputError
			require.ErrorAs(t, err, &ne)
			require.Contains(t, err.Error(), "parameter 0 (start)")
		})
		t.Run("until a sum crosses a threshold/"+chipName, func(t *testing.T) {
			client, x, m := compileText(t, chipName, untilSumCrosses)
			args, err := eval.RandomArgs(m, 3)
			require.NoError(t, err)
			r, err := bothModes(t, client, x, args, 1e8)
			require.NoError(t, err)
			require.True(t, r.Report.Slice.ControlDependsOnData)
			v, err := client.Execute(x, args, runtime.ExecOptions{})
			require.NoError(t, err)
			require.Greater(t, v.Outputs[0].Data[0], 3.0, "the loop ran several times")
		})
	}
}

// TestTimingOnlyCorpus: every corpus module that compiles and fits the
// test's budget gives the same report timing-only as with values (random
// inputs, seed 1), on both chips.
func TestTimingOnlyCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.hlo"))
	if len(files) == 0 {
		t.Skip("corpus not present")
	}
	budget := int64(1 << 22)
	if *full {
		budget = 1 << 31
	}
	for _, chipName := range []string{"teach16", "tpuv4core"} {
		c, err := config.Load(chipName, nil)
		require.NoError(t, err)
		client := &runtime.Client{Chip: c}
		n := 0
		for _, f := range files {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			m, err := hlo.Parse(filepath.Base(f), string(src))
			if err != nil || verify.Verify(filepath.Base(f), m) != nil {
				continue
			}
			if eval.ParamElements(m) > budget || float64(analysis.ComputeStats(m).Total.FLOPs) > float64(budget)*256 {
				continue
			}
			x, err := client.Compile(filepath.Base(f), m)
			if err != nil {
				continue
			}
			args, err := eval.RandomArgsWithin(m, 1, budget)
			if err != nil {
				continue
			}
			bindHyperparameters(t, filepath.Base(f), m, args)
			infeed, _ := eval.RandomInfeed(m, 1, 8) // as the coverage test feeds it
			t.Run(chipName+"/"+filepath.Base(f), func(t *testing.T) {
				bothModes(t, client, x, args, 2e9, infeed...)
			})
			n++
		}
		t.Logf("%s: %d corpus modules run both ways", chipName, n)
	}
}

// TestTimingOnlyXLAControlFlow: XLA's test modules with while loops or
// conditionals that compile for teach16 give the same report timing-only
// as with values (or the same error, such as the cycle limit of a loop
// that never ends).
func TestTimingOnlyXLAControlFlow(t *testing.T) {
	f, err := os.Open("../../shared/corpus/hlo-xla-tests.jsonl")
	if err != nil {
		t.Skip("corpus not present")
	}
	defer f.Close()
	c, err := config.Load("teach16", nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var ran, steered, failed int
	for sc.Scan() {
		var tc struct {
			Source string `json:"source"`
			Line   int    `json:"line"`
			Text   string `json:"text"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &tc))
		if !strings.Contains(tc.Text, " while(") && !strings.Contains(tc.Text, " conditional(") {
			continue
		}
		m, err := hlo.Parse("case.hlo", tc.Text)
		if err != nil || verify.Verify("case.hlo", m) != nil || largest(m) > 1<<16 {
			continue
		}
		x, err := client.Compile("case.hlo", m)
		if err != nil {
			continue
		}
		args, err := eval.RandomArgsWithin(m, 2, 1<<16)
		if err != nil {
			continue
		}
		name := tc.Source + ":" + strings.TrimSpace(strings.Split(tc.Text, "\n")[0])
		infeed, _ := eval.RandomInfeed(m, 2, 8)
		t.Run(name, func(t *testing.T) {
			r, err := bothModes(t, client, x, args, 2e6, infeed...)
			if err != nil {
				failed++
				return
			}
			if r.Report.Slice.ControlDependsOnData {
				steered++
			}
		})
		ran++
	}
	t.Logf("%d XLA-test modules with control flow run both ways (%d steered by data, %d fail the same way in both)", ran, steered, failed)
	require.Greater(t, ran, 20)
}

// TestDataflowsComputeTheSame: the lowering tiles for the chip's dataflow
// (os: blocks of rows x cols outputs with K streamed; is: blocks of cols
// rows of inputs with N streamed); every corpus module that compiles and
// fits a small budget gives the evaluator's outputs on each, on both chips.
func TestDataflowsComputeTheSame(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.hlo"))
	if len(files) == 0 {
		t.Skip("corpus not present")
	}
	for _, df := range []string{"os", "is"} {
		for _, chipName := range []string{"teach16", "tpuv4core"} {
			c, err := config.Load(chipName, []string{"mxu.dataflow=" + df})
			require.NoError(t, err)
			client := &runtime.Client{Chip: c}
			for _, f := range files {
				src, err := os.ReadFile(f)
				require.NoError(t, err)
				m, err := hlo.Parse(filepath.Base(f), string(src))
				if err != nil || verify.Verify(filepath.Base(f), m) != nil || eval.ParamElements(m) > 1<<20 {
					continue
				}
				if float64(analysis.ComputeStats(m).Total.FLOPs) > 2e9 {
					continue
				}
				x, err := client.Compile(filepath.Base(f), m)
				if err != nil {
					continue
				}
				args, err := eval.RandomArgsWithin(m, 1, 1<<20)
				if err != nil {
					continue
				}
				bindHyperparameters(t, filepath.Base(f), m, args)
				infeed, _ := eval.RandomInfeed(m, 1, 8)
				t.Run(df+"/"+chipName+"/"+filepath.Base(f), func(t *testing.T) {
					r, err := client.Execute(x, args, runtime.ExecOptions{MaxCycles: 2e9, Infeed: infeed})
					require.NoError(t, err)
					got := append(r.Outputs, eval.OutfeedLeaves(r.Outfeed)...)
					rep, err := check.Check(&eval.Evaluator{File: filepath.Base(f), M: m, MaxLiveElements: 1 << 26, Infeed: infeed}, args, got)
					require.NoError(t, err)
					for i, o := range rep.Outputs {
						require.True(t, o.Pass(), "output %d: %d elements beyond tolerance", i, o.Diff.Mismatches)
					}
				})
			}
		}
	}
}

// TestDataflowMagnitudes: a 1024^3 bf16 dot on one 128x128 MXU with
// unlimited bandwidth takes, on each dataflow, between the compute bound
// (65,536 cycles) and 1.1x SCALE-Sim's law for that dataflow.
func TestDataflowMagnitudes(t *testing.T) {
	law := map[string]int64{"ws": 89_983, "os": 81_791, "is": 89_983}
	for df, l := range law {
		c, err := config.Load("tpuv4core", []string{"mxu.count=1", "hbm.bandwidth_gbps=1000000", "mxu.dataflow=" + df})
		require.NoError(t, err)
		client := &runtime.Client{Chip: c}
		m, err := hlo.Parse("g.hlo", `ENTRY e {
  a = bf16[1024,1024] parameter(0)
  b = bf16[1024,1024] parameter(1)
  ROOT d = f32[1024,1024] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`)
		require.NoError(t, err)
		x, err := client.Compile("g.hlo", m)
		require.NoError(t, err)
		r, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true})
		require.NoError(t, err)
		t.Logf("%s: %d cycles (SCALE-Sim law %d)", df, r.Report.Cycles, l)
		require.GreaterOrEqual(t, r.Report.Cycles, int64(65_536), df)
		require.LessOrEqual(t, float64(r.Report.Cycles), 1.1*float64(l), df)
	}
}

// An index taken from the constant part of a concatenation whose other
// part is a parameter: the HLO's slice takes the whole concatenation (and
// so the parameter), the run's slice only the constant's bytes. (Strided,
// so that legalize.FoldConcatSlices leaves it: a slice of stride 1 within
// one part reads that part alone.)
const indexBesideParam = `HloModule i
ENTRY e {
  x = s32[3] parameter(0)
  data = f32[8,16] parameter(1)
  c = s32[1] constant({2})
  cat = s32[4] concatenate(c, x), dimensions={0}
  i1 = s32[1] slice(cat), slice={[0:2:2]}
  i = s32[] reshape(i1)
  z = s32[] constant(0)
  ROOT d = f32[2,16] dynamic-slice(data, i, z), dynamic_slice_sizes={2,16}
}
`

// TestTimingOnlySeed: the compiler's static slice (Compiled.Steering)
// lets a timing-only run find what control flow reads in one run where the
// search took several, with the value run's cycles; where the static slice
// reaches an input the run was not given, the search starts over without
// it and still succeeds.
func TestTimingOnlySeed(t *testing.T) {
	client, x, m := compileText(t, "tpuv4core", scanLoop)
	require.NotNil(t, x.Steering)
	args, err := eval.RandomArgs(m, 1)
	require.NoError(t, err)
	seeded, err := bothModes(t, client, x, args, 1e8)
	require.NoError(t, err)
	require.True(t, seeded.Report.Slice.ControlDependsOnData)
	require.Equal(t, 1, seeded.Report.Slice.Runs)
	unseeded := *x.Compiled
	unseeded.Steering = nil
	searched, err := client.Execute(&runtime.Executable{Compiled: &unseeded}, args, runtime.ExecOptions{TimingOnly: true})
	require.NoError(t, err)
	require.Equal(t, seeded.Report.Cycles, searched.Report.Cycles)
	require.Greater(t, searched.Report.Slice.Runs, 1, "without the seed the search takes several runs")

	client, x, m = compileText(t, "tpuv4core", indexBesideParam)
	require.NotNil(t, x.Steering)
	args, err = eval.RandomArgs(m, 1)
	require.NoError(t, err)
	want, err := client.Execute(x, args, runtime.ExecOptions{})
	require.NoError(t, err)
	got, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true})
	require.NoError(t, err, "the seed read x, which the index does not need")
	require.Equal(t, want.Report.Cycles, got.Report.Cycles)
}

// A scan over stacked weights whose layer order comes from a statistic
// of its input (a chain of kernels larger than the ones ref computes
// eagerly), then the loop's counter.
const scanLoop = `HloModule scan
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], f32[4,128,128], f32[8,128], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4,128,128], f32[8,128], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ws = f32[4,128,128] get-tuple-element(p), index=1
  x = f32[8,128] get-tuple-element(p), index=2
  k = s32[] get-tuple-element(p), index=3
  one = s32[] constant(1)
  four = s32[] constant(4)
  ik = s32[] add(i, k)
  j = s32[] remainder(ik, four)
  next = s32[] add(i, one)
  z = s32[] constant(0)
  w3 = f32[1,128,128] dynamic-slice(ws, j, z, z), dynamic_slice_sizes={1,128,128}
  w = f32[128,128] reshape(w3)
  y = f32[8,128] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  act = f32[8,128] tanh(y)
  ROOT t = (s32[], f32[4,128,128], f32[8,128], s32[]) tuple(next, ws, act, k)
}
ENTRY e {
  ws = f32[4,128,128] parameter(0)
  x = f32[8,128] parameter(1)
  sq = f32[8,128] multiply(x, x)
  zf = f32[] constant(0)
  s = f32[] reduce(sq, zf), dimensions={0,1}, to_apply=add
  si = s32[] convert(s)
  c0 = s32[] constant(0)
  t = (s32[], f32[4,128,128], f32[8,128], s32[]) tuple(c0, ws, x, si)
  w = (s32[], f32[4,128,128], f32[8,128], s32[]) while(t), condition=cond, body=body
  ROOT r = f32[8,128] get-tuple-element(w), index=2
}
`
