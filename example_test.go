package pulse_test

import (
	"fmt"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/ref"
)

// Assemble a kernel, run it functionally on a chip preset with an input, and
// read a named output tensor.
func Example() {
	src := `
.tensor x hbm 0x0   f32[4]
.tensor y hbm 0x100 f32[4]
        dma    sram[0x0]:f32[4], x                      signal s0
        vrelu  sram[0x10]:f32[4], sram[0x0]:f32[4]      wait s0 signal s1
        dma    y, sram[0x10]:f32[4]                     wait s1
        halt
`
	prog, err := asm.Assemble("relu.s", []byte(src), asm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	chip, _ := config.Load("teach16", nil)
	m, err := pulse.Exec(chip, prog, []pulse.Input{{Name: "x", Values: []float64{-1, 2, -3, 4}}}, ref.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	y, _, _ := m.ReadTensor("y")
	fmt.Println(y, m.Retired, "instructions")
	// Output: [0 2 0 4] 4 instructions
}

// Errors in a source file come back together, each with its position.
func ExampleParseProgram_errors() {
	_, err := pulse.ParseProgram("bad.s", []byte("  vadd r1, r2\n  bogus\n"))
	fmt.Println(err)
	// Output:
	// bad.s:1:8: expected a tile operand (hbm, sram, acc or smem [addr]:dtype[dims]) or a tensor name, found "r1"
	// bad.s:2:3: unknown instruction "bogus"
}

// A fault names the instruction, its source line and the address.
func ExampleExec_fault() {
	prog, _ := pulse.ParseProgram("oob.s", []byte("  dma sram[0x3fffc]:f32[4], hbm[0x0]:f32[4]\n  halt\n"))
	chip, _ := config.Load("teach16", nil)
	_, err := pulse.Exec(chip, prog, nil, ref.Options{})
	fmt.Println(err)
	// Output: oob.s:1:3: fault at pc 0 on dma0 (dma sram[0x3fffc]:f32[4], hbm[0x0]:f32[4]): tile sram[0x3fffc]:f32[4] reaches outside sram (valid addresses 0x0..0x3ffff) [address 0x4000b]
}
