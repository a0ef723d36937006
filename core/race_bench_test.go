package core_test

import (
	"os"
	"testing"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
)

// BenchmarkRaces measures the race detector's cost on the largest example
// kernel, timing only (pulse run and exec attach it by default).
func BenchmarkRaces(b *testing.B) {
	src, err := os.ReadFile("../examples/kernels/gemm4096.s")
	if err != nil {
		b.Fatal(err)
	}
	prog, err := asm.Assemble("../examples/kernels/gemm4096.s", src, asm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := config.Load("tpuv4core", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				var obs []core.Observer
				if on {
					obs = append(obs, &core.Races{})
				}
				if _, err := core.Simulate(c, prog, core.Options{TimingOnly: true, Observers: obs}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
