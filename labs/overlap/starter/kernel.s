; Lab overlap: y = gelu(x) over N f32 elements on teach16 (README.md).
;
; This kernel is correct but does one thing at a time: load a tile, compute
; it, store it, wait, next tile. The DMA engine idles while the vector unit
; works and the other way round. Make it overlap (double buffering), keeping
; it correct:  pulse run kernel.s --trace t.json  shows the timeline;
; pulse lab check overlap .  grades it.
;
; TODO: two buffer sets, a prologue that loads tile 0, a steady state that
; loads tile i+1 before storing tile i, an epilogue for the last tile.
.const N = 8192
.const T = 256
.const TB = T * 4                     ; one tile, bytes
.tensor x hbm 0x000000 f32[N] = random(1, -4, 4)
.tensor y hbm 0x010000 f32[N]

        li      r1, 0                 ; byte offset of the tile in x and y
        li      r3, N / T
tile:
        dma     sram[0]:f32[T], hbm[r1+x]:f32[T]           signal s0
        vgelu   sram[TB]:f32[T], sram[0]:f32[T]            wait s0 signal s1
        dma     hbm[r1+y]:f32[T], sram[TB]:f32[T]          wait s1 signal s2
        wait    s2, 1
        addi    r1, r1, TB
        loop    r3, tile
        halt
