package scalesim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func load(t *testing.T, cfgText, topoText string, gemm bool) (*Config, []Layer) {
	t.Helper()
	c, err := ParseConfig("t.cfg", []byte(cfgText))
	require.NoError(t, err)
	l, err := ParseTopology("t.csv", []byte(topoText), gemm)
	require.NoError(t, err)
	return c, l
}

func cfgText(rows, cols int, df string, kb int) string {
	return fmt.Sprintf(`[general]
run_name = t

[architecture_presets]
ArrayHeight:    %d
ArrayWidth:     %d
IfmapSramSzkB:   %d
FilterSramSzkB:  %d
OfmapSramSzkB:   %d
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : 10
Dataflow : %s
MemoryBanks:   1
ReadRequestBuffer: 512
WriteRequestBuffer: 512

[run_presets]
InterfaceBandwidth: CALC
UseRamulatorTrace: False
`, rows, cols, kb, kb, kb, df)
}

// SCALE-Sim v3's own reports for its example (the CALC-mode golden files
// of its test suite), byte for byte.
func TestGoldenCALC(t *testing.T) {
	cfg, err := os.ReadFile("testdata/scale.cfg")
	require.NoError(t, err)
	topo, err := os.ReadFile("testdata/alexnet_part.csv")
	require.NoError(t, err)
	c, layers := load(t, string(cfg), string(topo), false)
	results, err := Run(c, layers, Options{DRAMReads: true}, nil)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, WriteReports(dir, results))
	for _, name := range ReportFiles {
		want, err := os.ReadFile(filepath.Join("testdata/golden_calc_ws", name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), name)
	}
}

