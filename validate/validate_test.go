package validate_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/validate"
)

func TestReadCSVFormats(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       validate.Measurement
		err        string
	}{
		{"v3.csv", "m,n,k,latency_ms,overhead_ms,tflops\n64,128,256,0.5,0.12,1\n",
			validate.Measurement{Source: "v3.csv", Line: 2, Op: "matmul", M: 64, N: 128, K: 256, DType: "bf16", Chip: "tpuv3core", MeasuredUs: 500, HostUs: 110}, ""},
		{"v4.csv", "kernel_name,dim_m,dim_n,dim_k,fusion_avg,fusion_min\nmatmul_1x2x3,1,2,3,1.5,1.2\n",
			validate.Measurement{Source: "v4.csv", Line: 2, Op: "matmul", M: 1, N: 2, K: 3, DType: "f16", Chip: "tpuv4", MeasuredUs: 1.5}, ""},
		{"mine.csv", "op,m,n,k,dtype,measured_us,chip\nmatmul,8,8,8,f32,2,teach16\n",
			validate.Measurement{Source: "mine.csv", Line: 2, Op: "matmul", M: 8, N: 8, K: 8, DType: "f32", Chip: "teach16", MeasuredUs: 2}, ""},
		{"softmax.csv", "rows,cols,latency_us,overhead_us,gelems_per_s\n4096,64,320.5,285.5,0.8\n",
			validate.Measurement{Source: "softmax.csv", Line: 2, Op: "softmax", M: 4096, N: 64, K: 1, DType: "f32", Chip: "tpuv3core", MeasuredUs: 320.5, HostUs: 300}, ""},
		{"ln.csv", "rows,cols,latency_us,gelems_per_s\n4096,64,132.5,1.9\n",
			validate.Measurement{Source: "ln.csv", Line: 2, Op: "layernorm", M: 4096, N: 64, K: 1, DType: "f32", Chip: "tpuv3core", MeasuredUs: 132.5, HostUs: 140}, ""},
		{"gelu.csv", "elements,latency_us,gelems_per_s\n1024,103.5,0.01\n",
			validate.Measurement{Source: "gelu.csv", Line: 2, Op: "gelu", M: 1024, N: 1, K: 1, DType: "f32", Chip: "tpuv3core", MeasuredUs: 103.5, HostUs: 100}, ""},
		{"host.csv", "op,m,n,k,dtype,measured_us,chip,host_us\ngelu,1024,1,1,f32,103.5,tpuv3core,100\n",
			validate.Measurement{Source: "host.csv", Line: 2, Op: "gelu", M: 1024, N: 1, K: 1, DType: "f32", Chip: "tpuv3core", MeasuredUs: 103.5, HostUs: 100}, ""},
		{"nohost.csv", "op,m,n,k,dtype,measured_us,chip,host_us\ngelu,1024,1,1,f32,103.5,tpuv3core,\n",
			validate.Measurement{Source: "nohost.csv", Line: 2, Op: "gelu", M: 1024, N: 1, K: 1, DType: "f32", Chip: "tpuv3core", MeasuredUs: 103.5}, ""},
		{"neghost.csv", "op,m,n,k,dtype,measured_us,chip,host_us\ngelu,1024,1,1,f32,103.5,tpuv3core,-1\n", validate.Measurement{}, "neghost.csv:2: host_us: -1 is negative"},
		{"nanhost.csv", "op,m,n,k,dtype,measured_us,chip,host_us\ngelu,1024,1,1,f32,103.5,tpuv3core,NaN\n", validate.Measurement{}, `nanhost.csv:2: host_us: "NaN" is not a finite number`},
		{"inf.csv", "op,m,n,k,dtype,measured_us,chip\nmatmul,8,8,8,f32,+Inf,teach16\n", validate.Measurement{}, `inf.csv:2: measured_us: "+Inf" is not a finite number`},
		{"bad.csv", "a,b\n1,2\n", validate.Measurement{}, "bad.csv:1: unknown table"},
		{"neg.csv", "op,m,n,k,dtype,measured_us,chip\nmatmul,8,-8,8,f32,2,teach16\n", validate.Measurement{}, `neg.csv:2: n: "-8" is not a positive integer`},
		{"zero.csv", "op,m,n,k,dtype,measured_us,chip\nmatmul,8,8,8,f32,0,teach16\n", validate.Measurement{}, "zero.csv:2: the measured time 0 is not positive"},
		{"dt.csv", "op,m,n,k,dtype,measured_us,chip\nmatmul,8,8,8,q9,1,teach16\n", validate.Measurement{}, `dt.csv:2: dtype "q9" is not an HLO element type`},
		{"op.csv", "op,m,n,k,dtype,measured_us,chip\nconv,8,8,8,f32,1,teach16\n", validate.Measurement{}, `op.csv:2: op "conv"`},
	} {
		ms, err := validate.ReadCSV(c.name, strings.NewReader(c.text))
		if c.err != "" {
			require.ErrorContains(t, err, c.err, c.name)
			continue
		}
		require.NoError(t, err, c.name)
		require.Equal(t, []validate.Measurement{c.want}, ms, c.name)
	}
}

