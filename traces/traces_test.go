package traces_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/pulse-sim/pulse/sim"
	"github.com/pulse-sim/pulse/traces"
	"github.com/stretchr/testify/require"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// run is one observed run of a program or a compiled module.
type run struct {
	src     *traces.Source
	model   *core.Model
	report  *chip.Report
	kernels []traces.KernelStats
}

func chipFor(t testing.TB, name string, sets ...string) *config.Chip {
	c, err := config.Load(name, sets)
	require.NoError(t, err)
	return c
}

// runProgram simulates a hand-written example kernel, timing only.
func runProgram(t testing.TB, file string, c *config.Chip, obs func(*traces.Source) []core.Observer) *run {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	prog, err := asm.Assemble(file, b, asm.Options{})
	require.NoError(t, err)
	src := traces.ProgramSource(prog, file)
	k := traces.NewKernels(src)
	m, err := chip.Simulate(c, prog, nil, chip.Options{TimingOnly: true, Observers: append([]core.Observer{k}, obs(src)...)})
	require.NoError(t, err)
	return &run{src: src, model: m, report: chip.NewReport(file, m, true), kernels: k.Stats()}
}

// runHLO compiles and simulates an HLO module through the runtime, timing only.
func runHLO(t testing.TB, text string, c *config.Chip, obs func(*traces.Source) []core.Observer) *run {
	t.Helper()
	m, err := hlo.Parse("m.hlo", text)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("m.hlo", m))
	client := &runtime.Client{Chip: c}
	x, err := client.Compile("m.hlo", m)
	require.NoError(t, err)
	src := x.Source("m.hlo", "m.s")
	r, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true, Observers: obs(src)})
	require.NoError(t, err)
	return &run{src: src, model: r.Model, report: r.Report, kernels: r.Kernels}
}

const gemmHLO = `ENTRY e {
  a = bf16[512,1024] parameter(0)
  b = bf16[1024,512] parameter(1)
  ROOT d = f32[512,512] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`

const softmaxHLO = `HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[512,1024] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[512] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[512,1024] broadcast(mx), dimensions={0}
  s = f32[512,1024] subtract(x, mb)
  ex = f32[512,1024] exponential(s)
  z = f32[] constant(0)
  sm = f32[512] reduce(ex, z), dimensions={1}, to_apply=add
  sb = f32[512,1024] broadcast(sm), dimensions={0}
  ROOT o = f32[512,1024] divide(ex, sb)
}`

// stretches checks what every unit reports through sim.HookState: one
// stretch after another from time 0, with no gap and no overlap.
type stretches struct {
	m     *core.Model
	next  map[int]sim.Time
	total map[int]map[string]sim.Time
	err   error
}

func (s *stretches) Attach(m *core.Model) {
	s.m, s.next, s.total = m, map[int]sim.Time{}, map[int]map[string]sim.Time{}
	m.Seq.AcceptHook(s)
	for _, u := range m.Units {
		u.AcceptHook(s)
	}
}

func (s *stretches) Func(ctx *sim.HookCtx) {
	if ctx.Pos != sim.HookState || s.err != nil {
		return
	}
	if ctx.Start != s.next[ctx.Unit] || ctx.Now <= ctx.Start {
		s.err = fmt.Errorf("unit %d: stretch [%d, %d) after time %d", ctx.Unit, ctx.Start, ctx.Now, s.next[ctx.Unit])
	}
	if ctx.Reason != "idle" && ctx.PC < 0 {
		s.err = fmt.Errorf("unit %d: %s stretch [%d, %d) belongs to no instruction", ctx.Unit, ctx.Reason, ctx.Start, ctx.Now)
	}
	s.next[ctx.Unit] = ctx.Now
	if s.total[ctx.Unit] == nil {
		s.total[ctx.Unit] = map[string]sim.Time{}
	}
	s.total[ctx.Unit][ctx.Reason] += ctx.Now - ctx.Start
}