// SCALE-Sim's fold laws on layers of every shape: square and non-square
// arrays, partial folds in either direction, conv and GEMM. Total Cycles is
// folds x per-fold - 1; Mapping Efficiency and Compute Util are the means
// over folds of used/(R*C) and used*T/(R*C*cycles of the fold's block).
func TestFoldLaws(t *testing.T) {
	layers := []struct {
		name string
		topo string
		gemm bool
	}{
		{"gemm 1024^3", "Layer, M, N, K,\nG, 1024, 1024, 1024,\n", true},
		{"gemm partial", "Layer, M, N, K,\nG, 100, 37, 75,\n", true},
		{"gemm thin", "Layer, M, N, K,\nG, 5, 300, 3,\n", true},
		{"conv alexnet", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nConv1, 224, 224, 11, 11, 3, 96, 4,\n", false},
		{"conv 3x3", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nC, 30, 20, 3, 3, 7, 10, 1,\n", false},
		{"conv 2 strides", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nC, 31, 17, 5, 3, 2, 9, 2, 3,\n", false},
	}
	arrays := [][2]int{{128, 128}, {32, 32}, {8, 16}, {16, 5}}
	for _, ly := range layers {
		for _, a := range arrays {
			for _, df := range []string{"ws", "os", "is"} {
				t.Run(fmt.Sprintf("%s/%dx%d/%s", ly.name, a[0], a[1], df), func(t *testing.T) {
					c, l := load(t, cfgText(a[0], a[1], df, 64), ly.topo, ly.gemm)
					r, err := Simulate(c, &l[0], Options{})
					require.NoError(t, err)
					R, C := int64(a[0]), int64(a[1])
					m, n, k := l[0].M(), l[0].N(), l[0].K()
					var folds, per, sr, sc, tt, cyc int64
					switch df {
					case "os":
						sr, sc, tt = m, n, k
						per, cyc = k+R+C-2, k+R+C-2
					case "ws":
						sr, sc, tt = k, n, m
						per, cyc = 2*R+C+m-2, 2*R+2*C+m-3
					case "is":
						sr, sc, tt = k, m, n
						per, cyc = 2*R+C+n-2, 2*R+2*C+n-3
					}
					folds = ceilDiv(sr, R) * ceilDiv(sc, C)
					require.Equal(t, folds*per-1, r.TotalCycles)
					var eff, util float64
					for fc := int64(0); fc < ceilDiv(sc, C); fc++ {
						for fr := int64(0); fr < ceilDiv(sr, R); fr++ {
							used := min(R, sr-fr*R) * min(C, sc-fc*C)
							eff += float64(used) / float64(R*C)
							util += float64(used*tt) / float64(R*C*cyc)
						}
					}
					require.Equal(t, eff/float64(folds)*100, r.MappingEff)
					require.Equal(t, util/float64(folds)*100, r.ComputeUtil)
					require.Equal(t, float64(m*n*k*100)/float64(r.TotalCycles*R*C), r.OverallUtil)
					require.Zero(t, r.StallCycles)
				})
			}
		}
	}
}

// The reference points: 1024^3 on one 128x128 array.
func TestReferencePoints(t *testing.T) {
	for df, want := range map[string]int64{"ws": 89_983, "os": 81_791, "is": 89_983} {
		c, l := load(t, cfgText(128, 128, df, 1024), "Layer, M, N, K,\nG, 1024, 1024, 1024,\n", true)
		r, err := Simulate(c, &l[0], Options{})
		require.NoError(t, err)
		require.Equal(t, want, r.TotalCycles, df)
	}
}

// Bad input names the file and line, and says what is wrong.
func TestBadInput(t *testing.T) {
	good := cfgText(32, 32, "ws", 64)
	cfgCases := []struct{ name, text, want string }{
		{"missing key", strings.Replace(good, "ArrayWidth:     32\n", "", 1), "t.cfg:4: [architecture_presets] has no ArrayWidth"},
		{"dataflow xs", strings.Replace(good, "Dataflow : ws", "Dataflow : xs", 1), `t.cfg:14: Dataflow "xs": must be ws, os or is`},
		{"letters", strings.Replace(good, "ArrayHeight:    32", "ArrayHeight:    3x", 1), `t.cfg:5: ArrayHeight "3x" is not a whole number`},
		{"zero", strings.Replace(good, "ArrayHeight:    32", "ArrayHeight:    0", 1), "t.cfg:5: ArrayHeight is 0; it must be at least 1"},
		{"mode", strings.Replace(good, "CALC", "FAST", 1), `t.cfg:20: InterfaceBandwidth "FAST": must be CALC or USER`},
		{"no section", "ArrayHeight: 3\n", "t.cfg:1:"},
		{"no run_presets", good[:strings.Index(good, "[run_presets]")], "no [run_presets] section"},
		{"sparsity", good + "[sparsity]\nSparsitySupport : true\n", "t.cfg:23: SparsitySupport true"},
		{"ramulator", strings.Replace(good, "UseRamulatorTrace: False", "UseRamulatorTrace: True", 1), "t.cfg:21: UseRamulatorTrace True"},
		// Issue 44, 7 and 10: an array of 10^8 rows never finished; a run
		// name of ".." wrote the reports into the parent of -p.
		{"huge array", strings.Replace(good, "ArrayHeight:    32", "ArrayHeight:    100000000", 1), "t.cfg:5: ArrayHeight is 100000000; it must be at most 8192"},
		{"run name ..", strings.Replace(good, "run_name = t", "run_name = ..", 1), `run_name ".." must be a non-empty name without slashes`},
		{"run name .", strings.Replace(good, "run_name = t", "run_name = .", 1), `run_name "." must be`},
	}
	for _, c := range cfgCases {
		t.Run("cfg/"+c.name, func(t *testing.T) {
			_, err := ParseConfig("t.cfg", []byte(c.text))
			require.ErrorContains(t, err, c.want)
		})
	}
	header := "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
	topoCases := []struct {
		name, text string
		gemm       bool
		want       string
	}{
		{"letters", header + "C1, 224, 224, 11, 11, 3, 96, 4,\nC2, 5a, 5, 3, 3, 1, 1, 1,\n", false, `t.csv:3: IFMAP Height "5a" is not a whole number`},
		{"zero filters", header + "C1, 224, 224, 11, 11, 3, 0, 4,\n", false, "t.csv:2: Num Filter is 0; it must be between 1 and 2^31"},
		{"short row", header + "C1, 224, 224,\n", false, "t.csv:2: 3 fields; a conv row has 8"},
		{"filter too big", header + "C1, 4, 4, 5, 3, 1, 1, 1,\n", false, "t.csv:2: the 5x3 filter is larger than the 4x4 input"},
		{"gemm letters", "Layer, M, N, K,\nG, 10, x, 3,\n", true, `t.csv:2: N "x" is not a whole number`},
		{"empty", header, false, "t.csv: no layers"},
		{"depthwise of 10^8 channels", header + "DP1, 10, 10, 3, 3, 100000000, 1, 1,\n", false, "t.csv:2: depthwise layer DP1 runs as 100000000 per-channel layers; a topology may have at most 262144"},
	}
	for _, c := range topoCases {
		t.Run("topology/"+c.name, func(t *testing.T) {
			_, err := ParseTopology("t.csv", []byte(c.text), c.gemm)
			require.ErrorContains(t, err, c.want)
		})
	}
}

// Depthwise layers ("DP" in the name) become one layer per channel.
func TestDepthwise(t *testing.T) {
	_, l := load(t, cfgText(8, 8, "ws", 64), "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nDP1, 10, 10, 3, 3, 3, 1, 1,\n", false)
	require.Len(t, l, 3)
	require.Equal(t, "DP1Channel_2", l[2].Name)
	require.Equal(t, int64(1), l[2].Channels)
}

func TestPyFloat(t *testing.T) {
	for x, want := range map[float64]string{33: "33.0", -3243: "-3243.0", 91.68309650614964: "91.68309650614964",
		0.31035864734643714: "0.31035864734643714", 1e-5: "1e-05", 1.5e16: "1.5e+16", 0: "0.0", 0.0001: "0.0001"} {
		require.Equal(t, want, pyFloat(x))
	}
}

// --pulse-model: the layers on Pulse's chip built from the cfg, beside
// SCALE-Sim's figures. A weight-stationary GEMM that fills the array runs
// within the SCALE-Sim law's cycles (Pulse overlaps a fold's weight load
// and fill with the previous fold's stream; SCALE-Sim's folds never
// overlap), and not below the compute bound.
func TestPulseModel(t *testing.T) {
	c, l := load(t, cfgText(16, 16, "ws", 64), "Layer, M, N, K,\nG, 256, 64, 128,\nsmall, 20, 7, 9,\n", true)
	ch, err := PulseChip(c)
	require.NoError(t, err)
	require.Equal(t, 16, ch.MXU.Rows)
	sim, err := Run(c, l, Options{}, nil)
	require.NoError(t, err)
	dir := t.TempDir()
	pr, err := RunPulse(ch, l, dir, nil)
	require.NoError(t, err)
	require.Len(t, pr, 2)
	big := pr[0].Result.Report
	bound := l[0].M() * l[0].N() * l[0].K() / (16 * 16)
	require.GreaterOrEqual(t, big.Cycles, bound)
	require.LessOrEqual(t, big.Cycles, sim[0].TotalCycles)
	require.FileExists(t, filepath.Join(dir, "layer1.json"))
	rep := PulseReport(sim, pr)
	require.Contains(t, rep, fmt.Sprintf("0, G, 256, 64, 128, %d, %d,", sim[0].TotalCycles, big.Cycles))

	// Output- and input-stationary chips run too, within the compute bound.
	for _, df := range []string{"os", "is"} {
		c.Dataflow = df
		ch, err := PulseChip(c)
		require.NoError(t, err)
		require.Equal(t, df, ch.MXU.Dataflow)
		pr, err := RunPulse(ch, l[:1], t.TempDir(), nil)
		require.NoError(t, err)
		require.GreaterOrEqual(t, pr[0].Result.Report.Cycles, bound, df)
	}
}

// Absurd layers are refused at once, never a hang or an allocation panic.
func TestHugeLayers(t *testing.T) {
	_, err := ParseTopology("t.csv", []byte("Layer, M, N, K,\nG, 2000000000, 2000000000, 2000000000,\n"), true)
	require.ErrorContains(t, err, "t.csv:2: layer G is too large")
	c, l := load(t, cfgText(1, 1, "ws", 64), "Layer, M, N, K,\nG, 2000000000, 1000, 100,\n", true)
	_, err = Simulate(c, &l[0], Options{})
	require.ErrorContains(t, err, "beyond the")
}

// USER bandwidth mode runs: the compute figures are CALC's (SCALE-Sim's do
// not depend on the bandwidth), and what SCALE-Sim derives from its
// prefetch window is left empty.
func TestUserMode(t *testing.T) {
	calcText := cfgText(16, 16, "ws", 64)
	userText := strings.Replace(calcText, "InterfaceBandwidth: CALC", "InterfaceBandwidth: USER", 1)
	topo := "Layer, M, N, K,\nG, 100, 37, 75,\n"
	cc, l := load(t, calcText, topo, true)
	uc, _ := load(t, userText, topo, true)
	calc, err := Run(cc, l, Options{}, nil)
	require.NoError(t, err)
	user, err := Run(uc, l, Options{}, nil)
	require.NoError(t, err)
	rc, ru := Reports(calc), Reports(user)
	cl := strings.Split(strings.Split(rc["COMPUTE_REPORT.csv"], "\n")[1], ", ")
	ul := strings.Split(strings.Split(ru["COMPUTE_REPORT.csv"], "\n")[1], ", ")
	require.Equal(t, "", ul[1], "cycles incl. prefetch")
	require.Equal(t, cl[2], ul[2], "Total Cycles")
	require.Equal(t, "", ul[3], "stall cycles")
	require.Equal(t, cl[4:], ul[4:], "utilizations")
	require.Contains(t, ru["BANDWIDTH_REPORT.csv"], ", , , ,\n", "no DRAM bandwidths")
}
