; DMA: strided (transposing) reads, negative strides (reverse), stride-0
; broadcast, 4-D tiles, and every memory space.
; chip: tpuv4core
.tensor src  hbm  0x0   s32[2,3] = {1, 2, 3, 4, 5, 6}
.tensor t    sram 0x0   s32[3,2]
.tensor rev  sram 0x40  s32[6]
.tensor bc   sram 0x80  s32[2,3]
.tensor back hbm  0x100 s32[2,3]
.tensor a4   hbm  0x200 s32[2,1,3,1]
        dma  t, hbm[0x0]:s32[3,2]{1,3}                ; transpose through strides
        dma  rev, hbm[0x14]:s32[6]{-1} @1             ; last element first
        dma  bc, hbm[0x0]:s32[2,3]{0,1} @2            ; row 0 twice
        dma  acc[0x0]:s32[2,1,3,1], hbm[0x0]:s32[2,1,3,1] @3 signal s0
        dma  a4, acc[0x0]:s32[2,1,3,1] @3 wait s0
        dma  back, t                                  ; same engine: after the transpose
        dma  smem[0x10]:s32[2], hbm[0x4]:s32[2]
        barrier
        ld   r1, [0x10]
        ld   r2, [0x14]
        halt
; expect t = {1, 4, 2, 5, 3, 6}
; expect rev = {6, 5, 4, 3, 2, 1}
; expect bc = {1, 2, 3, 1, 2, 3}
; expect back = {1, 4, 2, 5, 3, 6}
; expect a4 = {1, 2, 3, 4, 5, 6}
; expect r1 = 2
; expect r2 = 3
