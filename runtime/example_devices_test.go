package runtime_test

import (
	"fmt"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/runtime"
)

// ExampleClient_ExecuteDevices runs an all-reduce on two teach16 chips:
// each device brings its own argument and gets the sum; the report says
// what the interconnect did: 2 ring steps of 1 us and 8 bytes at 16 GB/s.
func ExampleClient_ExecuteDevices() {
	const src = `HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(x), replica_groups={}, to_apply=add
}`
	m, err := hlo.Parse("m.hlo", src)
	if err != nil {
		panic(err)
	}
	chip, err := config.Load("teach16", nil)
	if err != nil {
		panic(err)
	}
	client := &runtime.Client{Chip: chip}
	x, err := client.Compile("m.hlo", m) // for the header's 2 replicas
	if err != nil {
		panic(err)
	}
	s := &hlo.Shape{Elem: "f32", Dims: []int64{4}}
	args := [][]*eval.Value{
		{{Shape: s, Data: []float64{1, 2, 3, 4}}},
		{{Shape: s, Data: []float64{10, 20, 30, 40}}},
	}
	r, err := client.ExecuteDevices(x, args, runtime.ExecOptions{})
	if err != nil {
		panic(err)
	}
	for i, d := range r.Devices {
		ic := d.Report.Interconnect
		fmt.Printf("device %d: %v, %d collective, %d link cycles\n", i, d.Outputs[0].Data, ic.Collectives, ic.BusyCycles)
	}
	fmt.Println("cycles:", r.Cycles)
	// Output:
	// device 0: [11 22 33 44], 1 collective, 2001 link cycles
	// device 1: [11 22 33 44], 1 collective, 2001 link cycles
	// cycles: 2006
}