// Every moment of every unit is attributed: busy or a named stall, and
// the stretches of a unit add up to the run's length.
func TestStallAttributionCoversEveryCycle(t *testing.T) {
	kernels := []string{"gemm256.s", "softmax.s", "layernorm.s", "stream.s", "vadd.s", "gemm_tile.s"}
	chips := []struct {
		name string
		sets []string
	}{{"teach16", []string{"dma.engines=2"}}, {"tpuv4core", nil}, {"tpuv4core", []string{"hbm.model=banked"}}}
	// gemm256.s and stream.s are written for a larger chip than teach16
	// (128x128 weight tiles, 1 MiB of SRAM): there they fault, timing-only
	// or not.
	tooBig := map[string]bool{"gemm256.s/teach16": true, "stream.s/teach16": true}
	for _, k := range kernels {
		for _, ch := range chips {
			if tooBig[k+"/"+ch.name] {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s%v", k, ch.name, ch.sets), func(t *testing.T) {
				s := &stretches{}
				r := runProgram(t, filepath.Join("../examples/kernels", k), chipFor(t, ch.name, ch.sets...),
					func(*traces.Source) []core.Observer { return []core.Observer{s} })
				require.NoError(t, s.err)
				end := r.model.End()
				units := map[int]*core.Accounting{-1: r.model.Seq.Accounting()}
				for _, u := range r.model.Units {
					units[u.Index] = u.Accounting()
				}
				for i, acct := range units {
					require.Equal(t, end, s.next[i], "unit %d: the stretches reach the end of the run", i)
					for _, st := range core.States() {
						require.Equal(t, acct.T[st], s.total[i][st.String()], "unit %d: %s time", i, st)
					}
				}
				for name, u := range r.report.Units {
					st := r.report.Stalls[name]
					require.Equal(t, r.report.Cycles, u.BusyCycles+st.Semaphore+st.Structural+st.Memory+st.BankConflict+st.Idle, name)
					require.GreaterOrEqual(t, st.Idle, int64(0), name)
				}
				require.LessOrEqual(t, r.report.SRAMBankConflictStallCycles, r.report.Cycles)
				require.LessOrEqual(t, r.report.ACCBankConflictStallCycles, r.report.Cycles)
			})
		}
	}
}

// The profile's totals per unit and sample type equal the report's, after
// a round trip through the encoded profile.
func TestProfileTotalsEqualReport(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, obs func(*traces.Source) []core.Observer) *run
	}{
		{"gemm256.s", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runProgram(t, "../examples/kernels/gemm256.s", chipFor(t, "tpuv4core"), obs)
		}},
		{"stream.s banked", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runProgram(t, "../examples/kernels/stream.s", chipFor(t, "tpuv4core", "hbm.model=banked", "dma.engines=2"), obs)
		}},
		{"gemm HLO", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runHLO(t, gemmHLO, chipFor(t, "tpuv4core"), obs)
		}},
		{"softmax HLO", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runHLO(t, softmaxHLO, chipFor(t, "teach16"), obs)
		}},
		{"gemm HLO on two cores", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runHLO(t, gemmHLO, chipFor(t, "tpuv4"), obs)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p *traces.Profile
			r := c.run(t, func(src *traces.Source) []core.Observer {
				p = traces.NewProfile(src)
				return []core.Observer{p}
			})
			var buf bytes.Buffer
			require.NoError(t, p.Write(&buf, r.report))
			pr, err := profile.Parse(&buf)
			require.NoError(t, err)
			require.NoError(t, pr.CheckValid())
			got := map[string][]int64{}
			for _, s := range pr.Sample {
				u := s.Label["unit"]
				require.Len(t, u, 1)
				if got[u[0]] == nil {
					got[u[0]] = make([]int64, len(pr.SampleType))
				}
				for i, v := range s.Value {
					got[u[0]][i] += v
				}
			}
			require.Len(t, got, len(r.report.Units))
			for name, u := range r.report.Units {
				st := r.report.Stalls[name]
				require.Equal(t, []int64{u.BusyCycles, st.Semaphore, st.Structural, st.Memory, st.BankConflict, st.Idle}, got[name][:6], name)
			}
			// energy_pj adds up to the instructions' dynamic energy (all but
			// DRAM activations and refreshes), within a pJ a sample.
			var pj int64
			for _, v := range got {
				pj += v[6]
			}
			e := r.report.Energy
			want := (e.DynamicJoules - e.ByAction["hbm_activate"] - e.ByAction["hbm_refresh"]) * 1e12
			require.InDelta(t, want, float64(pj), float64(len(pr.Sample))+1e-9*want)
			var types []string
			for _, st := range pr.SampleType {
				types = append(types, st.Type+"/"+st.Unit)
			}
			require.Equal(t, []string{"busy/cycles", "semaphore_wait/cycles", "structural_stall/cycles", "memory_wait/cycles", "bank_conflict_stall/cycles", "idle/cycles", "energy_pj/picojoules"}, types)
		})
	}
}

