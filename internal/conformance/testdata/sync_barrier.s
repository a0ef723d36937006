; barrier waits for every unit to drain before the sequencer goes on.
.tensor src hbm 0x0 s32[2] = {11, 22}
        dma    smem[0x0]:s32[2], src
        barrier
        ld     r1, [0]
        ld     r2, [4]
        halt
; expect r1 = 11
; expect r2 = 22
