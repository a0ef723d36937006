package asm_test

import (
	"fmt"

	"github.com/pulse-sim/pulse/asm"
)

// The disassembler prints a program back as assembly that reassembles to the
// same bytes; without the debug map it is easier to read.
func ExampleDisassemble() {
	prog, _ := asm.Assemble("k.s", []byte(`
.const N = 3
        li    r1, N
top:    addi  r2, r2, 2
        loop  r1, top
        halt
`), asm.Options{})
	fmt.Print(asm.Disassemble(prog, asm.DisasmOptions{NoDebug: true}))
	// Output:
	// ; Pulse disassembly
	//
	// ; code
	//     li r1, 3
	// L1:
	//     addi r2, r2, 2
	//     loop r1, L1
	//     halt
}
