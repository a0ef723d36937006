package pulse_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/bench"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/internal/cli"
	"github.com/pulse-sim/pulse/internal/docfigs"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/pulse-sim/pulse/scalesim"
	"github.com/pulse-sim/pulse/sweep"
	"github.com/stretchr/testify/require"
)

var updateDocs = flag.Bool("update", false, "rewrite the docs' figures from what the code produces now")

// docFigures are the figures the docs quote, each produced by code: doc ->
// figure name -> generator. A change that moves one fails TestDocFigures
// until the doc is refreshed (go test . -run TestDocFigures -update) and
// the diff shows what moved; published figures can no longer drift from
// what the shipped files produce (issue 44, 12: docs/sweeps.md said
// 710,058 cycles where the code gave 697,778).
var docFigures = map[string]map[string]func(t *testing.T) string{
	"docs/dataflows.md":   {"dataflow-magnitudes": dataflowMagnitudes},
	"docs/sweeps.md":      {"transformer-study": transformerStudy},
	"docs/bench.md":       {"bench-what-if": benchWhatIf},
	"docs/performance.md": {"dots-suite": dotsSuite, "jax-corpus-roof": jaxCorpusRoof, "depthwise-nchw": depthwiseNCHW},
	"docs/memory.md":      {"hbm-against-xla": hbmAgainstXLA},
	"README.md":           {"quick-start": quickStart, "gemm4096": gemm4096},
}

func TestDocFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the docs' studies")
	}
	files := make([]string, 0, len(docFigures))
	for f := range docFigures {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		doc := string(b)
		names := make([]string, 0, len(docFigures[file]))
		for n := range docFigures[file] {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			t.Run(file+"/"+name, func(t *testing.T) {
				want := docFigures[file][name](t)
				if !strings.HasSuffix(want, "\n") {
					want += "\n"
				}
				if *updateDocs {
					doc, err = docfigs.Set(doc, name, want)
					require.NoError(t, err)
					return
				}
				got, err := docfigs.Get(doc, name)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s: figure %s is stale: go test . -run TestDocFigures -update", file, name)
			})
		}
		if *updateDocs {
			require.NoError(t, os.WriteFile(file, []byte(doc), 0o644))
		}
	}
}

// commas writes an integer with thousands separators, as the docs do.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// dataflowMagnitudes: docs/dataflows.md's worked example, a 1024^3 bf16
// dot on one 128x128 array of each dataflow, against SCALE-Sim's model of
// the same GEMM (the scalesim package) and the compute bound.
func dataflowMagnitudes(t *testing.T) string {
	const n = 1024
	var b strings.Builder
	b.WriteString("| dataflow | Pulse | SCALE-Sim's law | compute bound |\n|---|---|---|---|\n")
	for _, df := range []string{"ws", "os", "is"} {
		c, err := config.Load("tpuv4core", []string{"mxu.count=1", "hbm.bandwidth_gbps=1000000", "mxu.dataflow=" + df})
		require.NoError(t, err)
		client := &runtime.Client{Chip: c}
		m, err := hlo.Parse("g.hlo", fmt.Sprintf("ENTRY e {\n  a = bf16[%d,%d] parameter(0)\n  b = bf16[%d,%d] parameter(1)\n  ROOT d = f32[%d,%d] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}", n, n, n, n, n, n))
		require.NoError(t, err)
		x, err := client.Compile("g.hlo", m)
		require.NoError(t, err)
		r, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true})
		require.NoError(t, err)
		law := scaleSimGEMM(t, df, n)
		fmt.Fprintf(&b, "| %s | %s cycles | %s | %s |\n", df, commas(r.Report.Cycles), commas(law), commas(n*n*n/(128*128)))
	}
	return b.String()
}

// scaleSimGEMM is SCALE-Sim's cycle count for an n^3 GEMM on one 128x128
// array of dataflow df.
func scaleSimGEMM(t *testing.T, df string, n int) int64 {
	cfg := fmt.Sprintf("[general]\nrun_name = d\n\n[architecture_presets]\nArrayHeight: 128\nArrayWidth: 128\nIfmapSramSzkB: 6144\nFilterSramSzkB: 6144\nOfmapSramSzkB: 2048\nIfmapOffset: 0\nFilterOffset: 10000000\nOfmapOffset: 20000000\nDataflow : %s\nReadRequestBuffer: 32\nWriteRequestBuffer: 32\n\n[run_presets]\nInterfaceBandwidth: CALC\n", df)
	c, err := scalesim.ParseConfig("d.cfg", []byte(cfg))
	require.NoError(t, err)
	l, err := scalesim.ParseTopology("g.csv", []byte(fmt.Sprintf("Layer, M, N, K,\nG, %d, %d, %d,\n", n, n, n)), true)
	require.NoError(t, err)
	r, err := scalesim.Simulate(c, &l[0], scalesim.Options{})
	require.NoError(t, err)
	return r.TotalCycles
}

