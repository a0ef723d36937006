; int8 x int8 -> s32, accumulated exactly.
; chip: tpuv1
.tensor w sram 0x00 s8[2,2] = {127, -128, 127, 1}
.tensor x sram 0x10 s8[1,2] = {127, -128}
.tensor y sram 0x40 s32[1,2]
        mxu.ldw  w
        mxu.mm   acc[0x0]:s32[1,2], x      signal s0
        mxu.mma  acc[0x0]:s32[1,2], x      signal s0
        vcopy    y, acc[0x0]:s32[1,2]      wait s0:2
        halt
; 127*127 + -128*127 = -127; 127*-128 + -128*1 = -16384; doubled by mma
; expect y = {-254, -32768}
