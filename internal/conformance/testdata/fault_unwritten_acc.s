; Accumulating into accumulator rows nobody wrote is a fault, not a silent zero.
.tensor w sram 0x0  bf16[2,2] = fill(1)
.tensor x sram 0x10 bf16[2,2] = fill(1)
        mxu.ldw  w
        mxu.mma  acc[0x100]:f32[2,2], x
        halt
; expect fault "read of acc that was never written"
