package lowering_test

import (
	"os"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/lowering/hlo"
)

// BenchmarkCompileMobileNet: the compile-time figure (fusion,
// lowering and assembly of torchxla_mobilenet_v2.hlo for tpuv4core).
func BenchmarkCompileMobileNet(b *testing.B) {
	const file = "../../shared/corpus/hlo/torchxla_mobilenet_v2.hlo"
	src, err := os.ReadFile(file)
	if err != nil {
		b.Skip("corpus not present")
	}
	chip, err := config.Load("tpuv4core", []string{"memory.hbm_bytes=68719476736"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m, err := hlo.Parse(file, string(src))
		if err != nil {
			b.Fatal(err)
		}
		if err := hlo.Verify(file, m); err != nil {
			b.Fatal(err)
		}
		if _, err := lowering.Compile(file, m, chip); err != nil {
			b.Fatal(err)
		}
	}
}