// transformerStudy: docs/sweeps.md's worked study, run from the shipped
// spec, and what the text says of it.
func transformerStudy(t *testing.T) string {
	spec, err := sweep.LoadSpec("examples/sweeps/transformer_mxu_hbm.yaml")
	require.NoError(t, err)
	plan, err := sweep.Expand(spec)
	require.NoError(t, err)
	dir := t.TempDir()
	sum, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir})
	require.NoError(t, err)
	require.Zero(t, sum.Failed)
	res, err := sweep.Load(dir)
	require.NoError(t, err)
	type key struct {
		rows, bw, count int
		df              string
	}
	at := map[key]map[string]float64{}
	for _, r := range res.Rows {
		atoi := func(k string) int { n, _ := strconv.Atoi(r.Axes[k]); return n }
		at[key{atoi("mxu.rows"), atoi("hbm.bandwidth_gbps"), atoi("mxu.count"), r.Axes["mxu.dataflow"]}] = r.Metrics
	}
	get := func(rows, bw, count int, metric string) float64 {
		m, ok := at[key{rows, bw, count, "ws"}]
		require.True(t, ok, "point %dx%d %d GB/s x%d", rows, rows, bw, count)
		return m[metric]
	}
	cyc := func(rows, bw, count int) int64 { return int64(get(rows, bw, count, "cycles")) }
	var b strings.Builder
	fmt.Fprintf(&b, "%d points. With four arrays (weight-stationary; cycles):\n\n", len(res.Rows))
	bws := []int{150, 300, 600, 1200, 2400}
	b.WriteString("| array |")
	for _, bw := range bws {
		fmt.Fprintf(&b, " %d GB/s |", bw)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(bws)) + "\n")
	for _, rows := range []int{32, 64, 128} {
		fmt.Fprintf(&b, "| 4 x %dx%d |", rows, rows)
		for _, bw := range bws {
			fmt.Fprintf(&b, " %s |", commas(cyc(rows, bw, 4)))
		}
		b.WriteString("\n")
	}
	saving := func(bw int) float64 { return 100 * (1 - float64(cyc(128, bw, 4))/float64(cyc(64, bw, 4))) }
	pct := func(v float64) string { return fmt.Sprintf("%.0f%%", v) }
	fmt.Fprintf(&b, "\n![cycles against array size, one line per HBM bandwidth](images/sweep-line.png)\n\nWhat the sweep says:\n\n")
	fmt.Fprintf(&b, "- At 150 GB/s the layer is memory-bound: growing the arrays from 64x64 to\n  128x128 (4x the PEs) saves %s. At 600 GB/s the same step saves %s.\n",
		pct(saving(150)), pct(saving(600)))
	fmt.Fprintf(&b, "- From 1200 to 2400 GB/s at 128x128 bandwidth buys %s: the remaining time\n  is the vector unit's softmax and the arrays' fill and drain (MXU MAC\n  utilization is %s at 4 x 128x128).\n",
		pct(100*(1-float64(cyc(128, 2400, 4))/float64(cyc(128, 1200, 4)))), pct(100*get(128, 1200, 4, "mxu_mac_utilization")))
	fmt.Fprintf(&b, "- Small arrays are used well (%s MAC utilization at 4 x 32x32) and are slow\n  anyway. Against silicon (docs/energy.md's area model, 1200 GB/s): four\n  64x64 arrays (%.1f mm^2) take %s cycles and one 128x128 (%.1f mm^2) %s;\n  four 128x128 (%.1f mm^2) take %s and one 256x256 (%.1f mm^2) %s.\n",
		pct(100*get(32, 1200, 4, "mxu_mac_utilization")),
		get(64, 1200, 4, "area_mm2"), commas(cyc(64, 1200, 4)), get(128, 1200, 1, "area_mm2"), commas(cyc(128, 1200, 1)),
		get(128, 1200, 4, "area_mm2"), commas(cyc(128, 1200, 4)), get(256, 1200, 1, "area_mm2"), commas(cyc(256, 1200, 1)))
	// The Pareto front of cycles against area at 1200 GB/s (the third
	// chart): the designs no other beats on both.
	type design struct {
		rows, count  int
		cycles, area float64
	}
	var ds []design
	for k, m := range at {
		if k.bw == 1200 && k.df == "ws" {
			ds = append(ds, design{k.rows, k.count, m["cycles"], m["area_mm2"]})
		}
	}
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].area != ds[j].area {
			return ds[i].area < ds[j].area
		}
		return ds[i].cycles < ds[j].cycles
	})
	var front []string
	best := -1.0
	for _, d := range ds {
		if best < 0 || d.cycles < best {
			best = d.cycles
			front = append(front, fmt.Sprintf("%d x %dx%d", d.count, d.rows, d.rows))
		}
	}
	fmt.Fprintf(&b, "  The Pareto front of cycles against area is %s.\n", strings.Join(front, ", "))
	fmt.Fprintf(&b, "- Energy falls as the arrays grow even though power rises (%.1f W for one\n  32x32 array, %.1f W for four 128x128, at 1200 GB/s): the layer takes %.0f mJ\n  on one 32x32 array and %.0f mJ on four 128x128, because static power over a\n  longer run dominates.\n",
		get(32, 1200, 1, "average_watts"), get(128, 1200, 4, "average_watts"),
		1e3*get(32, 1200, 1, "energy_joules"), 1e3*get(128, 1200, 4, "energy_joules"))
	// Output- against weight-stationary, over every design and bandwidth.
	var worst, worstOS, worstWS float64
	var worstAt string
	lo2400, hi2400 := 1e9, -1e9
	for k, m := range at {
		if k.df != "os" {
			continue
		}
		ws := at[key{k.rows, k.bw, k.count, "ws"}]["cycles"]
		r := m["cycles"]/ws - 1
		if r > worst {
			worst, worstOS, worstWS = r, m["cycles"], ws
			worstAt = fmt.Sprintf("%d x %dx%d at %d GB/s", k.count, k.rows, k.rows, k.bw)
		}
		if k.bw == 2400 {
			lo2400, hi2400 = min(lo2400, r), max(hi2400, r)
		}
	}
	big := at[key{256, 2400, 1, "os"}]["cycles"] / at[key{256, 2400, 1, "ws"}]["cycles"]
	fmt.Fprintf(&b, "- Output-stationary is up to %s slower than weight-stationary (%s: %s\n  against %s cycles); at 2400 GB/s it is between %s and %s of weight-\n  stationary's time; on a single 256x256 array at 2400 GB/s it takes %s of\n  weight-stationary's time (the output tile stays in the array while the\n  1024-deep K streams, where weight-stationary reloads 256-row weight tiles).\n",
		pct(100*worst), worstAt, commas(int64(worstOS)), commas(int64(worstWS)), pct(100*(1+lo2400)), pct(100*(1+hi2400)), pct(100*big))
	return b.String()
}

