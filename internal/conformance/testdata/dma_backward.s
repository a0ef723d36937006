; A register is a signed offset: a loop that walks a tensor backwards
; steps its base register below zero (a reversed, tiled copy), and a
; scalar load may address below its constant.
; chip: teach16
.tensor src hbm  0x1000 s32[8] = {1, 2, 3, 4, 5, 6, 7, 8}
.tensor dst sram 0x0    s32[8]
        li   r2, 0
        li   r3, 0
        li   r1, 4
top:
        dma  sram[r3+0x0]:s32[2], hbm[r2+0x101c]:s32[2]{-1}
        addi r2, r2, -8
        addi r3, r3, 8
        loop r1, top
        barrier
        li   r4, 99
        st   r4, [r0+8]
        li   r5, -8
        ld   r6, [r5+16]
        halt
; expect dst = {8, 7, 6, 5, 4, 3, 2, 1}
; expect r2 = -32
; expect r6 = 99