// The shipped tables read whole: 20 TPU v3 matmuls and 686 TPU v4 ones.
func TestBuiltin(t *testing.T) {
	ms, err := validate.Builtin()
	require.NoError(t, err)
	n := map[string]int{}
	for _, m := range ms {
		n[m.Source]++
	}
	require.Equal(t, map[string]int{"tpuv3_gelu.csv": 20, "tpuv3_layernorm.csv": 22, "tpuv3_matmul.csv": 20, "tpuv3_softmax.csv": 22,
		"tpuv4_gemm_f16_small.csv": 343, "tpuv4_gemm_f16_large.csv": 343}, n)
}

// Run simulates each workload and compares: the predicted time is the
// cycles at the chip's clock, and the groups count rows.
func TestRunPredicts(t *testing.T) {
	ms := []validate.Measurement{
		{Source: "t.csv", Line: 2, Op: "matmul", M: 1024, N: 1024, K: 1024, DType: "bf16", Chip: "tpuv4core", MeasuredUs: 30},
		{Source: "t.csv", Line: 3, Op: "matmul", M: 64, N: 64, K: 64, DType: "bf16", Chip: "tpuv4core", MeasuredUs: 1},
	}
	rep, err := validate.Run(ms, validate.Options{})
	require.NoError(t, err)
	require.Len(t, rep.Rows, 2)
	for _, r := range rep.Rows {
		require.Positive(t, r.Cycles)
		require.InDelta(t, (r.PredictedUs-r.MeasuredUs)/r.MeasuredUs, r.Error, 1e-12)
	}
	require.Equal(t, 2, rep.Overall.Rows)
	names := []string{}
	for _, g := range rep.Groups {
		names = append(names, g.Name)
	}
	require.Equal(t, []string{"t.csv", "t.csv matmul large", "t.csv matmul small"}, names)

	// Cycles at the chip's clock (tpuv4core: 1050 MHz; --set moves it; the
	// run ends on the simulated clock, not on a cycle edge).
	require.InEpsilon(t, float64(rep.Rows[0].Cycles)/1050, rep.Rows[0].PredictedUs, 1e-3)
	slow, err := validate.Run(ms[:1], validate.Options{Sets: []string{"clock_mhz=525"}})
	require.NoError(t, err)
	require.InEpsilon(t, float64(slow.Rows[0].Cycles)/525, slow.Rows[0].PredictedUs, 1e-3)

	// A host overhead in the measurement is added to the device time.
	host := ms[0]
	host.HostUs = 100
	withHost, err := validate.Run([]validate.Measurement{host}, validate.Options{})
	require.NoError(t, err)
	require.Equal(t, rep.Rows[0].Cycles, withHost.Rows[0].Cycles)
	require.InDelta(t, rep.Rows[0].PredictedUs+100, withHost.Rows[0].PredictedUs, 1e-9)

	_, err = validate.Run(ms[:1], validate.Options{Chip: "no-such-chip"})
	require.ErrorContains(t, err, "t.csv:2: the measurement's chip no-such-chip")
}

// TestHeatMap: a table's error grid has a cell per (M, N) holding the mean
// error over K, empty cells where the table has no shape, and the heat
// maps are named beside the chart.
func TestHeatMap(t *testing.T) {
	rep := &validate.Report{Rows: []validate.Row{
		{Measurement: validate.Measurement{Source: "a/t.csv", M: 32, N: 64, K: 8}, Error: 0.1},
		{Measurement: validate.Measurement{Source: "a/t.csv", M: 32, N: 64, K: 16}, Error: 0.3},
		{Measurement: validate.Measurement{Source: "a/t.csv", M: 64, N: 32, K: 8}, Error: -0.5},
		{Measurement: validate.Measurement{Source: "u.csv", M: 8, N: 8, K: 8}, Error: 0},
	}}
	require.Equal(t, []string{"a/t.csv", "u.csv"}, rep.Tables())
	require.Equal(t, []string{"out/v-heat-t.png", "out/v-heat-u.png"}, validate.HeatMapPaths("out/v.png", rep.Tables()))
	pl, err := rep.HeatMap("a/t.csv")
	require.NoError(t, err)
	require.Contains(t, pl.Title.Text, "t.csv")
	dir := t.TempDir()
	require.NoError(t, rep.SaveHeatMaps(dir+"/v.png"))
	for _, p := range validate.HeatMapPaths(dir+"/v.png", rep.Tables()) {
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.Positive(t, st.Size())
	}
}

// TestFitChecksItsKeyFirst: a key no chip has, or a range outside the
// key's, is an error naming it before any row is simulated.
func TestFitChecksItsKeyFirst(t *testing.T) {
	ms := []validate.Measurement{{Source: "t.csv", Line: 2, Op: "matmul", M: 8, N: 8, K: 8, DType: "bf16", Chip: "tpuv4core", MeasuredUs: 1}}
	for _, spec := range []validate.FitSpec{{Key: "nokey", Lo: 1, Hi: 2}, {Key: "hbm.latency_ns", Lo: -5, Hi: 10}} {
		_, _, err := validate.Fit(ms, validate.Options{}, spec, func(float64, float64) { t.Fatal("a row was simulated") })
		require.ErrorContains(t, err, "--fit "+spec.Key)
	}
	_, err := validate.ParseFitSpec("hbm.latency_ns=5")
	require.ErrorContains(t, err, "want KEY=LO:HI")
}