// benchWhatIf: docs/bench.md's sample of a what-if on the quick suite, the
// first rows of the comparison as `pulse bench compare --format markdown`
// prints them.
func benchWhatIf(t *testing.T) string {
	s, err := bench.LoadSuite("quick")
	require.NoError(t, err)
	base, err := bench.Run(s, bench.Options{SimOnly: true})
	require.NoError(t, err)
	what, err := bench.Run(s, bench.Options{SimOnly: true, Sets: []string{"hbm.bandwidth_gbps=300"}})
	require.NoError(t, err)
	c, err := bench.Compare(base, what, bench.Thresholds{})
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, c.Write(&out, "markdown"))
	lines := strings.Split(out.String(), "\n")
	// The header, then the cycles of the first entries.
	var table []string
	for _, l := range lines {
		if strings.HasPrefix(l, "| entry |") || strings.HasPrefix(l, "| --- |") || strings.Contains(l, " | cycles | ") {
			table = append(table, l)
		}
		if len(table) == 7 {
			break
		}
	}
	return "```\n$ pulse bench run -o base.json\n$ pulse bench run --set hbm.bandwidth_gbps=300 -o what.json\n$ pulse bench compare base.json what.json --format markdown   # the cycles rows\n" +
		strings.Join(table, "\n") + "\n...\n```"
}