// The stacks of a compiled module: HLO fusion -> HLO instruction ->
// kernel -> instruction, with the HLO and assembly lines.
func TestProfileStacksOfCompiledModule(t *testing.T) {
	var p *traces.Profile
	r := runHLO(t, softmaxHLO, chipFor(t, "tpuv4core"), func(src *traces.Source) []core.Observer {
		p = traces.NewProfile(src)
		return []core.Observer{p}
	})
	pr := p.Build(r.report)
	kernels := map[string]bool{}
	for _, k := range r.src.Kernels {
		kernels[k.Name] = true
	}
	deep := 0
	for _, s := range pr.Sample {
		locs := s.Location
		leaf := locs[0].Line[0]
		if strings.HasPrefix(leaf.Function.Name, "(no instruction") {
			require.Equal(t, int64(0), s.Value[0], "idle time only")
			continue
		}
		require.Equal(t, "m.s", leaf.Function.Filename, "the instruction frame is in the assembly")
		require.Positive(t, leaf.Line)
		root := locs[len(locs)-1].Line[0]
		if len(locs) >= 3 {
			require.True(t, kernels[root.Function.Name], "the root frame %q is a fusion", root.Function.Name)
			require.Equal(t, "m.hlo", root.Function.Filename)
			require.True(t, strings.HasPrefix(locs[1].Line[0].Function.Name, "kernel k"), locs[1].Line[0].Function.Name)
		}
		if len(locs) == 4 {
			deep++
			require.True(t, strings.HasPrefix(locs[2].Line[0].Function.Name, root.Function.Name+"/"), "HLO instruction %q inside %q", locs[2].Line[0].Function.Name, root.Function.Name)
			require.Equal(t, "m.hlo", locs[2].Line[0].Function.Filename)
		}
	}
	require.Positive(t, deep, "some instructions implement an HLO instruction inside their fusion")
}

