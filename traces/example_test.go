package traces_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/traces"
)

// Record a timeline and a cycle profile of a hand-written kernel.
func Example() {
	file := "../examples/kernels/vadd.s"
	text, _ := os.ReadFile(file)
	prog, err := asm.Assemble(file, text, asm.Options{})
	if err != nil {
		panic(err)
	}
	c, _ := config.Load("tpuv4core", nil)
	src := traces.ProgramSource(prog, file)
	tl := traces.NewTimeline(src, traces.TimelineOptions{})
	pr := traces.NewProfile(src)
	m, err := chip.Simulate(c, prog, nil, chip.Options{TimingOnly: true, Observers: []core.Observer{tl, pr}})
	if err != nil {
		panic(err)
	}
	report := chip.NewReport(file, m, true)

	var trace bytes.Buffer
	if err := tl.WriteJSON(&trace); err != nil {
		panic(err)
	}
	p := pr.Build(report)
	var vpuBusy, vpuBanks int64
	for _, s := range p.Sample {
		if s.Label["unit"][0] == "vpu" {
			vpuBusy += s.Value[0]
			vpuBanks += s.Value[4]
		}
	}
	fmt.Println("cycles:", report.Cycles)
	fmt.Println("vpu busy in the report:", report.Units["vpu"].BusyCycles, "in the profile:", vpuBusy)
	fmt.Println("vpu bank-conflict stalls in the report:", report.Stalls["vpu"].BankConflict, "in the profile:", vpuBanks)
	fmt.Println("sample types:", traces.SampleTypes)
	// Output:
	// cycles: 1370
	// vpu busy in the report: 8 in the profile: 8
	// vpu bank-conflict stalls in the report: 16 in the profile: 16
	// sample types: [busy semaphore_wait structural_stall memory_wait bank_conflict_stall idle]
}
