; tpuv1_weights.s — the TPU v1 sanity check (Jouppi et al. 2017): one 256x256
; chip: tpuv1
; int8 weight tile (64 KiB) read from the DDR3 weight memory at 34 GB/s takes
; about 1350 cycles at 700 MHz; shifting it into the array takes 256 more.
;   pulse run tpuv1_weights.s --chip tpuv1
.tensor W hbm 0x0 s8[256,256] = random(1)
        dma      sram[0x0]:s8[256,256], W           signal s0
        mxu.ldw  sram[0x0]:s8[256,256]              wait s0
        halt