// pulseCLI runs the command line in-process, as `pulse ARGS` would.
func pulseCLI(t *testing.T, args ...string) string {
	var out, errs strings.Builder
	code := cli.Main(args, &out, &errs)
	require.Equal(t, 0, code, "pulse %s: %s", strings.Join(args, " "), errs.String())
	lines := strings.Split(out.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ") // tabwriter pads the last column
	}
	return strings.Join(lines, "\n")
}

// quickStart: README's first command and what it prints.
func quickStart(t *testing.T) string {
	return "```\n" + pulseCLI(t, "exec", "examples/kernels/gemm256.s", "--chip", "tpuv4core", "--show", "C") + "```"
}

// gemm4096: README's report of the 4096^3 GEMM, abridged to the lines
// the text discusses.
func gemm4096(t *testing.T) string {
	out := pulseCLI(t, "run", "examples/kernels/gemm4096.s", "--chip", "tpuv4core", "--timing-only")
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		for _, p := range []string{"│ cycles ", "│ achieved / peak FLOP/s", "│ MXU MAC utilization", "│ HBM achieved / peak", "│  UNIT  │", "│ dma0 ", "│ mxu0 "} {
			if strings.HasPrefix(l, p) {
				if p == "│  UNIT  │" {
					keep = append(keep, "...")
				}
				keep = append(keep, l)
			}
		}
	}
	return "```\n" + strings.Join(keep, "\n") + "\n```"
}

// dotsSuite: the dots suite's roof fractions, per chip and per workload.
func dotsSuite(t *testing.T) string {
	s, err := bench.LoadSuite("dots")
	require.NoError(t, err)
	r, err := bench.Run(s, bench.Options{SimOnly: true})
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("```\n$ pulse bench run --suite dots -o dots.json\n")
	bench.WriteRoofSummary(&b, r)
	b.WriteString("```\n\n")
	require.NoError(t, bench.WriteRoofTable(&b, r, true))
	return b.String()
}

// hbmAgainstXLA: each whole model of the shared JAX corpus, Pulse's peak
// HBM (pulse compile --memory, the sharded one partitioned by Pulse, per
// device) beside XLA's buffer assignment (meta.json xla_memory).
func hbmAgainstXLA(t *testing.T) string {
	const corpus = "../shared/corpus/jax"
	dirs, err := os.ReadDir(corpus)
	if err != nil {
		t.Skip("needs ../shared/corpus/jax")
	}
	var b strings.Builder
	b.WriteString("| model | Pulse's peak | XLA's buffer assignment | difference | XLA's peak_memory_in_bytes |\n|---|---:|---:|---:|---:|\n")
	for _, d := range dirs {
		meta := corpus + "/" + d.Name() + "/meta.json"
		mb, err := os.ReadFile(meta)
		if err != nil || !strings.Contains(string(mb), `"xla_memory"`) {
			continue
		}
		var m struct {
			XLA struct {
				Peak int64 `json:"peak_memory_in_bytes"`
			} `json:"xla_memory"`
		}
		require.NoError(t, json.Unmarshal(mb, &m))
		file := corpus + "/" + d.Name() + "/" + d.Name() + ".hlo"
		out := pulseCLI(t, "compile", file, "--chip", "tpuv4core", "--no-cache", "--memory", "--memory-top", "1",
			"--xla-memory", meta, "--set", "memory.hbm_bytes=4398046511104")
		var xla, pulse int64
		var pct float64
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "XLA's buffer assignment: ") {
				_, err := fmt.Sscanf(l[strings.Index(l, ":")+2:], "%d bytes", &xla)
				require.NoError(t, err, l)
				i := strings.Index(l, "Pulse needs ")
				_, err = fmt.Sscanf(l[i:], "Pulse needs %d bytes, %f%%", &pulse, &pct)
				require.NoError(t, err, l)
			}
		}
		require.Positive(t, xla, out)
		fmt.Fprintf(&b, "| %s | %.2f GB | %.2f GB | %+.1f%% | %.2f GB |\n", d.Name(), float64(pulse)/1e9, float64(xla)/1e9, pct, float64(m.XLA.Peak)/1e9)
	}
	return b.String()
}
