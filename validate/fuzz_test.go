package validate_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/validate"
	"github.com/stretchr/testify/require"
)

// FuzzReadCSV: any bytes read as a measurement table give an error or
// measurements a run can use: a known op, positive dims, a positive finite
// time and a finite host overhead of at least 0, positioned by line.
func FuzzReadCSV(f *testing.F) {
	for _, seed := range []string{
		"m,n,k,latency_ms,overhead_ms,tflops\n64,12288,12288,0.9661,0.1204,20.0061\n",
		"rows,cols,latency_us,overhead_us,gelems_per_s\n4096,32,303.5,286.7,0.43\n",
		"rows,cols,latency_us,gelems_per_s\n4096,32,158.9,0.82\n",
		"elements,latency_us,gelems_per_s\n1024,103.47,0.0099\n",
		"kernel_name,dim_m,dim_n,dim_k,fusion_avg\nmatmul_1x2x3,1,2,3,1.5\n",
		"op,m,n,k,dtype,measured_us,chip,host_us\ngelu,1024,1,1,f32,103.5,tpuv3core,100\nmatmul,8,8,8,bf16,1e-3,teach16,\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := validate.ReadCSV("t.csv", strings.NewReader(string(data)))
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "t.csv:"), "unpositioned error: %v", err)
			return
		}
		for _, m := range ms {
			require.True(t, slices.Contains(validate.Ops, m.Op), m.Op)
			require.True(t, m.M >= 1 && m.N >= 1 && m.K >= 1, "%+v", m)
			require.True(t, m.MeasuredUs > 0 && !math.IsInf(m.MeasuredUs, 0), "%+v", m)
			require.True(t, m.HostUs >= 0 && !math.IsInf(m.HostUs, 0), "%+v", m)
			require.Equal(t, "t.csv", m.Source)
			require.Positive(t, m.Line)
		}
	})
}
