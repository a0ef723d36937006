; Accumulation order: each output is summed down its column, k = 0, 1, 2, in
; f32. 2^24 + 1 + 1 rounds back to 2^24 at each step; another order would give 2^24 + 2.
.tensor w sram 0x00 bf16[3,1] = {1, 1, 1}
.tensor x sram 0x10 bf16[1,3] = {16777216, 1, 1}
.tensor y sram 0x40 f32[1,1]
        mxu.ldw  w
        mxu.mm   acc[0x0]:f32[1,1], x      signal s0
        vcopy    y, acc[0x0]:f32[1,1]      wait s0
        halt
; expect y = {16777216}
