package sweep_test

import (
	"testing"

	"github.com/pulse-sim/pulse/sweep"
)

// FuzzParseSpec: any spec text and any axis value string is a spec or an
// error, never a panic or a hang.
func FuzzParseSpec(f *testing.F) {
	f.Add([]byte("workloads: [a.hlo]\nchip: teach16\naxes:\n  mxu.rows: 32:256:x2\n  mxu.dataflow: [ws, os]\nzip: []\nconstraints: [\"mxu.rows > 1\"]\n"), "1:10:1")
	f.Add([]byte("set: {a: 1}\naxes: {k: \"1,2,3\"}\njobs: 2\n"), "0.1:0.5:0.1")
	f.Add([]byte("axes: [1]\n"), "1:1e300:x1.0000001")
	f.Fuzz(func(t *testing.T, spec []byte, values string) {
		sweep.ParseSpec("f.yaml", spec)
		if vs, err := sweep.ParseValues(values); err == nil && len(vs) == 0 {
			t.Fatalf("%q: no values and no error", values)
		}
	})
}