// A timeline of a GEMM and a softmax, hand-written and compiled, passes
// the Chrome Trace Event check, with the tracks and counters promised.
func TestTimelineIsAValidChromeTrace(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, obs func(*traces.Source) []core.Observer) *run
	}{
		{"gemm256.s banked", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runProgram(t, "../examples/kernels/gemm256.s", chipFor(t, "tpuv4core", "hbm.model=banked"), obs)
		}},
		{"softmax.s", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runProgram(t, "../examples/kernels/softmax.s", chipFor(t, "teach16"), obs)
		}},
		{"gemm HLO", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runHLO(t, gemmHLO, chipFor(t, "tpuv4core"), obs)
		}},
		{"softmax HLO", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runHLO(t, softmaxHLO, chipFor(t, "tpuv4core"), obs)
		}},
		{"softmax HLO on two cores", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runHLO(t, softmaxHLO, chipFor(t, "tpuv4"), obs)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tl *traces.Timeline
			r := c.run(t, func(src *traces.Source) []core.Observer {
				tl = traces.NewTimeline(src, traces.TimelineOptions{})
				return []core.Observer{tl}
			})
			var buf bytes.Buffer
			require.NoError(t, tl.WriteJSON(&buf))
			st := checkChromeTrace(t, buf.Bytes())
			require.True(t, st.tracks["kernels"] && st.tracks["scalar"])
			for _, cm := range append([]*core.Model{r.model}, r.model.Cores[min(1, len(r.model.Cores)):]...) {
				for _, u := range cm.Units {
					require.True(t, st.tracks[u.Name], "track for %s", u.Name)
				}
			}
			if len(r.model.Cores) > 1 {
				require.True(t, st.tracks["core1.scalar"] && st.counterNames["queue depth core1.dma0"], "core 1's tracks")
			}
			require.True(t, st.counterNames["HBM (GB/s)"], "HBM bandwidth counter")
			if r.model.HBM.Channels() > 1 {
				require.True(t, st.counterNames["HBM ch0 (GB/s)"], "per-channel counters")
			}
			require.True(t, st.counterNames["queue depth dma0"], "queue depth counter")
			stallSlicesMatchReport(t, buf.Bytes(), r)
			require.True(t, st.counterNames["SRAM touched by the running kernel (bytes)"], "SRAM counter")
			// Within two core cycles: slices end on the cycle their
			// unit's state changed, the run at its last event (a
			// completion a fraction of a cycle later).
			require.InDelta(t, float64(r.model.End())/1000, float64(st.maxEnd), 2e3/r.model.Clock.MHz(), "the last slice ends with the run (ns)")
			require.Less(t, len(buf.Bytes())/(st.slices+st.counters+st.metadata), 220, "bytes per event (the event cap relies on it)")
			ok, _ := tl.Truncated()
			require.False(t, ok)
			// Same input, same bytes out.
			var again bytes.Buffer
			var tl2 *traces.Timeline
			c.run(t, func(src *traces.Source) []core.Observer {
				tl2 = traces.NewTimeline(src, traces.TimelineOptions{})
				return []core.Observer{tl2}
			})
			require.NoError(t, tl2.WriteJSON(&again))
			require.Equal(t, buf.Bytes(), again.Bytes())
		})
	}
}

// stallSlicesMatchReport checks that each unit's stall slices in a trace
// add up to the report's stalls of that kind, so a slice is named for the
// state it shows (a bank-conflict stall once read "idle").
func stallSlicesMatchReport(t *testing.T, data []byte, r *run) {
	t.Helper()
	var top struct {
		TraceEvents []struct {
			Ph   string         `json:"ph"`
			Name string         `json:"name"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Dur  float64        `json:"dur"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &top))
	track := map[[2]int]string{}
	for _, e := range top.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			track[[2]int{e.Pid, e.Tid}], _ = e.Args["name"].(string)
		}
	}
	got := map[string]map[string]float64{} // unit -> slice name -> ns
	for _, e := range top.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		u := track[[2]int{e.Pid, e.Tid}]
		if got[u] == nil {
			got[u] = map[string]float64{}
		}
		got[u][e.Name] += e.Dur * 1000
	}
	ns := 1000 / r.model.Clock.MHz()
	for name, st := range r.report.Stalls {
		if _, ok := r.report.Units[name]; !ok || got[name] == nil {
			continue
		}
		for slice, cycles := range map[string]int64{"semaphore wait": st.Semaphore, "structural stall": st.Structural,
			"memory wait": st.Memory, "bank conflict stall": st.BankConflict} {
			want := float64(cycles) * ns
			require.InDelta(t, want, got[name][slice], 0.01*want+4*ns, "%s: %s slices against the report", name, slice)
		}
		require.LessOrEqual(t, got[name]["idle"], float64(st.Idle)*ns+4*ns, "%s: idle slices", name)
	}
}

