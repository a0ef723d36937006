; A register whose offset wrapped is an address again once it is loaded
; afresh: only an offset formed by the wrapping add is refused as a base.
; chip: teach16
.tensor src hbm 0x40 s32[2] = {7, 9}
.tensor dst sram 0x0 s32[2]
        li   r2, 0x7ffffff0
        addi r2, r2, 0x20
        li   r2, 0x40
        dma  sram[0x0]:s32[2], hbm[r2+0x0]:s32[2]
        barrier
        halt
; expect dst = {7, 9}
