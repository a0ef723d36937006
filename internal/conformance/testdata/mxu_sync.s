; The same computation ordered with semaphores, as a real program must be.
.tensor w  sram 0x00 bf16[2,2] = {1, 2, 3, 4}
.tensor x  sram 0x10 bf16[2,2] = {1, 1, 2, 0.5}
.tensor y  sram 0x40 bf16[2,2]
.tensor bias sram 0x80 f32[1,2] = {0.5, -100}
        mxu.ldw  w
        mxu.mm   acc[0x0]:f32[2,2], x      signal s0
        mxu.mma  acc[0x0]:f32[2,2], x      signal s0
        vact.relu y, acc[0x0]:f32[2,2], bias    wait s0:2
        halt
; expect y = {8.5, 0, 7.5, 0}