// A window keeps only its cycles; the cap stops recording with a note.
func TestTimelineWindowAndCap(t *testing.T) {
	c := chipFor(t, "tpuv4core")
	var tl *traces.Timeline
	r := runProgram(t, "../examples/kernels/gemm256.s", c, func(src *traces.Source) []core.Observer {
		tl = traces.NewTimeline(src, traces.TimelineOptions{Start: 1000, End: 2000})
		return []core.Observer{tl}
	})
	var buf bytes.Buffer
	require.NoError(t, tl.WriteJSON(&buf))
	st := checkChromeTrace(t, buf.Bytes())
	lo, hi := int64(r.model.Clock.Time(1000)+500)/1000, int64(r.model.Clock.Time(2000)+500)/1000
	require.GreaterOrEqual(t, st.minTS, lo)
	require.LessOrEqual(t, st.maxEnd, hi)
	require.Positive(t, st.slices)

	runProgram(t, "../examples/kernels/gemm256.s", c, func(src *traces.Source) []core.Observer {
		tl = traces.NewTimeline(src, traces.TimelineOptions{MaxEvents: 40})
		return []core.Observer{tl}
	})
	buf.Reset()
	require.NoError(t, tl.WriteJSON(&buf))
	st = checkChromeTrace(t, buf.Bytes())
	ok, note := tl.Truncated()
	require.True(t, ok)
	require.Contains(t, note, "cap of 40 events")
	require.Equal(t, 1, st.instants, "the trace says where it stops")
	require.LessOrEqual(t, st.slices, 40)
}

func TestRooflineChart(t *testing.T) {
	for _, c := range []struct{ name, hlo string }{{"gemm", gemmHLO}, {"softmax", softmaxHLO}} {
		t.Run(c.name, func(t *testing.T) {
			r := runHLO(t, c.hlo, chipFor(t, "tpuv4core"), func(*traces.Source) []core.Observer { return nil })
			rl := &traces.Roofline{Title: c.name, PeakFLOPs: r.report.PeakFLOPsPerSecond, PeakBytes: r.report.HBM.PeakBytesPerSecond}
			for _, k := range r.kernels {
				rl.Points = append(rl.Points, traces.RooflinePoint{Label: k.Name, FLOPs: k.FLOPs, Bytes: k.Bytes, Seconds: float64(k.Cycles) / (r.report.ClockMHz * 1e6)})
			}
			require.NotEmpty(t, rl.Points)
			var svg, pngBuf bytes.Buffer
			require.NoError(t, rl.WriteTo(&svg, "svg"))
			require.Contains(t, svg.String(), "<svg")
			require.Contains(t, svg.String(), "arithmetic intensity")
			longest := r.kernels[0]
			for _, k := range r.kernels {
				if k.Cycles > longest.Cycles {
					longest = k
				}
			}
			require.Contains(t, svg.String(), ">"+longest.Name+"<", "the kernel that took longest is labelled")
			require.NoError(t, rl.WriteTo(&pngBuf, "png"))
			img, err := png.Decode(&pngBuf)
			require.NoError(t, err)
			require.Greater(t, img.Bounds().Dx(), 500)
			path := filepath.Join(t.TempDir(), "r.svg")
			require.NoError(t, rl.Save(path))
			require.FileExists(t, path)
		})
	}
	require.Error(t, (&traces.Roofline{}).WriteTo(io.Discard, "svg"), "a chip without peaks has no roofline")
	require.ErrorContains(t, (&traces.Roofline{PeakFLOPs: 1, PeakBytes: 1}).Save(filepath.Join(t.TempDir(), "r.txt")), "unknown chart format")
}

