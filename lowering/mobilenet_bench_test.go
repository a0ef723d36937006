package lowering_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/runtime"
)

const mobileNetFile = "../../shared/corpus/hlo/torchxla_mobilenet_v2.hlo"

// mobileNet reads the corpus module (skipping when the corpus is absent)
// and loads the chip.
func mobileNet(b *testing.B) (string, *config.Chip) {
	src, err := os.ReadFile(mobileNetFile)
	if err != nil {
		b.Skip("corpus not present")
	}
	chip, err := config.Load("tpuv4core", nil)
	if err != nil {
		b.Fatal(err)
	}
	return string(src), chip
}

// BenchmarkCompileMobileNet: the compile-time figure (parse,
// verify, fusion, scheduling, lowering and assembly of
// torchxla_mobilenet_v2.hlo for tpuv4core).
func BenchmarkCompileMobileNet(b *testing.B) {
	src, chip := mobileNet(b)
	b.ReportAllocs()
	for b.Loop() {
		m, err := hlo.Parse(mobileNetFile, src)
		if err != nil {
			b.Fatal(err)
		}
		if err := verify.Verify(mobileNetFile, m); err != nil {
			b.Fatal(err)
		}
		if _, err := lowering.Compile(mobileNetFile, m, chip); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSimulateMobileNet: the --timing-only simulation, the first
// 100 M cycles (PULSE_MOBILENET_CYCLES overrides; 0 runs to the end).
func BenchmarkSimulateMobileNet(b *testing.B) {
	src, chip := mobileNet(b)
	m, err := hlo.Parse(mobileNetFile, src)
	if err != nil {
		b.Fatal(err)
	}
	client := &runtime.Client{Chip: chip}
	x, err := client.Compile(mobileNetFile, m)
	if err != nil {
		b.Fatal(err)
	}
	args := make([]*eval.Value, len(x.Inputs))
	for i, in := range x.Inputs {
		args[i] = &eval.Value{Shape: in.Shape}
	}
	limit := int64(1e8)
	if s := os.Getenv("PULSE_MOBILENET_CYCLES"); s != "" {
		limit, _ = strconv.ParseInt(s, 10, 64)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := client.Execute(x, args, runtime.ExecOptions{TimingOnly: true, MaxCycles: limit})
		if err != nil {
			b.Log(err) // the cycle limit: the host time still measures the simulator
			continue
		}
		b.ReportMetric(float64(r.Report.Cycles), "cycles")
	}
}