// go tool pprof reads the profiles of a GEMM and a softmax, hand-written
// and compiled (when the go command is at hand).
func TestPprofReadsProfile(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cases := []struct {
		name, leaf string
		run        func(t *testing.T, obs func(*traces.Source) []core.Observer) *run
	}{
		{"gemm256.s", "mxu.mm", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runProgram(t, "../examples/kernels/gemm256.s", chipFor(t, "tpuv4core"), obs)
		}},
		{"softmax.s", "vexp", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runProgram(t, "../examples/kernels/softmax.s", chipFor(t, "teach16"), obs)
		}},
		{"gemm HLO", "mxu.mm", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runHLO(t, gemmHLO, chipFor(t, "tpuv4core"), obs)
		}},
		{"softmax HLO", "dma", func(t *testing.T, obs func(*traces.Source) []core.Observer) *run {
			return runHLO(t, softmaxHLO, chipFor(t, "tpuv4core"), obs)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p *traces.Profile
			r := c.run(t, func(src *traces.Source) []core.Observer {
				p = traces.NewProfile(src)
				return []core.Observer{p}
			})
			path := filepath.Join(t.TempDir(), "cycles.pb.gz")
			f, err := os.Create(path)
			require.NoError(t, err)
			require.NoError(t, p.Write(f, r.report))
			require.NoError(t, f.Close())
			out, err := exec.Command(goCmd, "tool", "pprof", "-top", path).CombinedOutput()
			require.NoError(t, err, string(out))
			require.Contains(t, string(out), "Type: busy")
			require.Contains(t, string(out), c.leaf)
			var total int64
			for _, u := range r.report.Units {
				total += u.BusyCycles
			}
			require.Contains(t, string(out), fmt.Sprintf("Total samples = %dcycles", total))
		})
	}
}

// On teach16 one 16 GB/s DMA engine feeds a 32 GB/s HBM: a streaming add
// is measured against the 16 GB/s it can reach, not HBM's peak, and the
// chart draws both slopes.
func TestAttainableBandwidthRoof(t *testing.T) {
	const add = `ENTRY e {
  a = f32[1048576] parameter(0)
  b = f32[1048576] parameter(1)
  ROOT c = f32[1048576] add(a, b)
}`
	r := runHLO(t, add, chipFor(t, "teach16"), func(*traces.Source) []core.Observer { return nil })
	require.Equal(t, 16e9, r.report.HBM.DMABytesPerSecond)
	require.Equal(t, 16e9, r.report.HBM.AttainableBytesPerSecond)
	require.Greater(t, r.report.HBM.PeakBytesPerSecond, 16e9)
	require.Len(t, r.kernels, 1)
	k := r.kernels[0]
	require.Equal(t, "memory", k.Bound)
	secs := float64(k.Cycles) / (r.report.ClockMHz * 1e6)
	require.InDelta(t, float64(k.Bytes)/secs/16e9, k.Achieved, 1e-9, "achieved is a fraction of the attainable roof")
	require.Greater(t, k.Achieved, 0.6, "a streaming add runs near the DMA ceiling (73%; it read 37% of HBM peak)")
	require.LessOrEqual(t, k.Achieved, 1.0)

	rl := &traces.Roofline{Title: "add", PeakFLOPs: r.report.PeakFLOPsPerSecond, PeakBytes: r.report.HBM.PeakBytesPerSecond,
		AttainableBytes: r.report.HBM.AttainableBytesPerSecond}
	rl.Points = append(rl.Points, traces.RooflinePoint{Label: k.Name, FLOPs: k.FLOPs, Bytes: k.Bytes, Seconds: secs})
	var svg bytes.Buffer
	require.NoError(t, rl.WriteTo(&svg, "svg"))
	require.Contains(t, svg.String(), "attainable through the DMA engines")
	require.Contains(t, svg.String(), "HBM peak")
	if os.Getenv("PULSE_ROOFLINE_PNG") != "" {
		require.NoError(t, rl.Save(os.Getenv("PULSE_ROOFLINE_PNG")))
	}
}
